"""Learning-rate schedules, one per recipe of the four papers: warm-up + linear or cosine decay, constant.

``linear``: BERT-Adam (stack-and-finetune; without warm-up, pretrain-or-not's transformer); ``cosine``: SerBERTus, and
with ``start="zero"`` TLM stage 1 and further MLM; ``constant``: the LSTMs. Warm-up step ``i`` gets
``rate·(i+1)/warmup_steps`` with ``start="ramp"`` (BERT: step 0 learns), ``rate·i/warmup_steps`` with ``"zero"``.

>>> [round(float(linear(1.0, 10)(i)), 3) for i in (0, 5, 10)]
[1.0, 0.5, 0.0]
>>> [round(float(linear(1.0, 10, warmup_steps=2)(i)), 3) for i in (0, 1, 2, 6, 10)]
[0.5, 1.0, 1.0, 0.5, 0.0]
>>> [round(float(cosine(1.0, 10, warmup_steps=2)(i)), 3) for i in (0, 1, 2, 6, 10)]
[0.5, 1.0, 1.0, 0.5, 0.0]
>>> [round(float(cosine(1.0, 12, warmup_steps=2, start="zero")(i)), 3) for i in (0, 1, 2, 7, 12)]
[0.0, 0.5, 1.0, 0.5, 0.0]
"""

from __future__ import annotations

import math

import keras

STARTS = ("ramp", "zero")


@keras.saving.register_keras_serializable(package="kit")
class WarmupLinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    """BERT's schedule: linear warm-up to ``peak``, then linear decay to 0 at ``total_steps``.

    Warm-up step ``i`` gets ``peak·(i+1)/warmup_steps`` (``start="ramp"``); ``warmup_steps`` is capped at
    ``total_steps``.

    Example:
        >>> s = WarmupLinearDecay(1e-3, total_steps=10, warmup_steps=2)
        >>> [round(float(s(i)), 6) for i in (0, 1, 2, 6, 10)]
        [0.0005, 0.001, 0.001, 0.0005, 0.0]
    """

    def __init__(self, peak: float, total_steps: int, warmup_steps: int = 0):
        super().__init__()
        self.peak, self.total_steps = float(peak), int(total_steps)
        self.warmup_steps = min(int(warmup_steps), self.total_steps)

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = float(max(self.warmup_steps, 1))
        up = self.peak * (step + 1.0) / warm
        down = self.peak * keras.ops.maximum(
            0.0, (self.total_steps - step) / float(max(self.total_steps - self.warmup_steps, 1))
        )
        return keras.ops.where(step < self.warmup_steps, up, down)

    def get_config(self):
        return {"peak": self.peak, "total_steps": self.total_steps, "warmup_steps": self.warmup_steps}


@keras.saving.register_keras_serializable(package="kit")
class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    """Warm-up (step ``i``: ``rate·(i+1)/warmup_steps``), then cosine decay to 0 at ``total_steps``.

    ``total_steps`` is raised to 1 if lower; ``warmup_steps`` clipped to ``[0, total_steps]``.

    Example:
        >>> s = WarmupCosine(1.0, total_steps=10, warmup_steps=2)
        >>> [round(float(s(i)), 3) for i in (0, 1, 2, 6, 10)]
        [0.5, 1.0, 1.0, 0.5, 0.0]
    """

    def __init__(self, learning_rate: float, total_steps: int, warmup_steps: int = 0):
        self.learning_rate = float(learning_rate)
        self.total_steps = max(1, int(total_steps))
        self.warmup_steps = max(0, min(int(warmup_steps), self.total_steps))

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        warm = float(max(1, self.warmup_steps))
        rising = self.learning_rate * keras.ops.minimum(1.0, (step + 1.0) / warm)
        span = float(max(1, self.total_steps - self.warmup_steps))
        t = keras.ops.clip((step - float(self.warmup_steps)) / span, 0.0, 1.0)
        falling = self.learning_rate * 0.5 * (1.0 + keras.ops.cos(math.pi * t))
        return keras.ops.where(step < float(self.warmup_steps), rising, falling)

    def get_config(self):
        return {"learning_rate": self.learning_rate, "total_steps": self.total_steps, "warmup_steps": self.warmup_steps}


def _check(total_steps: int, warmup_steps: int, start: str) -> None:
    if start not in STARTS:
        raise ValueError(f"start must be one of {STARTS} (where the warm-up starts at step 0), got {start!r}.")
    if total_steps < 1 or warmup_steps < 0:
        raise ValueError(f"total_steps must be >= 1 and warmup_steps >= 0, got {total_steps}, {warmup_steps}.")


def linear(rate: float, total_steps: int, warmup_steps: int = 0):
    """Warm-up (``"ramp"``) to ``rate``, then linear decay to 0 at ``total_steps``.

    Without a warm-up: Keras' ``PolynomialDecay`` to 0 (pretrain-or-not's transformer).

    Raises:
        ValueError: ``total_steps`` is below 1 or ``warmup_steps`` below 0.
    """
    _check(total_steps, warmup_steps, "ramp")
    if not warmup_steps:
        return keras.optimizers.schedules.PolynomialDecay(rate, decay_steps=total_steps, end_learning_rate=0.0)
    return WarmupLinearDecay(rate, total_steps, warmup_steps)


def cosine(rate: float, total_steps: int, warmup_steps: int = 0, start: str = "ramp"):
    """Warm-up over ``warmup_steps`` to ``rate``, then cosine decay to 0 at ``total_steps``.

    ``start="ramp"``: :class:`WarmupCosine`; ``"zero"``: Keras' ``CosineDecay`` (from 0, then
    ``total_steps - warmup_steps`` decay steps).

    Raises:
        ValueError: ``start`` is unknown, ``total_steps`` is below 1 or ``warmup_steps`` below 0.
    """
    _check(total_steps, warmup_steps, start)
    if start == "ramp":
        return WarmupCosine(rate, total_steps, warmup_steps)
    return keras.optimizers.schedules.CosineDecay(
        0.0 if warmup_steps else rate,
        decay_steps=max(1, total_steps - warmup_steps),
        alpha=0.0,
        warmup_target=rate if warmup_steps else None,
        warmup_steps=warmup_steps,
    )


def constant(rate: float, warmup_steps: int = 0):
    """``rate`` as a float, or a Keras schedule warming up from 0 over ``warmup_steps`` when there is a warm-up.

    Example:
        >>> constant(1e-3)
        0.001
        >>> [round(float(constant(1.0, warmup_steps=4)(i)), 2) for i in (0, 2, 4, 1000)]
        [0.0, 0.5, 1.0, 1.0]
    """
    if not warmup_steps:
        return float(rate)
    return keras.optimizers.schedules.CosineDecay(
        0.0, decay_steps=10**12, alpha=1.0, warmup_target=rate, warmup_steps=warmup_steps
    )
