"""The sweep runner: results appended as runs finish, resume after an interruption, plan and ETA printed."""

import pandas as pd
import pytest

from kit.train.sweep import Sweep, fingerprint

PLAN = [
    {"model": m, "size": n, "seed": s, "steps": n // 10} for m in ("lstm", "bert") for n in (100, 300) for s in (0, 1)
]


def test_each_run_is_written_when_it_finishes(tmp_path):
    path = tmp_path / "results.csv"
    sweep = Sweep(path, keys=("model", "size", "seed"), config={"lr": 1e-3}, log=lambda *a: None)
    seen = []
    for run in sweep.pending(PLAN):
        sweep.record(run, {"accuracy": run["size"] / 1000 + run["seed"], "seconds": 1.0})
        seen.append(len(pd.read_csv(path)))  # on disk before the next run starts
    assert seen == [2 * i for i in range(1, 9)]
    res = sweep.results(PLAN)
    assert set(res.metric) == {"accuracy", "seconds"} and res["size"].dtype.kind == "i"


def test_an_interrupted_sweep_resumes(tmp_path):
    path = tmp_path / "results.csv"
    log = []
    sweep = Sweep(path, keys=("model", "size", "seed"), config={"lr": 1e-3}, log=log.append)
    ran = []
    with pytest.raises(KeyboardInterrupt):
        for i, run in enumerate(sweep.pending(PLAN)):
            if i == 3:
                raise KeyboardInterrupt  # the kernel was stopped during run 4
            sweep.record(run, {"accuracy": 0.5})
            ran.append(run)
    assert "plan: 8 runs, 0 already in results.csv, 8 to run (160 optimizer steps)" in log[0]
    log.clear()
    again = Sweep(path, keys=("model", "size", "seed"), config={"lr": 1e-3}, log=log.append)
    rest = list(again.pending(PLAN))
    assert "3 already in results.csv, 5 to run" in log[0]
    assert [r for r in PLAN if r not in ran] == rest


def test_other_configurations_are_not_mixed_in(tmp_path):
    path = tmp_path / "results.csv"
    a = Sweep(path, keys=("model", "size", "seed"), config={"scale": "smoke"}, log=lambda *a: None)
    for run in a.pending(PLAN[:2]):
        a.record(run, {"accuracy": 0.5})
    b = Sweep(path, keys=("model", "size", "seed"), config={"scale": "medium"}, log=lambda *a: None)
    assert len(list(b.pending(PLAN[:2]))) == 2 and b.results().empty
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})


def test_progress_lines_carry_an_eta(tmp_path):
    log = []
    sweep = Sweep(tmp_path / "r.csv", keys=("model", "size", "seed"), log=log.append)
    for run in sweep.pending(PLAN[:3]):
        sweep.record(run, {"accuracy": 0.25})
    assert len(log) == 4 and all("ETA" in line for line in log[1:]) and "[3/3" in log[-1]
    assert "accuracy 0.250" in log[-1]
    assert "ETA" not in log[0]  # nothing timed yet: no estimate before the first run


def test_printing_keeps_one_line_updating_and_logs_every_run(tmp_path, capsys):
    sweep = Sweep(tmp_path / "r.csv", keys=("model", "size", "seed"))  # log=print: what a notebook cell shows
    for run in sweep.pending(PLAN[:3]):
        sweep.record(run, {"accuracy": 0.25})
    out = capsys.readouterr().out
    lines = out.strip("\n").split("\n")
    assert len(lines) == 2 and lines[0].startswith("plan: 3 runs"), out  # the plan, then one line
    final = lines[1].split("\r")[-1]  # the bar rewrites itself with carriage returns
    assert final.startswith("3/3 runs, ") and ", ETA 0s | last: " in final and "seed=0: accuracy 0.250" in final, final
    logged = (tmp_path / "sweep.log").read_text().splitlines()
    assert len(logged) == 3 and "[3/3] model=lstm, size=300, seed=0: accuracy 0.250" in logged[-1]


def test_a_run_by_hand_gives_the_plan_an_eta_up_front(tmp_path):
    """One run made before the sweep (a notebook's 'one run by hand') times the rest before the long cell starts."""
    log = []
    sweep = Sweep(tmp_path / "r.csv", keys=("model", "size", "seed"), log=log.append)
    sweep.record(PLAN[0], {"accuracy": 0.5}, seconds=20.0)  # 10 planned steps in 20 s
    next(sweep.pending(PLAN))
    # 7 runs left, all timed like the one: 7 x 20 s (the mean, as only one step count was timed)
    assert "7 to run" in log[0] and "ETA 2m20s from the 1 run(s) timed so far" in log[0], log[0]
    # models that differ in cost per step: each timed by its own runs (group="model")
    log.clear()
    sweep = Sweep(tmp_path / "g.csv", keys=("model", "size", "seed"), log=log.append, group="model")
    sweep.record(PLAN[0], {"accuracy": 0.5}, seconds=20.0)  # lstm: 20 s a run
    sweep.record(PLAN[4], {"accuracy": 0.5}, seconds=100.0)  # bert: 100 s a run
    next(sweep.pending(PLAN))
    assert "6 to run" in log[0] and "ETA 6m00s" in log[0], log[0]  # 3 x 20 + 3 x 100 s


def test_bad_plans(tmp_path):
    sweep = Sweep(tmp_path / "r.csv", keys=("model", "seed"), log=lambda *a: None)
    with pytest.raises(ValueError, match="same keys"):
        list(sweep.pending([{"model": "a", "seed": 0}, {"model": "a", "seed": 0}]))
    with pytest.raises(KeyError, match="has no \\['seed'\\]"):
        list(sweep.pending([{"model": "a"}]))
    (tmp_path / "other.csv").write_text("x,y\n1,2\n")
    with pytest.raises(ValueError, match="written by something else"):
        Sweep(tmp_path / "other.csv", keys=("model",), log=lambda *a: None).done()


def test_recording_a_run_again_replaces_it(tmp_path):
    sweep = Sweep(tmp_path / "r.csv", keys=("model", "seed"), log=lambda *a: None)
    sweep.record({"model": "timing", "seed": -1}, {"ms": 3.0})
    sweep.record({"model": "lstm", "seed": 0}, {"accuracy": 0.5})
    sweep.record({"model": "timing", "seed": -1}, {"ms": 2.0})
    res = sweep.results()
    assert len(res) == 2 and res.set_index("model").loc["timing", "value"] == 2.0


def test_the_results_of_a_plan_before_any_run_are_empty(tmp_path):
    sweep = Sweep(tmp_path / "r.csv", keys=("model", "size", "seed"), log=lambda *a: None)
    res = sweep.results(PLAN[:1])  # nothing written yet: no rows, the same columns
    assert res.empty and list(res.columns) == ["model", "size", "seed", "metric", "value"]
