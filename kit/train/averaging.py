"""Prediction averaging: the ensemble of Experiment B (DenseNet + highway-LSTM heads), in NumPy.

Each model's logits are turned into probabilities (softmax) and averaged,
optionally weighted; ``space="logits"`` averages the raw logits instead, and a
single-output model (regression) is always averaged as is.

>>> import numpy as np
>>> a = np.array([[2.0, 0.0]]); b = np.array([[0.0, 1.0]])
>>> average_predictions([a, b]).round(3).tolist()
[[0.575, 0.425]]
>>> average_predictions([a, b], weights=[0, 1]).argmax(-1).tolist()
[1]
"""

from __future__ import annotations

import numpy as np

SPACES = ("probs", "logits")


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def average_predictions(outputs, weights=None, space: str = "probs") -> np.ndarray:
    """Weighted mean of several models' outputs (same shape): probabilities by default."""
    if space not in SPACES:
        raise ValueError(f"space must be one of {SPACES}, got {space!r}.")
    arrays = [np.asarray(o, dtype="float64") for o in outputs]
    if not arrays:
        raise ValueError("Nothing to average: pass at least one model's outputs.")
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"All outputs must have the same shape to be averaged; got {sorted(shapes)}.")
    w = np.ones(len(arrays)) if weights is None else np.asarray(weights, dtype="float64")
    if w.shape != (len(arrays),) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"weights must be {len(arrays)} non-negative numbers with a positive sum; got {weights}.")
    if space == "probs" and arrays[0].shape[-1] > 1:
        arrays = [_softmax(a) for a in arrays]
    return np.tensordot(w / w.sum(), np.stack(arrays), axes=1)


def predict_average(models, x, weights=None, space: str = "probs", batch_size: int = 128) -> np.ndarray:
    """Run each Keras model on ``x`` and average (see :func:`average_predictions`)."""
    return average_predictions([m.predict(x, batch_size=batch_size, verbose=0) for m in models], weights, space)
