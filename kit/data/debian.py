"""Read a Debian package (``.deb``) in pure Python: the ``ar`` archive, then its ``data.tar.*`` (no ``ar``/``dpkg``).

Members: ``debian-binary`` (``2.0``), ``control.tar.*``, ``data.tar.*`` (files as ``./usr/share/wordnet/data.noun``),
compressed with xz, gzip, bzip2, zstd (Python 3.14's ``compression.zstd`` or ``zstandard``) or not at all.

>>> import io
>>> blob = make_deb({"usr/share/doc/x/hello.txt": b"hi"})
>>> [name for name, _ in read_ar(io.BytesIO(blob))]
['debian-binary', 'control.tar.xz', 'data.tar.xz']
>>> deb_files(io.BytesIO(blob), prefix="usr/share/doc/x/")
{'hello.txt': b'hi'}
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

try:
    from compression import zstd  # Python >= 3.14
except ImportError:  # older Pythons (or a build without zstd): the optional zstandard package, if installed
    zstd = None

AR_MAGIC = b"!<arch>\n"
_HEADER = 60


def read_ar(stream) -> list[tuple[str, bytes]]:
    """``(name, bytes)`` of each member of the ``ar`` archive at ``stream``'s start, in order (common and GNU names).

    A stream that is not ``ar``, or a header or member cut short (a damaged download), raises ValueError.
    """
    if stream.read(len(AR_MAGIC)) != AR_MAGIC:
        raise ValueError("Not an ar archive (a .deb starts with '!<arch>\\n'): the file is damaged or not a .deb.")
    members = []
    while True:
        header = stream.read(_HEADER)
        if not header:
            return members
        if len(header) < _HEADER or header[58:60] != b"`\n":
            raise ValueError(
                f"Truncated or corrupt ar header after {len(members)} member(s): "
                "the .deb is damaged (download it again)."
            )
        name = header[:16].decode("ascii").rstrip()
        size = int(header[48:58].decode("ascii").strip())
        data = stream.read(size)
        if len(data) != size:
            raise ValueError(f"ar member {name!r} is cut short ({len(data)} of {size} bytes): download it again.")
        if size % 2:
            stream.read(1)  # members are padded to an even offset
        members.append((name.rstrip("/"), data))


def _decompress(name: str, data: bytes) -> bytes:
    if name.endswith(".xz") or name.endswith(".lzma"):
        return lzma.decompress(data)
    if name.endswith(".gz"):
        return gzip.decompress(data)
    if name.endswith(".bz2"):
        return bz2.decompress(data)
    if name.endswith(".zst"):
        if zstd is not None:
            return zstd.decompress(data)
        try:
            import zstandard
        except ImportError:
            raise ValueError(f"{name} is zstd-compressed: use Python >= 3.14 or `pip install zstandard`.") from None
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    if name.endswith(".tar"):
        return data
    raise ValueError(f"Unknown compression for {name!r}: expected .tar, .tar.xz, .tar.gz, .tar.bz2 or .tar.zst.")


def _data_tar(stream) -> tarfile.TarFile:
    members = read_ar(stream)
    names = [n for n, _ in members]
    if not names or names[0] != "debian-binary":
        raise ValueError(f"Not a Debian package: its first ar member is {names[:1]}, expected 'debian-binary'.")
    found = [(n, d) for n, d in members if n.startswith("data.tar")]
    if not found:
        raise ValueError(f"The .deb has no data.tar.* member (members: {names}).")
    name, data = found[0]
    return tarfile.open(fileobj=io.BytesIO(_decompress(name, data)), mode="r:")


def _norm(name: str) -> str:
    return name[2:] if name.startswith("./") else name.lstrip("/")


def deb_files(deb, prefix: str = "") -> dict[str, bytes]:
    """``{path relative to prefix: bytes}`` of the regular files under ``prefix`` in a ``.deb``'s ``data.tar.*``.

    ``deb``: a path or a binary stream; ``prefix``: ``./`` or ``/`` at its start ignored, ``""`` for all; paths with
    ``..`` are skipped. ValueError: not a Debian package, or an unknown compression (or zstd without a decoder).
    """
    if isinstance(deb, (str, os.PathLike)):
        with open(deb, "rb") as f:
            return deb_files(f, prefix)
    prefix = _norm(prefix)
    out = {}
    with _data_tar(deb) as tar:
        for m in tar.getmembers():
            name = _norm(m.name)
            if not m.isfile() or (prefix and not name.startswith(prefix)):
                continue
            rel = name[len(prefix) :].lstrip("/")
            if not rel or ".." in Path(rel).parts:
                continue
            out[rel] = tar.extractfile(m).read()
    return out


def extract_deb(deb_path, dest_dir, prefix: str = "") -> Path:
    """Unpack the files under ``prefix`` (e.g. ``"usr/share/wordnet/"``) of a ``.deb`` into ``dest_dir``; returns it.

    Atomic (staged beside it, then renamed; an existing ``dest_dir`` is replaced); FileNotFoundError if nothing there.
    """
    dest = Path(dest_dir)
    files = deb_files(deb_path, prefix)
    if not files:
        raise FileNotFoundError(f"Nothing under {prefix!r} in {Path(deb_path).name}; the package changed?")
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="kit-deb-", dir=dest.parent))
    try:
        for rel, data in files.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def make_deb(files: dict[str, bytes], compression: str = "xz") -> bytes:
    """A minimal ``.deb``'s bytes holding ``files`` (``{path: bytes}``), for tests.

    ``compression``: the tarballs', ``"xz"``, ``"gz"``, ``"bz2"`` or ``""`` for none.
    """

    def tar_bytes(entries: dict[str, bytes]) -> bytes:
        buf = io.BytesIO()
        mode = {"xz": "w:xz", "gz": "w:gz", "bz2": "w:bz2", "": "w"}[compression]
        with tarfile.open(fileobj=buf, mode=mode) as tar:
            for path, data in entries.items():
                info = tarfile.TarInfo("./" + path)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    ext = f".tar.{compression}" if compression else ".tar"
    members = [
        ("debian-binary", b"2.0\n"),
        ("control" + ext, tar_bytes({"control": b"Package: test\n"})),
        ("data" + ext, tar_bytes(files)),
    ]
    out = io.BytesIO()
    out.write(AR_MAGIC)
    for name, data in members:
        header = f"{name:<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}".encode("ascii") + b"`\n"
        out.write(header + data + (b"\n" if len(data) % 2 else b""))
    return out.getvalue()
