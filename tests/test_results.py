"""A results file never loses a finished run: writers killed at random moments, a torn last line, a second writer."""

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest

from kit.files import WriterBusy, lock_path
from kit.results import ResultsFile, RunResult, run_id

pytestmark = pytest.mark.one_backend  # files and processes only, no Keras

ROOT = Path(__file__).resolve().parent.parent
KEYS = ("model", "seed")
METRICS = ("accuracy", "f1", "seconds")

#: A writer that records runs 0, 1, 2, ... (three metrics each, and every third run records an earlier run again,
#: which rewrites the whole file) and logs each run once its write has returned.
WRITER = textwrap.dedent(
    """
    import os, sys
    from kit.results import ResultsFile, RunResult
    path, log, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = ResultsFile(path, keys=("model", "seed"), config="c0")
    for i in range(start, start + 100000):
        n = i - 7 if i % 3 == 2 and i >= 7 else i          # every third: an earlier run again (its version i)
        store.write({"model": f"m{n}", "seed": n % 5}, RunResult({m: n + v / 10 for v, m in enumerate(
            ("accuracy", "f1", "seconds"))}, parts={} if n % 4 else {"x": {"score": float(i)}}, part_key="model"))
        with open(log, "a") as f:
            f.write(f"{n} {i}\\n")
            f.flush()
    """
)


def _started(path: Path, proc, timeout: float = 30.0) -> None:
    """Wait until ``path`` grows (the writer has recorded a run), or the process ends."""
    before = path.stat().st_size if path.exists() else -1
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        if path.exists() and path.stat().st_size > before:
            return
        time.sleep(0.02)


