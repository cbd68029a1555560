"""A sweep of training runs that writes each finished run to ``results.csv`` at once and resumes after a stop.

A notebook's long cell is a list of runs (dicts of settings, each with the
optimizer ``steps`` it plans), one function that trains and scores one run,
and this runner. It prints the plan (runs, optimizer steps, how many are
already done) before the first run; after each run it appends that run's
metrics to the CSV (long format: the run's keys, then ``metric, value``) and
updates one progress line in place (a tqdm bar) with an ETA: the finished runs' seconds fitted as a fixed
cost per run (building, compiling, evaluating) plus a cost per optimizer step, applied
to the runs still to come. The line of every finished run (its keys, its first metrics) goes to ``sweep.log``
beside the CSV (or to ``log``, when one is given). Rerun the cell after an interruption and the runs already in
the CSV are skipped. Rows carry a fingerprint of the settings that are not
keys (the scale's sizes), so results of another configuration in the same
folder are never mixed in. A finished run is never lost: its rows land whole or
not at all, a run cut short by a killed writer is dropped and run again, and a
second process writing the same CSV is refused (:mod:`kit.results`).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
>>> sweep = Sweep(path, keys=("model", "seed"), config={"epochs": 3}, log=lambda *a: None)
>>> plan = [{"model": "lstm", "seed": s, "steps": 10} for s in (0, 1)]
>>> for run in sweep.pending(plan):
...     sweep.record(run, {"accuracy": 0.5 + run["seed"] / 10})
>>> sweep.results(plan).value.tolist()
[0.5, 0.6]
>>> len(list(Sweep(path, keys=("model", "seed"), config={"epochs": 3}, log=lambda *a: None).pending(plan)))
0
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..files import hold_writer_lock
from ..results import ResultsFile, RunResult, run_id


def fingerprint(config) -> str:
    """A short stable hash of a JSON-able configuration.

    Args:
        config: the settings (keys sorted; values JSON can't write are written as ``str``).

    Returns:
        The first 12 hex digits of the SHA-256 of its JSON.
    """
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _shown(path: Path) -> str:
    """``path`` relative to the working folder when it is below it (no machine-specific paths on screen)."""
    try:
        rel = os.path.relpath(path.resolve(), Path.cwd())
    except ValueError:
        return str(path)
    return rel if not rel.startswith(".." + os.sep + "..") else str(path)


def format_seconds(s: float) -> str:
    """Format a duration for a progress line: ``'42s'``, ``'3m05s'``, ``'1h02m'``.

    Args:
        s: seconds (rounded to whole seconds).

    Returns:
        Seconds under a minute, minutes and seconds under an hour, else hours and minutes.

    Example:
        >>> format_seconds(42), format_seconds(185), format_seconds(3720)
        ('42s', '3m05s', '1h02m')
    """
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


class Sweep:
    """Runs keyed by ``keys``; results appended to ``path`` as they finish; finished runs skipped on a rerun.

    Args:
        path: the CSV the results go to (long format: the keys, ``metric``, ``value``, ``config``).
        keys: the settings that name a run (e.g. ``("model", "seed")``).
        config: the settings that are not keys (the scale's sizes); their fingerprint marks every row, so
            another configuration's rows in the same file are never mixed in.
        log: where the plan and progress lines go: ``print`` (the default) prints the plan, keeps one progress bar
            updating in place and writes each finished run's line to ``sweep.log`` beside the CSV; any other
            callable gets the plan line and every run's line; ``lambda *a: None`` for silence.
        group: a key whose runs differ in cost per step (e.g. ``"model"``): the ETA fits each group alone.

    Raises:
        ValueError: no keys.
    """

    def __init__(self, path, keys, config=None, log=print, group: str | None = None):
        self.path = Path(path)
        self.keys = tuple(keys)
        if not self.keys:
            raise ValueError("A sweep needs at least one key column (e.g. keys=('model', 'seed')).")
        self.fingerprint = fingerprint(config or {})
        self.store = ResultsFile(self.path, self.keys, self.fingerprint)
        self.log = log
        self._timings: list[tuple[int, float]] = []  # (planned steps, seconds) of each finished run
        self.group = group  # a key whose runs differ in cost per step (e.g. "model")
        self._groups: list = []  # each timed run's value of ``group``
        self._last = ""

    # -- what is already there ----------------------------------------------------------------------------
    def _frame(self):
        """This configuration's whole runs in the CSV (runs cut short by a killed writer dropped, with a warning)."""
        frame = self.store.frame()
        return frame[frame.config == self.fingerprint]

    def _key(self, run) -> tuple:
        """``run``'s key values as strings, in the order of ``keys``."""
        missing = [k for k in self.keys if k not in run]
        if missing:
            raise KeyError(f"run {run} has no {missing}; every run needs the keys {self.keys}.")
        return tuple(str(run[k]) for k in self.keys)

    def done(self) -> set:
        """The keys (tuples of strings) of the runs this configuration already has whole in the CSV."""
        frame = self._frame()
        keys = [tuple(row) for row in frame[list(self.keys)].itertuples(index=False)]
        return {k for k, rid in zip(keys, frame["run"]) if run_id(k) == rid}

    # -- running -------------------------------------------------------------------------------------------
    def pending(self, plan):
        """Print the plan, then yield the runs not yet in the CSV, printing progress and an ETA after each.

        Args:
            plan: the runs, dicts of settings holding every key and the ``steps`` each plans.

        Yields:
            Each run still to do, in order; train it and :meth:`record` its metrics before the next.

        Raises:
            KeyError: a run lacks a key.
            ValueError: two runs have the same keys.
            kit.files.WriterBusy: another process writes this CSV (two sweeps in one folder would lose runs).
        """
        plan = list(plan)
        keys = [self._key(r) for r in plan]
        if len(set(keys)) != len(keys):
            raise ValueError("Two runs of the plan have the same keys: add the setting that differs to keys.")
        done = self.done()
        todo = [r for r, k in zip(plan, keys) if k not in done]
        if todo:  # refused now, before hours of training, if another process writes this CSV
            self.path.parent.mkdir(parents=True, exist_ok=True)
            hold_writer_lock(self.path)
        steps = sum(int(r.get("steps", 0)) for r in todo)
        ahead = (
            f"; ETA {format_seconds(self._eta_of(todo))} from the {len(self._timings)} run(s) timed so far"
            if self._timings and todo
            else ""
        )
        self.log(
            f"plan: {len(plan)} runs, {len(plan) - len(todo)} already in {self.path.name}, {len(todo)} to run "
            f"({steps:,} optimizer steps){ahead}; results are appended to {_shown(self.path)} as runs finish"
        )
        start, bar = time.perf_counter(), self._bar(len(todo))
        try:
            for i, run in enumerate(todo, 1):
                t = time.perf_counter()
                yield run
                self.timed(run, time.perf_counter() - t)
                eta = format_seconds(self._eta_of(todo[i:]))
                line = ", ".join(f"{k}={run[k]}" for k in self.keys) + self._last
                if bar is None:
                    self.log(f"[{i}/{len(todo)} | {format_seconds(time.perf_counter() - start)} | ETA {eta}] {line}")
                else:
                    with open(self.path.parent / "sweep.log", "a", encoding="utf-8") as f:
                        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{i}/{len(todo)}] {line}\n")
                    bar.set_postfix_str(f"ETA {eta} | last: {line}", refresh=False)
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()

    def _bar(self, total: int):
        """The progress bar that updates in place when the sweep prints (``log=print``), else None."""
        if self.log is not print or not total:
            return None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return tqdm(  # tqdm writes the postfix after ", "
            total=total, unit="run", file=sys.stdout, bar_format="{n_fmt}/{total_fmt} runs, {elapsed}{postfix}"
        )

    def timed(self, run, seconds: float) -> None:
        """Count ``run`` as having taken ``seconds`` for the ETA (a run made by hand, outside :meth:`pending`).

        Args:
            run: the run's settings (its ``steps`` and ``group`` value count).
            seconds: how long it took.
        """
        self._timings.append((int(run.get("steps", 0)), float(seconds)))
        self._groups.append(run.get(self.group) if self.group else None)

    def _eta_of(self, runs) -> float:
        """:meth:`eta` of ``runs``, each group (``group=``) timed by its own finished runs where it has any."""
        if not self.group:
            return self.eta([int(r.get("steps", 0)) for r in runs])
        total = 0.0
        for g in dict.fromkeys(r.get(self.group) for r in runs):
            own = [t for t, h in zip(self._timings, self._groups) if h == g]
            total += self.eta([int(r.get("steps", 0)) for r in runs if r.get(self.group) == g], own or None)
        return total

    def eta(self, remaining_steps: list[int], timings=None) -> float:
        """Seconds the runs with ``remaining_steps`` should take: seconds = per-run cost + per-step cost x steps.

        The costs are fitted (least squares, both costs >= 0) to the finished runs; until the finished runs differ
        in their steps, each run is given their mean time.

        Args:
            remaining_steps: the planned optimizer steps of each run to come.
            timings: ``(steps, seconds)`` pairs to fit instead of the finished runs', or None.

        Returns:
            The seconds (0.0 with nothing timed or nothing to come).

        Example:
            >>> sweep = Sweep("unused.csv", keys=("seed",), log=lambda *a: None)
            >>> sweep._timings = [(100, 12.0), (300, 22.0)]      # 7 s per run + 0.05 s per step
            >>> round(sweep.eta([1000, 100]))
            69
        """
        timings = self._timings if timings is None else timings
        if not timings or not remaining_steps:
            return 0.0
        steps, secs = np.array(timings, dtype=float).T
        if len(set(steps)) < 2:
            return float(secs.mean() * len(remaining_steps))
        a, b = np.linalg.lstsq(np.c_[np.ones_like(steps), steps], secs, rcond=None)[0]
        if a < 0 or b < 0:  # one cost explains it all: keep the one that fits
            a, b = (0.0, secs.sum() / steps.sum()) if a < 0 else (secs.mean(), 0.0)
        return float(a * len(remaining_steps) + b * sum(remaining_steps))

    def record(self, run, result, seconds: float | None = None) -> None:
        """Write ``result`` of ``run`` to the CSV now, whole (replacing that run's old rows, if any).

        The run's rows land in one write, or the file is replaced whole (:class:`kit.results.ResultsFile`); this
        process becomes the folder's one writer (a second process recording to the same CSV gets
        :class:`kit.files.WriterBusy`).

        Args:
            run: the run's settings (its keys name the rows).
            result: a :class:`kit.results.RunResult`, or ``{name: number}`` (its metrics); the first three floats
                (under 1e4) show on the next progress line.
            seconds: how long a run made outside :meth:`pending` took (one run by hand); the ETA that
                :meth:`pending` prints before its first run is fitted to it.

        Raises:
            ValueError: no metrics.
            KeyError: the run lacks a key.
            kit.files.WriterBusy: another process writes this CSV.
        """
        result = result if isinstance(result, RunResult) else RunResult(dict(result))
        if not result.metrics:
            raise ValueError("record() got no metrics to write.")
        self._key(run)
        if seconds is not None:
            self.timed(run, seconds)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.store.write(run, result)
        shown = [f"{m} {v:.3f}" for m, v in result.metrics.items() if isinstance(v, float) and abs(v) < 1e4][:3]
        self._last = (": " + ", ".join(shown)) if shown else ""

    def results(self, plan=None):
        """This configuration's rows (of ``plan``'s runs, if given), with numeric key columns restored.

        Args:
            plan: the runs whose rows to keep, or None for every row of this configuration.

        Returns:
            A ``pandas.DataFrame``: the key columns, ``metric``, ``value``.

        Raises:
            ValueError: the CSV lacks the sweep's columns (something else wrote it).
        """
        import pandas as pd

        frame = self._frame()
        if plan is not None:  # the plan's runs, and the rows they wrote under other keys (a multitask run's tasks)
            wanted = {run_id(self._key(r)) for r in plan}
            frame = frame.loc[frame["run"].isin(wanted).to_numpy(dtype=bool)]
        frame = frame.drop(columns=["config", "run", "rows"])
        for k in self.keys:
            if frame[k].dtype == object:
                try:
                    frame[k] = pd.to_numeric(frame[k])
                except (ValueError, TypeError):
                    pass
        return frame.reset_index(drop=True)
