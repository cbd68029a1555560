r"""Files the kit writes land whole or not at all, and one process at a time writes a results folder.

A kill or a full disk can stop a writer at any byte: :func:`atomic_write` and :func:`replacing` write a synced temporary
file and ``os.replace`` it over the target; :func:`append_whole` appends a block in one synced write (a cut block is
found by readers: ``kit.results`` counts rows); :func:`hold_writer_lock` (``fcntl``, gone when the process ends, however
it ends) refuses a second writer.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
>>> atomic_write(path, "one\n")
>>> append_whole(path, "two\nthree\n")
>>> path.read_text()
'one\ntwo\nthree\n'
>>> hold_writer_lock(path)       # this process may write it; another would get WriterBusy
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks here; a second writer is not refused
    fcntl = None

#: The writer locks this process holds: the lock file's resolved path -> its open descriptor (kept for the process's
#: life: POSIX drops a process's lock on a file when any descriptor of that file is closed).
_HELD: dict[str, int] = {}


class WriterBusy(RuntimeError):
    """Another process holds the writer lock of a file this process wants to write."""


def _sync_folder(folder: Path) -> None:
    """Flush ``folder``'s entry list to the disk (so a rename survives a power cut); a no-op where unsupported."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def replacing(path):
    """A temporary path beside ``path`` to write to; moved over ``path`` when the block ends without an error.

    For writers that take a path (``np.savez``, ``model.save``); the temporary path keeps the folder and suffix. On an
    error it is removed and ``path`` left as it was.

    Example:
        >>> import numpy as np, pathlib, tempfile
        >>> target = pathlib.Path(tempfile.mkdtemp()) / "p.npz"
        >>> with replacing(target) as tmp:
        ...     np.savez(tmp, x=np.arange(3))
        >>> np.load(target)["x"].tolist()
        [0, 1, 2]
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.stem}.tmp-*{path.suffix}"):  # left by a writer that was killed
        if not _writer_alive(stale):
            stale.unlink(missing_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp-{os.getpid()}-{time.monotonic_ns()}{path.suffix}")
    try:
        yield tmp
        if tmp.is_file():
            with open(tmp, "rb+") as f:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    _sync_folder(path.parent)


@contextlib.contextmanager
def replacing_folder(folder):
    """A temporary folder (made, empty) beside ``folder`` to fill; it replaces ``folder`` if the block ends cleanly.

    Old folder moved aside, new moved in, old deleted: a kill between the moves leaves both, and :func:`recover_folder`
    (called here and by readers) puts one back.
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    recover_folder(folder)
    tmp = folder.with_name(f".{folder.name}.new-{os.getpid()}-{time.monotonic_ns()}")
    tmp.mkdir()
    try:
        yield tmp
        old = folder.with_name(f".{folder.name}.old-{os.getpid()}-{time.monotonic_ns()}")
        if folder.exists():
            os.replace(folder, old)
        os.replace(tmp, folder)
        _sync_folder(folder.parent)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def recover_folder(folder) -> None:
    """Put back ``folder`` if a writer died between :func:`replacing_folder`'s moves; drop leftovers."""
    folder = Path(folder)
    if not folder.parent.exists():
        return
    mine = [p for p in folder.parent.glob(f".{folder.name}.*-*-*") if p.is_dir() and not _writer_alive(p)]
    new = sorted(p for p in mine if p.name.startswith(f".{folder.name}.new-"))
    old = sorted(p for p in mine if p.name.startswith(f".{folder.name}.old-"))
    if not folder.exists() and old:
        os.replace((new or old)[-1], folder)
    for leftover in mine:
        shutil.rmtree(leftover, ignore_errors=True)


def _writer_alive(leftover: Path) -> bool:
    """Whether another process that is still running made ``leftover`` (its name holds ``-<process id>-<time>``)."""
    found = re.search(r"-(\d+)-\d+", leftover.name)
    if not found:
        return False
    pid = int(found.group(1))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def atomic_write(path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` whole or not at all; its folder is made if missing."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with replacing(path) as tmp, open(tmp, "wb") as f:
        f.write(raw)
        f.flush()


def append_whole(path, text: str) -> None:
    """Append ``text`` (whole lines, ending in a newline) to ``path`` (made if missing) in one write, then sync it.

    A kill during the write may cut the block short; its reader finds that (``kit.results`` counts each run's rows).
    ValueError when ``text`` does not end in a newline; OSError when the disk refuses (e.g. full).
    """
    if not text.endswith("\n"):
        raise ValueError("append_whole() appends whole lines: end the text with a newline.")
    raw = text.encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(raw)
        while view:  # a regular file takes it in one write unless the disk is full or a signal cuts it
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def lock_path(path) -> Path:
    """The lock file of ``path``: ``.<name>.lock`` beside it (hidden, so a run's folder lists its results only)."""
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


def hold_writer_lock(path) -> None:
    """Make this process ``path``'s one writer till it ends (kill, restart; again: free), else :class:`WriterBusy`."""
    lock = lock_path(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    key = str(lock.resolve())
    if key in _HELD or fcntl is None:
        return
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown"
        os.close(fd)
        raise WriterBusy(
            f"{Path(path).name} in {Path(path).parent} is being written by another process ({holder}): two writers "
            "of one results file would lose runs. Wait for that run to end or stop it (e.g. restart the other "
            "notebook's kernel), or give this one another folder (kit run --out, or KIT_OUT)."
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"process {os.getpid()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}".encode(), 0)
    _HELD[key] = fd
