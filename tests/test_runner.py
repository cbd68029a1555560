"""kit run: flags for your own data, the in-process runner (no Jupyter kernel), errors before a kernel starts."""

import json
import os

import pytest

from kit.runner import CellError, notebook_env, run_notebook

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _notebook(path, cells):
    nb = {"cells": [{"cell_type": "code", "source": src, "metadata": {}, "outputs": [], "execution_count": None}
                    for src in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    return path


def test_in_process_run_records_outputs_and_figures(tmp_path):
    nb = _notebook(tmp_path / "t.ipynb", [
        "import os\nprint('data file:', os.environ.get('KIT_DATA_FILE'))\nx = 21",
        "import pandas as pd\npd.DataFrame({'a': [x * 2]})",
        "import matplotlib.pyplot as plt\nfrom IPython.display import HTML, display\nplt.plot([1, 2])\nplt.show()\n"
        "display(HTML('<b>bold</b>'))",
    ])
    csv = tmp_path / "my.csv"
    csv.write_text("t,l\na,b\n")
    dest = run_notebook(nb, tmp_path / "out", env=notebook_env(str(csv), "t", "l"), in_process=True)
    cells = json.loads(dest.read_text())["cells"]
    assert cells[0]["outputs"][0]["text"] == f"data file: {csv}\n"
    assert "42" in cells[1]["outputs"][0]["data"]["text/plain"]
    kinds = [next(iter(o["data"])) for o in cells[2]["outputs"]]
    assert "image/png" in kinds and "text/plain" in kinds
    assert "KIT_DATA_FILE" not in os.environ  # the environment is restored after the run


def test_in_process_failure_keeps_the_partial_notebook(tmp_path):
    nb = _notebook(tmp_path / "t.ipynb", ["print('ok')", "1 / 0", "print('never')"])
    with pytest.raises(CellError, match="(?s)cell 2 failed.*ZeroDivisionError"):
        run_notebook(nb, tmp_path / "out", in_process=True)
    cells = json.loads((tmp_path / "out" / "t.ipynb").read_text())["cells"]
    assert cells[0]["outputs"][0]["text"] == "ok\n" and cells[1]["outputs"][-1]["output_type"] == "error"
    assert cells[2]["outputs"] == []


def test_data_flags_are_checked_before_a_kernel_starts(tmp_path):
    csv = tmp_path / "q.csv"
    csv.write_text("q1,q2,dup\na,b,1\n")
    assert notebook_env(str(csv), text_a="q1", text_b="q2", label="dup") == {
        "KIT_DATA_FILE": str(csv.resolve()), "KIT_LABEL": "dup", "KIT_TEXT_A": "q1", "KIT_TEXT_B": "q2"}
    with pytest.raises(ValueError, match="--label COL"):
        notebook_env(str(csv), text="q1")
    with pytest.raises(ValueError, match="both --text-a COL and --text-b COL"):
        notebook_env(str(csv), text_a="q1", label="dup")
    with pytest.raises(ValueError, match="not both"):
        notebook_env(str(csv), text="q1", text_a="q1", text_b="q2", label="dup")
    with pytest.raises(FileNotFoundError, match="no such file"):
        notebook_env(str(tmp_path / "nope.csv"), text="q1", label="dup")
    with pytest.raises(ValueError, match="--text, --label need --data"):
        notebook_env(text="q1", label="dup")


def test_a_relative_data_path_is_read_from_where_the_command_was_typed(tmp_path, monkeypatch):
    (tmp_path / "q.csv").write_text("t,l\na,1\n")
    monkeypatch.chdir(tmp_path)
    env = notebook_env("q.csv", text="t", label="l")
    assert env["KIT_DATA_FILE"] == str((tmp_path / "q.csv").resolve())   # absolute: the kernel runs elsewhere
    with pytest.raises(FileNotFoundError, match=str(tmp_path.resolve() / "nope.csv")):
        notebook_env("nope.csv", text="t", label="l")


def test_cli_run_reports_bad_flags(capsys, tmp_path):
    from kit.cli import main

    assert main(["run", "00", "--text", "review"]) == 1
    assert "--text need --data" in capsys.readouterr().err


def test_kit_test_plans_every_notebook_and_backend():
    """`kit test` runs pytest on each backend and every notebook on its backend, all three backends covered."""
    from pathlib import Path

    from kit.cli import NOTEBOOK_BACKENDS, notebook_plan, test_jobs

    root = Path(__file__).resolve().parent.parent
    plan = notebook_plan(root, NOTEBOOK_BACKENDS)
    notebooks = sorted(p.name for p in (root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(Path(nb).name for nbs in plan.values() for nb in nbs) == notebooks
    assert set(plan) == {"jax", "tensorflow", "torch"}
    jobs = test_jobs(root, ["jax", "torch"], ["-k", "x"], plan)
    assert [j[0] for j in jobs[:2]] == ["pytest jax", "pytest torch"] and jobs[0][1][-2:] == ["-k", "x"]
    assert jobs[1][1][-2:] == ["-k", "x"]
    temps = [next(a for a in cmd if a.startswith("--basetemp=")) for _, cmd, _ in jobs[:2]]
    assert temps[0] != temps[1]
    # the Keras-free tests run under the first backend only
    assert "not one_backend" not in jobs[0][1] and jobs[1][1][-4:-2] == ["-m", "not one_backend"]
    assert len(jobs) == 2 + len(notebooks)
    for label, cmd, env in jobs[2:]:
        assert cmd[-1].endswith(".ipynb") and env["KIT_SCALE"] == "smoke" and Path(env["KIT_OUT_ROOT"]).is_absolute()
        assert env["KERAS_BACKEND"] == NOTEBOOK_BACKENDS[Path(cmd[-1]).name[:2]]
