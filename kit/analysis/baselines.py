"""The constant guess: what a model that ignores its input scores, the floor every baseline must clear.

Always the **training** set's most frequent label (never the test set's), scored like a model: ``accuracy``;
``token_accuracy`` (tags flattened); ``macro_f1`` (the majority's F1, 0 for the other classes present, averaged);
``pearson``: 0 (undefined for a constant; what a model with no signal gets in expectation).

>>> import numpy as np
>>> constant_guess([0, 0, 1, 0], [1, 0, 0, 1])
0.5
>>> constant_guess([[0, 0, 1], [0, 2]], [[1, 0], [0, 0, 2]], metric="token_accuracy")
0.6
>>> constant_guess(np.array([0.5, 2.0]), np.array([1.0, 3.0]), metric="pearson")
0.0
"""

from __future__ import annotations

import numpy as np

METRICS = ("accuracy", "token_accuracy", "macro_f1", "pearson")


def majority_label(y_train) -> int:
    """Most frequent training label (class ids, or tag sequences flattened); ties: the smallest; ValueError if none."""
    flat = (
        np.concatenate([np.asarray(s).reshape(-1) for s in y_train])
        if _is_sequences(y_train)
        else np.asarray(y_train).reshape(-1)
    )
    if flat.size == 0:
        raise ValueError("No training labels: the constant guess needs the training set's labels.")
    return int(np.bincount(flat.astype("int64")).argmax())


def _is_sequences(y) -> bool:
    return len(y) > 0 and np.ndim(y[0]) > 0


def constant_guess(y_train, y_test, metric: str = "accuracy") -> float:
    """The test score of always predicting the training set's majority label (``pearson``: 0).

    ``metric``: one of :data:`METRICS` (module notes say how each is scored); ValueError: another, no training labels.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}.")
    if metric == "pearson":
        return 0.0
    guess = majority_label(y_train)
    if metric == "token_accuracy":
        flat = np.concatenate([np.asarray(s).reshape(-1) for s in y_test])
        return float(np.mean(flat == guess))
    y = np.asarray(y_test).reshape(-1)
    if metric == "accuracy":
        return float(np.mean(y == guess))
    classes = np.unique(np.concatenate([y, [guess]]))
    hit = float(np.sum(y == guess))
    f1 = 2 * hit / (hit + len(y)) if len(y) else 0.0  # precision hit/len(y), recall 1 (or 0 when absent)
    return float(f1 / len(classes))


def record_constant_guesses(sweep, guesses: dict, **keys) -> None:
    """Write each task's constant guess (``guesses``: task -> score) to ``sweep``'s ``results.csv``, rows of their own.

    Metric ``constant_guess``, ``task`` the task's name, other keys from ``keys`` (``"-"`` if not given), so a reader of
    the CSV alone sees each score's floor.

    Example:
        >>> import tempfile, pathlib
        >>> from kit.train import Sweep
        >>> sweep = Sweep(pathlib.Path(tempfile.mkdtemp()) / "results.csv", keys=["task", "model", "seed"], log=None)
        >>> record_constant_guesses(sweep, {"sst": 0.52, "sts": 0.0}, model="constant guess", seed=0)
        >>> sweep.results()[["task", "model", "metric", "value"]].values.tolist()
        [['sst', 'constant guess', 'constant_guess', 0.52], ['sts', 'constant guess', 'constant_guess', 0.0]]
    """
    for task, value in guesses.items():
        run = {k: keys.get(k, "-") for k in sweep.keys}
        run["task"] = task
        sweep.record(run, {"constant_guess": float(value)})
