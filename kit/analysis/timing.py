"""Inference time per batch, reported with everything that makes it comparable.

>>> import keras, numpy as np
>>> model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
>>> row = time_inference(model, np.zeros((8, 4), "float32"), repeats=3)
>>> sorted(row)[:4]
['backend', 'batch_size', 'compiled', 'device']
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from ..devices import describe_devices


def _batch_and_length(inputs):
    first = next(iter(inputs.values())) if isinstance(inputs, dict) else inputs
    shape = np.shape(first)
    return int(shape[0]), (int(shape[1]) if len(shape) > 1 else None)


def time_inference(
    model, inputs, repeats: int = 5, warmup: int = 1, compiled: bool = True, name: str | None = None
) -> dict:
    """Median milliseconds per batch of ``model`` on ``inputs`` (one batch), after ``warmup`` untimed calls (compiling).

    ``inputs``: an array or dict of arrays (the first's shape gives batch size and sequence length). ``compiled``: time
    ``predict_on_batch`` (jit on jax and tensorflow), else an eager ``model(inputs, training=False)``. ValueError:
    ``repeats`` below 1. One row: ``model`` (``name`` or ``model.name``), ``backend``, ``device``, ``batch_size``,
    ``sequence_length``, ``compiled`` (True only on jax and tensorflow), ``median_ms``, ``min_ms``, ``max_ms``,
    ``repeats``.
    """
    import keras  # noqa: PLC0415 - kit.analysis imports without Keras (a light room)

    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    run = (
        (lambda: model.predict_on_batch(inputs))
        if compiled
        else (lambda: keras.ops.convert_to_numpy(model(inputs, training=False)))
    )
    for _ in range(max(warmup, 0)):
        run()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        run()
        times.append((time.perf_counter() - t) * 1000)
    batch, length = _batch_and_length(inputs)
    backend = keras.backend.backend()
    return {
        "model": name or model.name,
        "backend": backend,
        "device": describe_devices(),
        "batch_size": batch,
        "sequence_length": length,
        "compiled": bool(compiled and backend in ("jax", "tensorflow")),
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
        "repeats": repeats,
    }
