"""The contract the four papers share: an experiment plans its runs, runs one, and records what it produced.

A paper's ``<paper>_runs.Experiment`` names its run ``KEYS``, builds ``plan()``, trains one run in ``run_one(run)`` (a
:class:`kit.results.RunResult`); :meth:`Experiment.record` saves predictions, :meth:`Experiment.keep`, then scores. A
notebook's long cell: ``for run in sweep.pending(plan): experiment.record(run, experiment.run_one(run))``.

>>> import pathlib, tempfile
>>> class Toy(Experiment):
...     KEYS = ("model", "seed")
...     def plan(self):
...         return [{"model": "coin", "seed": s, "steps": 1} for s in (0, 1)]
...     def run_one(self, run):
...         guess = np.full(4, run["seed"])
...         return RunResult({"accuracy": float((guess == [0, 1, 1, 0]).mean())}, predictions={"test": guess})
>>> toy = Toy(pathlib.Path(tempfile.mkdtemp()), config={"size": 4}, log=lambda *a: None)
>>> plan = toy.plan()
>>> for run in toy.sweep.pending(plan):
...     toy.record(run, toy.run_one(run))
>>> toy.sweep.results(plan).value.tolist(), toy.predictions(plan[1])["test"].tolist()
([0.5, 0.5], [1, 1, 1, 1])
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..files import replacing
from ..results import RunResult
from ..train.sweep import Sweep

__all__ = ["Experiment", "RunResult", "load_predictions", "predictions_path", "run_name", "save_predictions"]


def run_name(run: dict, keys) -> str:
    """A file name for ``run``: its ``keys``' values, in order, joined by ``__`` (all but ``A-Za-z0-9.=-`` made ``_``).

    Example:
        >>> run_name({"setting": "multi k/1", "task": "a+b", "seed": 0}, ("setting", "task", "seed"))
        'multi_k_1__a_b__0'
    """
    return "__".join(re.sub(r"[^A-Za-z0-9.=-]+", "_", str(run[k])).strip("_") for k in keys)


def predictions_path(out, run: dict, keys) -> Path:
    """Where a run's predictions are saved: ``out/predictions/<run_name>.npz``."""
    return Path(out) / "predictions" / f"{run_name(run, keys)}.npz"


def save_predictions(out, run: dict, keys, arrays: dict) -> Path:
    """Save ``run``'s ``arrays`` (``{"test": logits}``) to :func:`predictions_path` (returned), whole or not at all."""
    path = predictions_path(out, run, keys)
    with replacing(path) as tmp:
        np.savez_compressed(tmp, **{k: np.asarray(v) for k, v in arrays.items()})
    return path


def load_predictions(out, run: dict, keys) -> dict:
    """The arrays :func:`save_predictions` saved for ``run``; FileNotFoundError (delete its rows and rerun) if gone."""
    path = predictions_path(out, run, keys)
    if not path.exists():
        raise FileNotFoundError(
            f"No predictions for run {run_name(run, keys)} in {path.parent}: the run's scores are in results.csv but "
            "its predictions file is gone. Delete its rows from results.csv (or the file) and rerun."
        )
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


class Experiment:
    """One paper's runs: :meth:`plan`, :meth:`run_one`, :meth:`record`; its sweep writes ``out/results.csv``.

    Subclasses set ``KEYS`` (settings that name a run), maybe ``GROUP`` (a key whose runs differ in cost per step: the
    ETA fits each alone), and implement :meth:`plan`, :meth:`run_one`. ``config`` (non-key settings) is fingerprinted on
    every row, so another configuration's runs never mix in; ``log`` takes the sweep's lines (:class:`kit.train.Sweep`).
    """

    KEYS: tuple = ()
    GROUP: str | None = None

    def __init__(self, out, config: dict, log=print):
        self.out = Path(out)
        self.sweep = Sweep(self.out / "results.csv", keys=self.KEYS, config=config, log=log, group=self.GROUP)

    def plan(self) -> list[dict]:
        """Every run, a dict of its keys, its settings and the optimizer ``steps`` it plans (the ETA reads them)."""
        raise NotImplementedError

    def run_one(self, run: dict) -> RunResult:
        """Train and score ``run`` (a row of :meth:`plan`), seeded by its ``seed``."""
        raise NotImplementedError

    def keep(self, run: dict, result: RunResult) -> None:
        """What the paper keeps of a run besides its scores and predictions (the best model so far); nothing here."""

    def record(self, run: dict, result: RunResult, seconds: float | None = None) -> None:
        """Save ``result``'s predictions, :meth:`keep`, then write its scores (last: a scored run has its predictions).

        ``seconds``: a run's time when made outside ``sweep.pending`` (by hand), for the ETA.
        """
        if result.predictions:
            save_predictions(self.out, run, self.KEYS, result.predictions)
        self.keep(run, result)
        self.sweep.record(run, result, seconds=seconds)

    def predictions(self, run: dict) -> dict:
        """The predictions :meth:`record` saved for ``run`` (:func:`load_predictions`)."""
        return load_predictions(self.out, run, self.KEYS)
