"""Optimizers and learning-rate schedules a saved model may name: AdamW (fused on torch), layer-wise AdamW, warm-ups.

Keras-only, so :mod:`kit.models` (``load_bundle``) can import them.

>>> from kit.optimizers import adamw, schedules
>>> type(adamw(1e-3)).__name__, type(schedules.linear(1e-3, 10, warmup_steps=2)).__name__
('AdamW', 'WarmupLinearDecay')
"""

from . import schedules
from .adamw import NO_DECAY_NAMES, AdamW, adamw, fused_available
from .layerwise_adamw import LayerwiseAdamW

__all__ = ["NO_DECAY_NAMES", "AdamW", "LayerwiseAdamW", "adamw", "fused_available", "schedules"]
