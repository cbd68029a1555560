"""A sweep of training runs that writes each finished run to ``results.csv`` at once and resumes after a stop.

A notebook's long cell: a plan (dicts of settings, each with its planned optimizer ``steps``), one function that trains
and scores a run, and :class:`Sweep`. Rerun the cell after an interruption and the runs in the CSV are skipped; a
finished run is never lost (:mod:`kit.results`: whole rows or none, a run cut short run again, a second writer refused).

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
    """The first 12 hex digits of the SHA-256 of ``config``'s JSON (keys sorted, other values as ``str``)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _shown(path: Path) -> str:
    """``path`` relative to the working folder when it is below it (no machine-specific paths on screen)."""
    try:
        rel = os.path.relpath(path.resolve(), Path.cwd())
    except ValueError:
        return str(path)
    return rel if not rel.startswith(".." + os.sep + "..") else str(path)


def format_seconds(s: float) -> str:
    """Format a duration (rounded to whole seconds) for a progress line: ``'42s'``, ``'3m05s'``, ``'1h02m'``.

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
    """Runs keyed by ``keys`` (e.g. ``("model", "seed")``), each appended to ``path`` as it ends; a rerun skips them.

    The CSV is long: the keys, ``metric``, ``value`` and ``config``, the fingerprint of ``config`` (the settings that
    are not keys, e.g. the scale's sizes), so another configuration's rows are never mixed in. ``log=print`` shows the
    plan and one progress bar with an ETA, each run's line going to ``sweep.log`` beside the CSV; another callable gets
    the plan and every run's line; ``lambda *a: None`` is silent. ``group``: a key whose runs differ in cost per step
    (e.g. ``"model"``): the ETA fits each group alone.

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

        ``plan``: dicts of settings holding every key and the ``steps`` each plans. :meth:`record` each yielded run's
        metrics before the next.

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
        """Count ``run`` (made by hand) as having taken ``seconds``, for the ETA (its ``steps`` and ``group`` count)."""
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
        """Seconds the runs with ``remaining_steps`` should take: per-run cost + per-step cost x steps.

        0.0 with nothing timed or to come. Both costs (>= 0) are fitted by least squares to ``timings``
        (``(steps, seconds)`` pairs; default: the finished runs); until those differ in steps, each run gets their mean
        time.

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

        ``result``: a :class:`kit.results.RunResult` or ``{name: number}``; its first three floats (under 1e4) show on
        the next progress line. ``seconds``: how long a run made by hand took (the ETA is fitted to it). This process
        becomes the CSV's one writer.

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
        """This configuration's rows (of ``plan``'s runs, if given) as a DataFrame: the keys, ``metric``, ``value``.

        Numeric key columns are restored to numbers.

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
