"""Losses and scores over labelled tokens only: a token whose label is ``IGNORE`` (-100) is skipped.

A tagger labels a word's first WordPiece, leaving sub-tokens, ``[CLS]``, ``[SEP]`` and padding at ``IGNORE``
(:func:`kit.text.align_labels`); an MLM is scored at its masked positions (:func:`masked_token_scores`, used by
:func:`kit.train.evaluate_mlm`).

>>> loss = MaskedSparseCategoricalCrossentropy()
>>> y = np.array([[IGNORE, 1, IGNORE]]); logits = np.zeros((1, 3, 2), "float32")
>>> round(float(loss(y, logits)), 4)   # log(2): only the one labelled token counts
0.6931
"""

from __future__ import annotations

import keras
import numpy as np
from keras import ops

from ..text.alignment import IGNORE


@keras.saving.register_keras_serializable(package="kit")
class MaskedSparseCategoricalCrossentropy(keras.losses.Loss):
    """Token cross-entropy (``from_logits``, else probabilities) over labelled tokens (``ignore_index`` skipped).

    Default reduction: the mean over the batch's labelled tokens, each counted once whatever its sentence's length.
    """

    def __init__(
        self,
        ignore_index: int = IGNORE,
        from_logits: bool = True,
        name: str = "masked_sparse_categorical_crossentropy",
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        self.ignore_index, self.from_logits = int(ignore_index), from_logits

    def call(self, y_true, y_pred):
        y_true = ops.cast(y_true, "int32")
        keep = ops.not_equal(y_true, self.ignore_index)
        safe = ops.where(keep, y_true, ops.zeros_like(y_true))
        ce = ops.sparse_categorical_crossentropy(safe, y_pred, from_logits=self.from_logits)
        m = ops.cast(keep, ce.dtype)
        size = ops.cast(ops.size(m), ce.dtype)
        return ce * m * (size / ops.maximum(ops.sum(m), ops.cast(1.0, ce.dtype)))

    def get_config(self):
        config = super().get_config()
        config.update({"ignore_index": self.ignore_index, "from_logits": self.from_logits})
        return config


@keras.saving.register_keras_serializable(package="kit")
class MaskedAccuracy(keras.metrics.Metric):
    """Share of labelled tokens (label != ``ignore_index``) whose argmax is right; a sample weight scales its row.

    Example:
        >>> m = MaskedAccuracy()
        >>> m.update_state(np.array([[1, IGNORE, 0]]), np.array([[[0., 1.], [1., 0.], [0., 1.]]]))
        >>> float(m.result())
        0.5
    """

    def __init__(self, ignore_index: int = IGNORE, name: str = "masked_accuracy", **kwargs):
        super().__init__(name=name, **kwargs)
        self.ignore_index = int(ignore_index)
        self.correct = self.add_variable(shape=(), initializer="zeros", name="correct", dtype="float32")
        self.count = self.add_variable(shape=(), initializer="zeros", name="count", dtype="float32")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(y_true, "int32")
        keep = ops.cast(ops.not_equal(y_true, self.ignore_index), "float32")
        if sample_weight is not None:
            sw = ops.cast(sample_weight, "float32")
            keep = keep * (ops.reshape(sw, ops.shape(sw) + (1,) * (len(keep.shape) - len(sw.shape))))
        hit = ops.cast(ops.equal(ops.cast(ops.argmax(y_pred, axis=-1), "int32"), y_true), "float32")
        self.correct.assign_add(ops.sum(hit * keep))
        self.count.assign_add(ops.sum(keep))

    def result(self):
        return ops.divide_no_nan(self.correct, self.count)

    def reset_state(self):
        self.correct.assign(0.0)
        self.count.assign(0.0)

    def get_config(self):
        return {**super().get_config(), "ignore_index": self.ignore_index}


def masked_token_scores(logits, targets, weights) -> dict:
    """Correct count and summed negative log-likelihood (nats) of an MLM at masked positions: sums, so batches add.

    ``logits`` ``(B, P, V)`` at the masked positions; ``targets`` ``(B, P)`` original ids; ``weights`` ``(B, P)``,
    positive where scored (the rest padding slots). Returns ``{"correct": int, "nll": float, "count": int}``.

    Example:
        >>> logits = np.log(np.array([[[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]]]))
        >>> s = masked_token_scores(logits, np.array([[0, 0]]), np.array([[1.0, 0.0]]))
        >>> s["correct"], round(s["nll"], 4), s["count"]
        (1, 0.6931, 1)
    """
    logits = np.asarray(logits, "float32")
    w = np.asarray(weights) > 0
    target = np.asarray(targets).astype("int64")
    top = logits.max(-1, keepdims=True)
    logz = np.log(np.exp(logits - top).sum(-1)) + top[..., 0]
    target_logit = np.take_along_axis(logits, target[..., None], -1)[..., 0]
    return {
        "correct": int((logits.argmax(-1) == target)[w].sum()),
        "nll": float((logz - target_logit)[w].astype("float64").sum()),
        "count": int(w.sum()),
    }
