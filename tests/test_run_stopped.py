"""`kit run` stopped by Ctrl-C (SIGINT) or `kill` (SIGTERM): one line says where the notebook so far is, no traceback.

A real `python -m kit.cli run` in a subprocess, under a Jupyter kernel and in-process, on a tiny notebook whose second
cell writes a file and sleeps; the signal goes in once the file is there.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.helpers import ROOT

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _sleeping_notebook(path, started):
    """A notebook of three cells: a print, a cell that writes ``started`` and sleeps a minute, a print never reached."""
    sources = [
        "print('first cell')",
        f"import pathlib, time\nprint('sleeping')\npathlib.Path({str(started)!r}).write_text('x')\ntime.sleep(60)",
        "print('never')",
    ]
    cells = [
        {"cell_type": "code", "id": f"c{i}", "source": s, "metadata": {}, "outputs": [], "execution_count": None}
        for i, s in enumerate(sources)
    ]
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


@pytest.mark.parametrize("how", ["kernel", "in-process"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_run_saves_the_notebook_so_far_and_says_where_in_one_line(tmp_path, how, signum):
    started, out = tmp_path / "started", tmp_path / "out"
    nb = _sleeping_notebook(tmp_path / "sleepy.ipynb", started)
    command = [sys.executable, "-m", "kit.cli", "run", str(nb), "--out", str(out)]
    env = dict(os.environ, PYTHONPATH=str(ROOT), KERAS_BACKEND="torch")
    run = subprocess.Popen(
        command + (["--in-process"] if how == "in-process" else []),
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.time() + 120
        while not started.exists() and run.poll() is None and time.time() < deadline:
            time.sleep(0.1)
        assert started.exists(), f"the sleeping cell never started: {run.communicate(timeout=30)}"
        run.send_signal(signum)
        stdout, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 128 + signum, (run.returncode, stdout, stderr)
    assert stderr.splitlines() == [f"stopped at cell 2 of 3; the notebook so far is in {out}"], stderr
    assert "Traceback" not in stdout + stderr
    cells = json.loads((out / "sleepy.ipynb").read_text())["cells"]
    printed = ["".join(o.get("text", "")) for o in cells[1]["outputs"] if o["output_type"] == "stream"]
    assert "".join(cells[0]["outputs"][0]["text"]) == "first cell\n" and printed[0] == "sleeping\n"
    assert cells[2]["outputs"] == [] and cells[2]["execution_count"] is None
