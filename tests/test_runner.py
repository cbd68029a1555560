"""kit run: flags for your own data, the in-process runner (no Jupyter kernel), errors before a kernel starts."""

import json
import os

import pytest

from kit.data import Columns, OwnData
from kit.inprocess import CellError, Stopped
from kit.runner import run_notebook

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _notebook(path, cells):
    nb = {
        "cells": [
            {"cell_type": "code", "source": src, "metadata": {}, "outputs": [], "execution_count": None}
            for src in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))
    return path


def test_in_process_run_records_outputs_and_figures(tmp_path):
    nb = _notebook(
        tmp_path / "t.ipynb",
        [
            "import os\nprint('data file:', os.environ.get('KIT_DATA_FILE'))\nx = 21",
            "import pandas as pd\npd.DataFrame({'a': [x * 2]})",
            "import matplotlib.pyplot as plt\nfrom IPython.display import HTML, display\nplt.plot([1, 2])\nplt.show()\n"
            "display(HTML('<b>bold</b>'))",
        ],
    )
    csv = tmp_path / "my.csv"
    csv.write_text("t,l\na,b\n")
    env = OwnData.from_flags(str(csv), Columns(text="t", label="l")).env()
    dest = run_notebook(nb, tmp_path / "out", env=env, in_process=True)
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


def test_a_stopped_run_leaves_no_published_outputs_under_the_cells_it_never_reached(tmp_path):
    nb = _notebook(tmp_path / "t.ipynb", ["print('medium')", "1 / 0", "print('smoke')"])
    published = json.loads(nb.read_text())
    for i, cell in enumerate(published["cells"], 1):  # as a notebook on main carries its smoke run's outputs
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "from the smoke run\n"}]
        cell["execution_count"] = i
    nb.write_text(json.dumps(published))
    with pytest.raises(CellError):
        run_notebook(nb, tmp_path / "out", in_process=True)
    cells = json.loads((tmp_path / "out" / "t.ipynb").read_text())["cells"]
    assert cells[0]["outputs"][0]["text"] == "medium\n" and cells[0]["execution_count"] == 1
    assert cells[2]["outputs"] == [] and cells[2]["execution_count"] is None


def test_a_run_stopped_inside_a_cell_keeps_what_that_cell_printed(tmp_path):
    nb = _notebook(tmp_path / "t.ipynb", ["print('run 1 of 9')\nraise KeyboardInterrupt", "print('never')"])
    with pytest.raises(Stopped, match="stopped at cell 1 of 2"):
        run_notebook(nb, tmp_path / "out", in_process=True)
    cells = json.loads((tmp_path / "out" / "t.ipynb").read_text())["cells"]
    assert cells[0]["outputs"][0]["text"] == "run 1 of 9\n" and "stopped here" in cells[0]["outputs"][-1]["text"]
    assert cells[1]["outputs"] == []


def _env(data=None, **flags):
    """What `kit run --data ...` passes the kernel for these flags (columns by name, as the flags spell them)."""
    columns = Columns(**{k: flags.pop(k) for k in ("text", "label", "text_a", "text_b") if k in flags})
    own = OwnData.from_flags(data, columns, **flags)
    return own.env() if own else {}


def test_data_flags_are_checked_before_a_kernel_starts(tmp_path):
    csv = tmp_path / "q.csv"
    csv.write_text("q1,q2,dup\na,b,1\n")
    assert _env(str(csv), text_a="q1", text_b="q2", label="dup") == {
        "KIT_DATA_FILE": str(csv.resolve()),
        "KIT_LABEL": "dup",
        "KIT_TEXT_A": "q1",
        "KIT_TEXT_B": "q2",
    }
    with pytest.raises(ValueError, match="--label COL"):
        _env(str(csv), text="q1")
    with pytest.raises(ValueError, match="both --text-a COL and --text-b COL"):
        _env(str(csv), text_a="q1", label="dup")
    with pytest.raises(ValueError, match="not both"):
        _env(str(csv), text="q1", text_a="q1", text_b="q2", label="dup")
    with pytest.raises(FileNotFoundError, match="no such file"):
        _env(str(tmp_path / "nope.csv"), text="q1", label="dup")
    with pytest.raises(ValueError, match="--text, --label need --data"):
        _env(text="q1", label="dup")


