"""The contract the four papers share: an experiment plans its runs, runs one, and records what it produced.

Each paper's ``<paper>_runs.Experiment`` subclasses :class:`Experiment`: it names its run ``KEYS``, builds the
``plan()``, and trains one run in ``run_one(run)``, which returns a :class:`kit.results.RunResult` (metrics, what
the run actually trained, predictions, the model). :meth:`Experiment.record` saves the predictions (one way for
every paper: ``predictions/<run>.npz``, whole or not at all), lets the paper keep what else it wants
(:meth:`Experiment.keep`: the best model, curves), then writes the scores to the sweep's ``results.csv``. So every
paper notebook's long cell reads the same::

    for run in sweep.pending(plan):
        experiment.record(run, experiment.run_one(run))

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
    """A file name for a run: its keys' values joined by ``__`` (other characters than ``A-Za-z0-9.=-`` made ``_``).

    Args:
        run: the run's settings.
        keys: which keys name it, in order.

    Example:
        >>> run_name({"setting": "multi k/1", "task": "a+b", "seed": 0}, ("setting", "task", "seed"))
        'multi_k_1__a_b__0'
    """
    return "__".join(re.sub(r"[^A-Za-z0-9.=-]+", "_", str(run[k])).strip("_") for k in keys)


def predictions_path(out, run: dict, keys) -> Path:
    """Where a run's predictions are saved: ``out/predictions/<run_name>.npz``."""
    return Path(out) / "predictions" / f"{run_name(run, keys)}.npz"


def save_predictions(out, run: dict, keys, arrays: dict) -> Path:
    """Save ``arrays`` (name -> array) of ``run`` to :func:`predictions_path`, whole or not at all.

    Args:
        out: the notebook's output folder.
        run: the run's settings.
        keys: the keys that name it.
        arrays: the predictions, e.g. ``{"test": logits}`` or ``{"dev__sst": ..., "test__sst": ...}``.

    Returns:
        The file's path.
    """
    path = predictions_path(out, run, keys)
    with replacing(path) as tmp:
        np.savez_compressed(tmp, **{k: np.asarray(v) for k, v in arrays.items()})
    return path


def load_predictions(out, run: dict, keys) -> dict:
    """The arrays :func:`save_predictions` saved for ``run``.

    Raises:
        FileNotFoundError: no predictions for that run (its scores are in ``results.csv`` but its file is gone:
            delete those rows, or the CSV, and rerun).
    """
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

    Subclasses set ``KEYS`` (the settings that name a run), optionally ``GROUP`` (a key whose runs differ in cost
    per step: the ETA fits each alone), and implement :meth:`plan` and :meth:`run_one`; :meth:`keep` is theirs to
    override.

    Args:
        out: the notebook's output folder.
        config: the settings that are not keys (the scale's sizes, the data's sizes, the precision): their
            fingerprint marks every row, so another configuration's runs in the same folder are never mixed in.
        log: where the sweep's plan and progress lines go (:class:`kit.train.Sweep`; ``print`` by default).
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
        """Save ``result``'s predictions, keep what the paper keeps, then write its scores to ``results.csv``.

        The scores go last: a run in ``results.csv`` always has its predictions on disk, and a run stopped before
        its scores landed is run again.

        Args:
            run: the run's row of :meth:`plan`.
            result: what :meth:`run_one` returned.
            seconds: for a run made outside ``sweep.pending`` (one run by hand): how long it took (the ETA).
        """
        if result.predictions:
            save_predictions(self.out, run, self.KEYS, result.predictions)
        self.keep(run, result)
        self.sweep.record(run, result, seconds=seconds)

    def predictions(self, run: dict) -> dict:
        """The predictions :meth:`record` saved for ``run`` (:func:`load_predictions`)."""
        return load_predictions(self.out, run, self.KEYS)
