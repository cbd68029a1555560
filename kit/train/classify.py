"""Train a classifier the papers' way: fixed recipe, early stopping on dev accuracy, best weights kept.

Two recipes from *To Pretrain or Not to Pretrain*:

- ``schedule="constant"``: Adam at a constant learning rate (the paper's LSTMs,
  batch 64, LR in {2.5e-4, 5e-4, 7.5e-4, 1e-3});
- ``schedule="linear"``: AdamW with the learning rate decayed linearly to 0
  (the paper's transformer: batch 32, dropout 0.1).

Tiny training sets are repeated so every run takes at least ``min_steps``
optimizer steps (otherwise 1% of a small set is one or two updates).

>>> import keras, numpy as np
>>> m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
>>> x, y = np.eye(3, dtype="float32")[[0, 1, 2, 0]], np.array([0, 1, 1, 0])
>>> r = fit_classifier(m, x, y, x, y, learning_rate=0.1, epochs=3, batch_size=2)
>>> 0.0 <= r.best_dev_accuracy <= 1.0
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import keras
import numpy as np


@dataclass
class FitResult:
    history: dict
    best_epoch: int
    best_dev_accuracy: float
    steps: int
    seconds: float


def _take(x, idx):
    if isinstance(x, dict):
        return {k: v[idx] for k, v in x.items()}
    return x[idx]


def _len(x) -> int:
    return len(next(iter(x.values()))) if isinstance(x, dict) else len(x)


def fit_classifier(model: keras.Model, x_train, y_train, x_dev, y_dev, *, learning_rate: float,
                   epochs: int, batch_size: int, schedule: str = "constant", weight_decay: float = 0.01,
                   min_steps: int = 0, patience: int | None = None, verbose: int = 0,
                   seed: int = 0) -> FitResult:
    """Compile ``model`` (logits out) and fit it; keep the weights of the best dev-accuracy epoch."""
    n = _len(x_train)
    if n == 0:
        raise ValueError("The training split is empty: nothing to fit. Check the data fraction.")
    if _len(x_dev) == 0:
        raise ValueError("The dev split is empty: early stopping needs dev examples.")
    if schedule not in ("constant", "linear"):
        raise ValueError(f"schedule must be 'constant' or 'linear', got {schedule!r}.")
    reps = max(1, math.ceil(min_steps * batch_size / (epochs * n))) if min_steps else 1
    if reps > 1:  # repeat a tiny set (shuffled) so the run gets enough updates
        idx = np.random.default_rng(seed).permutation(np.tile(np.arange(n), reps))
        x_train, y_train = _take(x_train, idx), np.asarray(y_train)[idx]
    steps = epochs * math.ceil(_len(x_train) / batch_size)
    if schedule == "linear":
        lr = keras.optimizers.schedules.PolynomialDecay(learning_rate, decay_steps=steps, end_learning_rate=0.0)
        optimizer = keras.optimizers.AdamW(lr, weight_decay=weight_decay)
    else:
        optimizer = keras.optimizers.Adam(learning_rate)
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    stop = keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max", patience=patience or epochs,
                                         restore_best_weights=True)
    t = time.perf_counter()
    hist = model.fit(x_train, np.asarray(y_train), validation_data=(x_dev, np.asarray(y_dev)), epochs=epochs,
                     batch_size=batch_size, callbacks=[stop], verbose=verbose, shuffle=True)
    seconds = time.perf_counter() - t
    best = int(np.argmax(hist.history["val_accuracy"]))
    return FitResult(hist.history, best, float(hist.history["val_accuracy"][best]), steps, seconds)


def accuracy(model: keras.Model, x, y, batch_size: int = 128) -> float:
    """Share of ``y`` that ``model``'s argmax logits get right."""
    logits = model.predict(x, batch_size=batch_size, verbose=0)
    return float((np.argmax(logits, axis=-1) == np.asarray(y)).mean())