def test_a_relative_data_path_is_read_from_where_the_command_was_typed(tmp_path, monkeypatch):
    (tmp_path / "q.csv").write_text("t,l\na,1\n")
    monkeypatch.chdir(tmp_path)
    env = _env("q.csv", text="t", label="l")
    assert env["KIT_DATA_FILE"] == str((tmp_path / "q.csv").resolve())  # absolute: the kernel runs elsewhere
    with pytest.raises(FileNotFoundError, match=str(tmp_path.resolve() / "nope.csv")):
        _env("nope.csv", text="t", label="l")


def test_cli_run_reports_bad_flags(capsys, tmp_path):
    from kit.cli import main

    assert main(["run", "00", "--text", "review"]) == 1
    assert "--text need --data" in capsys.readouterr().err


def test_kit_test_plans_every_notebook_and_backend():
    """`kit test` runs pytest on each backend and every notebook on its backend, all three backends covered."""
    from pathlib import Path

    from kit.testplan import notebook_backends, notebook_plan, test_jobs

    NOTEBOOK_BACKENDS = notebook_backends()
    root = Path(__file__).resolve().parent.parent
    plan = notebook_plan(root)
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
    assert len(jobs) == 2 + 2 * len(notebooks)
    # each notebook's exercise solutions: one run per notebook, under the first backend, at smoke
    solutions = jobs[2 + len(notebooks) :]
    assert [j[0] for j in solutions] == [f"solutions {nb[:2]} on jax" for nb in notebooks]
    for _label, cmd, env in solutions:
        assert cmd[-2] == "kit.exercises" and env["KERAS_BACKEND"] == "jax" and env["KIT_SCALE"] == "smoke"
    for _label, cmd, env in jobs[2 : 2 + len(notebooks)]:
        assert cmd[-1].endswith(".ipynb") and env["KIT_SCALE"] == "smoke" and Path(env["KIT_OUT_ROOT"]).is_absolute()
        assert env["KERAS_BACKEND"] == NOTEBOOK_BACKENDS[Path(cmd[-1]).name[:2]]


def test_kit_test_starts_the_longest_runs_first():
    """The queue starts the notebooks that take longest, pytest runs after them (sorted, stable among equals)."""
    from pathlib import Path

    from kit.testplan import expected_minutes, longest_first, notebook_plan, test_jobs

    root = Path(__file__).resolve().parent.parent
    jobs = longest_first(test_jobs(root, ["jax", "tensorflow", "torch"], [], notebook_plan(root)))
    labels = [j[0] for j in jobs]
    minutes = [expected_minutes(label) for label in labels]
    assert minutes == sorted(minutes, reverse=True) and len(set(minutes)) > 3  # measured minutes, not one default
    assert labels[0] == max(labels, key=expected_minutes) and labels[-1].startswith("solutions ")
    assert labels.index("solutions 00 on jax") < labels.index("solutions 01 on jax")  # each its own measured minutes
    pytest_order = [label for label in labels if label.startswith("pytest ")]  # stable: each backend's own minutes
    assert pytest_order == sorted(pytest_order, key=expected_minutes, reverse=True) and len(pytest_order) == 3
    assert sorted(labels) == sorted(
        j[0] for j in test_jobs(root, ["jax", "tensorflow", "torch"], [], notebook_plan(root))
    )


