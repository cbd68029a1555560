"""Scores by kind of task: accuracy for classes, Pearson correlation for a regression score.

Classes come as softmax logits, or one logit for a binary task; SerBERTus scores SST-5 and QQP by accuracy, STS-B by
Pearson. :class:`Pearson` merges batches' weighted moments (Chan et al.'s parallel update): an epoch's value is over all
examples, not a mean of batches' (``keras.metrics.PearsonCorrelation`` correlates along each row's features); weight-0
examples (an inactive task's rows) are ignored. :func:`task_predictions` gives the unrounded predictions ensembles
average; :func:`task_score` scores them.

>>> import numpy as np
>>> m = Pearson()
>>> m.update_state(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
>>> m.update_state(np.array([3.0, 4.0]), np.array([2.9, 4.2]))
>>> round(float(m.result()), 4) == round(float(np.corrcoef([1, 2, 3, 4], [1, 2.5, 2.9, 4.2])[0, 1]), 4)
True
>>> round(task_score("regression", [1, 2, 3, 4], [1, 2.5, 2.9, 4.2]), 4)
0.9796
>>> task_score("classification", [0, 2], task_predictions("classification", np.array([[3.0, 0, 0], [0, 0, 1.0]])))
1.0
"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

TASK_KINDS = ("classification", "binary", "regression")


def check_kind(kind: str, task: str = "") -> str:
    """``kind`` if it is one of :data:`TASK_KINDS`, else a ValueError that names ``task`` and the kinds."""
    if kind not in TASK_KINDS:
        where = f" for task {task!r}" if task else ""
        raise ValueError(
            f"Unknown task kind {kind!r}{where}: use 'classification' (softmax logits, accuracy), "
            "'binary' (one logit, accuracy) or 'regression' (one score, Pearson)."
        )
    return kind


@keras.saving.register_keras_serializable(package="kit")
class Pearson(keras.metrics.Metric):
    """Pearson correlation between ``y_true`` and ``y_pred`` (flattened) over every example seen.

    Batches merge as the module says; sample weight 0 is ignored; 0.0 while either side is constant; statistics in
    float32.
    """

    def __init__(self, name="pearson", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._stats = [
            self.add_variable(shape=(), initializer="zeros", name=n, dtype="float32")
            for n in ("n", "mean_x", "mean_y", "m2_x", "m2_y", "c_xy")
        ]

    def update_state(self, y_true, y_pred, sample_weight=None):
        x = ops.reshape(ops.cast(y_pred, "float32"), (-1,))
        y = ops.reshape(ops.cast(y_true, "float32"), (-1,))
        w = ops.ones_like(x) if sample_weight is None else ops.reshape(ops.cast(sample_weight, "float32"), (-1,))
        n, mx, my, m2x, m2y, cxy = [v.value for v in self._stats]
        nb = ops.sum(w)
        safe_nb = ops.maximum(nb, 1e-12)
        bx, by = ops.sum(w * x) / safe_nb, ops.sum(w * y) / safe_nb
        dx, dy = x - bx, y - by
        n_new = n + nb
        f = n * nb / ops.maximum(n_new, 1e-12)
        delta_x, delta_y = bx - mx, by - my
        share = nb / ops.maximum(n_new, 1e-12)
        new = (
            n_new,
            mx + delta_x * share,
            my + delta_y * share,
            m2x + ops.sum(w * dx * dx) + delta_x * delta_x * f,
            m2y + ops.sum(w * dy * dy) + delta_y * delta_y * f,
            cxy + ops.sum(w * dx * dy) + delta_x * delta_y * f,
        )
        for var, value in zip(self._stats, new):
            var.assign(value)

    def result(self):
        _, _, _, m2x, m2y, cxy = self._stats
        denom = ops.sqrt(m2x * m2y)
        return ops.where(denom > 0, cxy / ops.maximum(denom, 1e-30), 0.0)

    def reset_state(self):
        for var in self._stats:
            var.assign(0.0)


def task_predictions(kind: str, logits) -> np.ndarray:
    """Unrounded predictions from logits, what ensembles average: float64 probabilities (N, C), P(positive), or scores.

    ``logits``: (N, C) for classification, (N,) or (N, 1) otherwise. ValueError: ``kind`` is not in :data:`TASK_KINDS`.
    """
    check_kind(kind)
    z = np.asarray(logits, dtype="float64")
    if kind == "classification":
        z = z - z.max(-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(-1, keepdims=True)
    z = z.reshape(len(z), -1)[:, 0] if z.ndim > 1 else z
    return 1.0 / (1.0 + np.exp(-z)) if kind == "binary" else z


def task_score(kind: str, y_true, predictions) -> float:
    """Accuracy (classification: argmax; binary: P >= 0.5) or Pearson correlation (regression; 0.0 if constant).

    ``predictions``: :func:`task_predictions`' (or an average). ValueError: an unknown kind, no examples, or predictions
    of the wrong shape or number.
    """
    check_kind(kind)
    y = np.asarray(y_true).reshape(-1)
    p = np.asarray(predictions, dtype="float64")
    if len(y) == 0:
        raise ValueError("task_score got no examples.")
    if kind == "classification":
        if p.ndim != 2:
            raise ValueError(f"classification predictions must be (examples, classes), got shape {p.shape}.")
        return float((p.argmax(-1) == y).mean())
    p = p.reshape(len(y), -1)[:, 0] if p.ndim > 1 else p
    if len(p) != len(y):
        raise ValueError(f"{len(p)} predictions for {len(y)} labels.")
    if kind == "binary":
        return float(((p >= 0.5).astype(int) == y.astype(int)).mean())
    if np.std(p) == 0 or np.std(y) == 0:
        return 0.0
    return float(np.corrcoef(p, y.astype("float64"))[0, 1])
