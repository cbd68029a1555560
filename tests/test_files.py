"""Files and folders the kit writes land whole or not at all: writers killed at random moments, then read back."""

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from kit.files import append_whole, atomic_write, recover_folder, replacing, replacing_folder

pytestmark = pytest.mark.one_backend  # files and processes only, no Keras

ROOT = Path(__file__).resolve().parent.parent

#: A writer that saves a folder of three files again and again, each file holding the save's number, and a file
#: written whole (atomic_write) the same way.
WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from kit.files import atomic_write, replacing_folder
    out = Path(sys.argv[1])
    for i in range(1, 10 ** 6):
        with replacing_folder(out / "bundle") as tmp:
            for name in ("model.keras", "tokenizer.json", "bundle.json"):
                (tmp / name).write_text(f"{i}\\n" * 2000)
        atomic_write(out / "single.txt", f"{i}\\n" * 5000)
    """
)


def _started(path: Path, proc, timeout: float = 30.0) -> None:
    """Wait until ``path`` changes (the writer has started writing), or the process ends."""
    before = path.stat().st_mtime_ns if path.exists() else None
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        if path.exists() and path.stat().st_mtime_ns != before:
            return
        time.sleep(0.02)


def test_a_folder_and_a_file_survive_a_writer_killed_at_random_moments(tmp_path):
    rng, saves = random.Random(1), set()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(20):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], env=env)
        _started(tmp_path / "single.txt", proc)  # its first save done (however loaded the machine), then a moment
        time.sleep(rng.random() * 0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        recover_folder(tmp_path / "bundle")
        folder = tmp_path / "bundle"
        if not folder.exists():  # killed before its first save was whole: nothing, not a part
            assert not list(tmp_path.glob(".bundle.*"))
            continue
        texts = {f.name: f.read_text() for f in folder.iterdir()}
        assert sorted(texts) == ["bundle.json", "model.keras", "tokenizer.json"]
        assert len(set(texts.values())) == 1 and len(texts["bundle.json"].splitlines()) == 2000  # one save, whole
        saves.add(texts["bundle.json"].splitlines()[0])
        single = (tmp_path / "single.txt").read_text() if (tmp_path / "single.txt").exists() else ""
        assert single == "" or len(set(single.splitlines())) == 1 and len(single.splitlines()) == 5000
        assert not list(tmp_path.glob(".bundle.*"))  # the recovery dropped the leftovers
        assert len(list(tmp_path.glob(".single*"))) <= 1  # a killed write's temp file goes at the next write
    assert len(saves) > 5, "the writer hardly saved: the kills proved little"


def test_a_writer_killed_between_the_two_moves_leaves_the_new_folder_in_place(tmp_path):
    folder = tmp_path / "bundle"
    with replacing_folder(folder) as tmp:
        (tmp / "v").write_text("1")
    os.replace(folder, tmp_path / ".bundle.old-999999999-1")  # as if killed right after the first move
    (tmp_path / ".bundle.new-999999999-2").mkdir()
    (tmp_path / ".bundle.new-999999999-2" / "v").write_text("2")
    recover_folder(folder)
    assert (folder / "v").read_text() == "2" and not list(tmp_path.glob(".bundle.*"))


def test_an_error_inside_leaves_the_old_folder_and_file(tmp_path):
    folder, path = tmp_path / "bundle", tmp_path / "p.npz"
    with replacing_folder(folder) as tmp:
        (tmp / "v").write_text("1")
    with pytest.raises(RuntimeError), replacing_folder(folder) as tmp:
        (tmp / "v").write_text("2")
        raise RuntimeError("the save failed half way")
    assert (folder / "v").read_text() == "1" and not list(tmp_path.glob(".bundle.*"))
    with replacing(path) as t:
        np.savez(t, x=np.arange(3))
    with pytest.raises(RuntimeError), replacing(path) as t:
        np.savez(t, x=np.arange(5))
        raise RuntimeError("failed")
    assert np.load(path)["x"].tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle", "p.npz"]


def test_append_whole_wants_whole_lines(tmp_path):
    with pytest.raises(ValueError, match="end the text with a newline"):
        append_whole(tmp_path / "x", "no newline")
    atomic_write(tmp_path / "x", b"bytes\n")
    append_whole(tmp_path / "x", "more\n")
    assert (tmp_path / "x").read_text() == "bytes\nmore\n"