GOOD = "text,label\n" + "".join(f'"a text, {i}\nwith a line break",{"ab"[i % 2]}\n' for i in range(30))
BAD_DATA = {  # name: (file bytes, kit run flags after the file, what the error must say)
    "empty file": (b"", ["--text", "text", "--label", "label"], "is empty"),
    "header only": (b"text,label\n", ["--text", "text", "--label", "label"], "no data rows"),
    "latin-1 bytes": (
        GOOD.replace("a text", "caf\xe9").encode("latin-1"),
        ["--text", "text", "--label", "label"],
        "--encoding cp1252",
    ),
    "a wrong column": (GOOD.encode(), ["--text", "review", "--label", "label"], "has no column 'review'"),
    "empty texts": ((GOOD + ",a\n  ,b\n").encode(), ["--text", "text", "--label", "label"], "--skip-empty"),
    "a pair with a missing side": (
        b"q1,q2,dup\n" + b"".join(b"a%d,b,%d\n" % (i, i % 2) for i in range(30)) + b"lonely,,1\n",
        ["--text-a", "q1", "--text-b", "q2", "--label", "dup"],
        "empty text",
    ),
    "a class of one row": (
        (GOOD + "odd one,c\n").encode(),
        ["--text", "text", "--label", "label"],
        "'c' (1, line 62) has fewer than 3 rows",
    ),
    "scores to a classification notebook": (
        ("text,score\n" + "".join(f"t{i},{i / 7:.3f}\n" for i in range(30))).encode(),
        ["--text", "text", "--label", "score"],
        "Notebook 01_pretrain_or_not needs classification data",
    ),
    "a binary file": (b"PK\x03\x04" + bytes(200), ["--text", "text", "--label", "label"], "not a text file"),
}


@pytest.mark.parametrize("case", sorted(BAD_DATA))
def test_kit_run_refuses_bad_data_before_a_kernel_starts(case, tmp_path, capsys, monkeypatch):
    """Each bad file stops `kit run` in the CLI process with the reader's message: no kernel, no notebook run."""
    import time

    import kit.runner
    from kit.cli import main

    def no_kernel(*a, **k):
        raise AssertionError("a kernel was started for a bad file")

    monkeypatch.setattr(kit.runner, "run_notebook", no_kernel)
    content, flags, message = BAD_DATA[case]
    (tmp_path / "mine.csv").write_bytes(content)
    t = time.perf_counter()
    assert main(["run", "01", "--data", str(tmp_path / "mine.csv"), *flags, "--out", str(tmp_path / "o")]) == 1
    assert time.perf_counter() - t < 30
    assert message in capsys.readouterr().err