def _check_whole(path: Path, finished: dict) -> int:
    """Every logged run is in the file with all its rows; no run is there in part. Returns the runs read."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a cut run is dropped with a warning: the point of the test
        frame = ResultsFile(path, KEYS, "c0").frame()
    own = frame[frame.model.str.match(r"^m\d+$")]
    for (model, seed), rows in own.groupby(["model", "seed"]):
        n = int(model[1:])
        assert sorted(rows.metric) == sorted(METRICS), f"run {n} is there in part: {sorted(rows.metric)}"
        assert rows.set_index("metric").value.to_dict() == {m: n + v / 10 for v, m in enumerate(METRICS)}
        assert int(seed) == n % 5
    there = {int(m[1:]) for m in own.model}
    lost = set(finished) - there
    assert not lost, f"{len(lost)} finished run(s) lost, e.g. {sorted(lost)[:5]}"
    return len(there)


def test_a_writer_killed_at_random_moments_never_loses_a_finished_run(tmp_path):
    path, log = tmp_path / "results.csv", tmp_path / "finished.log"
    rng, start, kills = random.Random(0), 0, 0
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    while kills < 25:
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(log), str(start)], env=env)
        _started(log, proc)  # it has recorded a run (however loaded the machine), then a random moment
        time.sleep(rng.random() * 0.35)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        finished = {}
        for line in log.read_text().splitlines() if log.exists() else []:
            if line.count(" ") == 1:  # the log's own last line may be cut by the kill
                n, i = map(int, line.split())
                finished[n] = i
        _check_whole(path, finished)
        start = max([i for i in finished.values()] + [start]) + 1
    assert len(finished) > 100, "the writer hardly ran: the kills proved nothing"
    store = ResultsFile(path, KEYS, "c0")  # the next write heals the file: nothing cut is left in it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        store.write({"model": "m-last", "seed": 0}, RunResult({"accuracy": 1.0}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(ResultsFile(path, KEYS, "c0").frame()) > 300


def test_a_torn_last_line_is_dropped_with_a_warning_and_healed_on_the_next_write(tmp_path):
    path = tmp_path / "results.csv"
    store = ResultsFile(path, KEYS, "c0")
    store.write({"model": "a", "seed": 0}, RunResult({"accuracy": 0.5, "f1": 0.4}))
    store.write({"model": "b", "seed": 0}, RunResult({"accuracy": 0.6, "f1": 0.5}))
    whole = path.read_bytes()
    path.write_bytes(whole[: whole.rindex(b"\n", 0, len(whole) - 1) + 9])  # run b: one whole row, then 8 bytes
    with pytest.warns(UserWarning, match="dropped a last line cut short.*run again"):
        frame = ResultsFile(path, KEYS, "c0").frame()
    assert set(frame.model) == {"a"}, "run b wrote one of its two rows: it must not count as done"
    again = ResultsFile(path, KEYS, "c0")
    with pytest.warns(UserWarning, match="cut short"):
        again.write({"model": "c", "seed": 1}, RunResult({"accuracy": 0.7, "f1": 0.6}))
    text = path.read_text()
    assert text.endswith("\n") and ",b," not in text  # the torn piece is gone from the file itself
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sorted(set(ResultsFile(path, KEYS, "c0").frame().model)) == ["a", "c"]


def test_a_run_with_fewer_rows_than_it_wrote_is_dropped(tmp_path):
    """A write cut exactly at a line's end leaves whole lines: the block's row count still finds it."""
    path = tmp_path / "results.csv"
    store = ResultsFile(path, KEYS, "c0")
    store.write({"model": "a", "seed": 0}, RunResult({"accuracy": 0.5, "f1": 0.4, "seconds": 3.0}))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))  # 2 of the run's 3 rows
    with pytest.warns(UserWarning, match=r"a run cut short \(2 of its 3 rows\)"):
        assert ResultsFile(path, KEYS, "c0").frame().empty


def _holder(path: Path, ready: Path) -> subprocess.Popen:
    """A process that writes one run to ``path``, touches ``ready``, and then waits (holding the lock)."""
    code = (
        "import sys, time, pathlib; from kit.results import ResultsFile, RunResult; "
        "ResultsFile(sys.argv[1], ('model', 'seed'), 'c0').write({'model': 'other', 'seed': 0}, "
        "RunResult({'accuracy': 0.1})); pathlib.Path(sys.argv[2]).touch(); time.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path), str(ready)], env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    for _ in range(300):
        if ready.exists():
            return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the holding process never wrote")


def test_a_second_writer_is_refused_and_the_lock_goes_with_its_process(tmp_path):
    path = tmp_path / "results.csv"
    proc = _holder(path, tmp_path / "ready")
    try:
        with pytest.raises(WriterBusy, match=rf"being written by another process \(process {proc.pid}.*--out"):
            ResultsFile(path, KEYS, "c0").write({"model": "mine", "seed": 0}, RunResult({"accuracy": 0.9}))
    finally:
        proc.kill()
        proc.wait()
    ResultsFile(path, KEYS, "c0").write({"model": "mine", "seed": 0}, RunResult({"accuracy": 0.9}))  # free again
    assert set(ResultsFile(path, KEYS, "c0").frame().model) == {"other", "mine"}
    assert lock_path(path).name == ".results.csv.lock"


def test_a_sweep_refuses_before_training_when_another_process_writes(tmp_path):
    from kit.train.sweep import Sweep

    path = tmp_path / "results.csv"
    proc = _holder(path, tmp_path / "ready")
    try:
        sweep = Sweep(path, keys=KEYS, config="c0", log=lambda *a: None)
        with pytest.raises(WriterBusy):
            next(iter(sweep.pending([{"model": "mine", "seed": 0, "steps": 1}])))
    finally:
        proc.kill()
        proc.wait()


def test_recording_again_replaces_the_run_and_its_parts(tmp_path):
    path = tmp_path / "results.csv"
    store = ResultsFile(path, ("setting", "task", "seed"), "c0")
    run = {"setting": "multi", "task": "a+b", "seed": 0}
    store.write(run, RunResult({"test_mean": 0.5}, parts={"a": {"test_score": 0.4}, "b": {"test_score": 0.6}}))
    store.write({"setting": "single", "task": "a", "seed": 0}, RunResult({"test_score": 0.3}))
    store.write(run, RunResult({"test_mean": 0.7}, parts={"a": {"test_score": 0.8}}))
    frame = store.frame()
    assert len(frame) == 3 and frame.groupby("run").size().to_dict() == {
        run_id(("multi", "a+b", "0")): 2,
        run_id(("single", "a", "0")): 1,
    }
    assert frame[frame.setting == "multi"].set_index("task").value.to_dict() == {"a+b": 0.7, "a": 0.8}


def test_a_file_written_before_blocks_were_counted_is_read_and_upgraded(tmp_path):
    path = tmp_path / "results.csv"
    pd.DataFrame(
        [
            {"model": "a", "seed": 0, "metric": "accuracy", "value": 0.5, "config": "c0"},
            {"model": "a", "seed": 0, "metric": "f1", "value": 0.4, "config": "c0"},
            {"model": "b", "seed": 0, "metric": "accuracy", "value": 0.6, "config": "c1"},
        ]
    ).to_csv(path, index=False)
    store = ResultsFile(path, KEYS, "c0")
    assert store.frame()[["model", "rows"]].values.tolist() == [["a", "2"], ["a", "2"], ["b", "1"]]
    store.write({"model": "c", "seed": 1}, RunResult({"accuracy": 0.7}))
    assert path.read_text().splitlines()[0] == "model,seed,metric,value,config,run,rows"
    assert sorted(set(ResultsFile(path, KEYS, "c0").frame().model)) == ["a", "b", "c"]


def test_a_file_of_other_keys_is_refused_not_mixed(tmp_path):
    path = tmp_path / "results.csv"
    ResultsFile(path, ("model", "size", "seed"), "c0").write(
        {"model": "a", "size": 1, "seed": 0}, RunResult({"accuracy": 0.5})
    )
    with pytest.raises(ValueError, match="written by a sweep with other keys"):
        ResultsFile(path, KEYS, "c0").write({"model": "a", "seed": 0}, RunResult({"accuracy": 0.5}))


def test_run_result_rows_carry_what_the_run_trained():
    result = RunResult({"accuracy": 0.5}, seconds=12.0, trained={"epochs": 3, "steps": 90})
    rows = {m: v for _, m, v in result.rows({"model": "a", "seed": 0})}
    assert rows == {"accuracy": 0.5, "trained_epochs": 3, "trained_steps": 90, "seconds": 12.0}
