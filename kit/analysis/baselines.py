"""The constant guess: what a model that ignores its input scores, the floor every baseline must clear.

One definition for every notebook: always predict the **training** set's most
frequent label (never the test set's), then score it like a model.

- ``accuracy``: the share of test labels equal to the training majority class;
- ``token_accuracy``: the share of test words whose tag is the training set's
  most frequent tag (sequences of tags, flattened);
- ``macro_f1``: the macro-F1 of that constant prediction (F1 of the majority class, 0 for the others, averaged
  over the classes present);
- ``pearson`` (regression): 0, since a constant prediction has no correlation with anything (its Pearson
  correlation is undefined; 0 is the score a model with no signal gets in expectation).

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
    """The most frequent label of the training labels (class ids, or tag sequences flattened); ties: the smallest.

    Args:
        y_train: the training labels: class ids, or sequences of tag ids.

    Returns:
        The majority label's id.

    Raises:
        ValueError: there are no training labels.
    """
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

    Args:
        y_train: the training labels (class ids, or tag sequences); their majority label is the guess, never the
            test set's.
        y_test: the test labels the guess is scored on (tag sequences for ``token_accuracy``).
        metric: ``"accuracy"``, ``"token_accuracy"``, ``"macro_f1"`` or ``"pearson"`` (the module's notes say how
            each is scored).

    Returns:
        The constant guess's score.

    Raises:
        ValueError: an unknown ``metric``, or no training labels.
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
    """Write each task's constant guess to ``sweep``'s ``results.csv`` as rows of their own.

    Each row has metric ``constant_guess``, ``task`` the run rows' task name, and the sweep's other keys from
    ``keys``. A reader of the CSV alone can then set every score beside the floor it must clear.

    Args:
        sweep: the :class:`kit.train.Sweep` whose ``results.csv`` gets the rows.
        guesses: task name -> its constant guess (:func:`constant_guess`).
        **keys: the rows' other keys, e.g. ``experiment="constant guess"``; keys not given are written as ``"-"``.

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