def test_kit_run_flags_fix_what_the_errors_name(tmp_path, kit_run_reads):
    """--encoding, --skip-empty and --delimiter reach both the check and the notebook; a 5 MB text is read."""
    from kit.cli import main

    seen = kit_run_reads
    latin = tmp_path / "latin.csv"
    latin.write_bytes((GOOD.replace("a text", "caf\xe9") + ",a\n").replace(",", ";").encode("latin-1"))
    args = ["run", "01", "--data", str(latin), "--text", "text", "--label", "label", "--out", str(tmp_path / "o")]
    assert main(args + ["--encoding", "latin-1", "--delimiter", ";", "--skip-empty"]) == 0
    assert (
        seen["KIT_ENCODING"] == "latin-1" and seen["KIT_SKIP_EMPTY"] == "1" and sum(seen["ds"].sizes().values()) == 30
    )
    tab = tmp_path / "tab.txt"
    tab.write_text(GOOD.replace(",", "\t").replace("a text\t", "a text "))
    assert (
        main(
            [
                "run",
                "01",
                "--data",
                str(tab),
                "--text",
                "text",
                "--label",
                "label",
                "--delimiter",
                "\\t",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 0
    )
    assert seen["KIT_DELIMITER"] == "\t"
    long = tmp_path / "long.csv"
    long.write_text(GOOD + '"' + "word " * 1_000_000 + '",a\n')
    assert (
        main(["run", "01", "--data", str(long), "--text", "text", "--label", "label", "--out", str(tmp_path / "o")])
        == 0
    )
    assert sum(seen["ds"].sizes().values()) == 31


def test_kit_run_stopped_says_where_the_notebook_is(tmp_path, capsys, monkeypatch):
    import signal

    import kit.runner
    from kit.cli import main

    def stopped(nb, out, **k):
        raise Stopped(13, 27, out / nb.name, signal.SIGTERM)

    monkeypatch.setattr(kit.runner, "run_notebook", stopped)
    assert main(["run", "00", "--out", str(tmp_path / "o")]) == 143
    assert capsys.readouterr().err == f"stopped at cell 13 of 27; the notebook so far is in {tmp_path / 'o'}\n"


def test_each_notebook_takes_the_kinds_of_data_kit_run_checks():
    """The registry's tasks (what `kit run` checks before a kernel) equal each notebook's notebook_dataset(tasks=)."""
    import re

    from kit import notebooks
    from kit.papers.serbertus import serbertus_runs as runs
    from tests.helpers import notebook_paths

    for nb in notebook_paths():
        source = "".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code")
        call = re.search(r"notebook_dataset\((?:.|\n)*?tasks=(\([^)]*\)|tuple\(runs\.SLOTS\))", source)
        assert call, nb.name
        assert tuple(eval(call.group(1), {"runs": runs})) == notebooks.notebook(nb.name).tasks, nb.name


def test_kit_sh_installs_once_then_runs_kit_and_ci_uses_it(tmp_path):
    """The two commands of README: `./kit.sh run 00` / `./kit.sh test` run `kit` in .venv; .ci/run goes through it."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    ci = (root / ".ci" / "run").read_text()
    assert "./kit.sh info" in ci and "./kit.sh test" in ci
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "kit").write_text('#!/usr/bin/env bash\necho "kit got: $*"\n')
    (venv / "bin" / "kit").chmod(0o755)
    out = subprocess.run(
        [str(root / "kit.sh"), "run", "00", "--scale", "smoke"],
        capture_output=True,
        text=True,
        env=dict(os.environ, KIT_VENV=str(venv)),
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout.strip() == "kit got: run 00 --scale smoke"
    old = tmp_path / "python3.9"  # no environment yet and a Python that is too old: it says so
    old.write_text('#!/usr/bin/env bash\n[ "$1" = "--version" ] && echo "Python 3.9.18" && exit 0\nexit 1\n')
    old.chmod(0o755)
    out = subprocess.run(
        [str(root / "kit.sh"), "test"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, KIT_VENV=str(tmp_path / "none"), KIT_PYTHON=str(old)),
    )
    assert out.returncode == 1 and "Python 3.9.18 is too old" in out.stderr
    out = subprocess.run(
        [str(root / "kit.sh"), "test"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, KIT_VENV=str(tmp_path / "none"), KIT_TORCH_BUILD="gpu"),
    )
    assert out.returncode == 1 and "KIT_TORCH_BUILD=gpu: use auto, cpu or cuda" in out.stderr
    assert not (tmp_path / "none").exists()


def test_kit_run_keeps_the_kernels_own_lines_in_its_log(tmp_path):
    """On a CPU the terminal shows no CUDA probing and no kernel TCP warning; the run's kernel.log keeps them."""
    import subprocess
    import sys

    cell = "import kit\nimport tensorflow as tf\nprint('sum', int(tf.reduce_sum([1, 2])))"
    nb = _notebook(tmp_path / "q.ipynb", [cell])
    nb_json = json.loads(nb.read_text())
    nb_json["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for i, cell in enumerate(nb_json["cells"]):
        cell["id"] = f"c{i}"
    nb.write_text(json.dumps(nb_json))
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"} | {"KERAS_BACKEND": "tensorflow"}
    done = subprocess.run(
        [sys.executable, "-m", "kit.cli", "run", str(nb), "--out", str(tmp_path / "o")],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    shown = done.stdout + done.stderr
    assert "cuda" not in shown.lower() and "without encryption" not in shown, shown
    assert "sum 3" in (tmp_path / "o" / "q.ipynb").read_text()
    log = (tmp_path / "o" / "kernel.log").read_text()
    assert "without encryption" in log  # kept, not lost (TensorFlow's lines too, where it probes for CUDA)


def test_tensorflows_start_up_lines_stay_out_of_the_cells_unless_you_ask(tmp_path, monkeypatch):
    nb = _notebook(tmp_path / "t.ipynb", ["import os\nprint(os.environ.get('TF_CPP_MIN_LOG_LEVEL'))"])
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    cells = json.loads(run_notebook(nb, tmp_path / "a", in_process=True).read_text())["cells"]
    assert cells[0]["outputs"][0]["text"] == "2\n"  # INFO and WARNING lines of TensorFlow's C++ start-up: off
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "0")  # yours wins
    cells = json.loads(run_notebook(nb, tmp_path / "b", in_process=True).read_text())["cells"]
    assert cells[0]["outputs"][0]["text"] == "0\n"
