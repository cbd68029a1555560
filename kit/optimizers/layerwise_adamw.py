"""AdamW with a fixed learning-rate factor per variable: the optimizer behind layer-wise learning-rate decay.

:func:`kit.train.llrd_optimizer` computes the factors; it lives below ``kit.models`` so that
:func:`kit.models.load_bundle` can register ``kit>LayerwiseAdamW``.

>>> opt = LayerwiseAdamW({"dense/kernel": 0.5}, learning_rate=1e-3)
>>> opt.multipliers, opt.default_multiplier
({'dense/kernel': 0.5}, 1.0)
"""

from __future__ import annotations

import keras
from keras import ops

from .adamw import NO_DECAY_NAMES, AdamW


@keras.saving.register_keras_serializable(package="kit")
class LayerwiseAdamW(AdamW):
    """AdamW (fused on torch) whose learning rate and weight decay step are multiplied per variable.

    Args:
        multipliers: ``{variable path: multiplier}``. 0 freezes a variable (no update, no decay; its gradient is still
            computed: set ``trainable=False`` where compute matters).
        default_multiplier: for variables not listed (the heads).
        no_decay_names: variables whose path contains one of these get no weight decay.
        **kwargs: AdamW's arguments (``learning_rate``, ``weight_decay``, ``global_clipnorm``, ...).
    """

    def __init__(
        self, multipliers: dict | None = None, default_multiplier: float = 1.0, no_decay_names=NO_DECAY_NAMES, **kwargs
    ):
        super().__init__(no_decay_names=no_decay_names, **kwargs)
        self.multipliers = {str(k): float(v) for k, v in (multipliers or {}).items()}
        self.default_multiplier = float(default_multiplier)
        self.rate_table = None  # set by llrd_optimizer (not saved: after loading, use rate_table(model, ...))

    def build(self, var_list):
        super().build(var_list)
        if self.multipliers and not any(v.path in self.multipliers for v in var_list):
            raise ValueError(
                "LayerwiseAdamW: none of the model's variables has a listed multiplier: this optimizer "
                "was made for another model. Call llrd_optimizer(model, backbone, ...) for this one."
            )
        self._scale = [self.multipliers.get(v.path, self.default_multiplier) for v in var_list]

    def rate_multiplier(self, variable) -> float:
        """``variable``'s factor from ``multipliers`` (after ``build``), else ``default_multiplier``."""
        return self._scale[self._get_variable_index(variable)]

    def update_step(self, gradient, variable, learning_rate):
        m = self.rate_multiplier(variable)
        if m == 0.0:
            return
        super().update_step(gradient, variable, learning_rate * m if m != 1.0 else learning_rate)

    def _apply_weight_decay(self, variables):
        if self.weight_decay is None or self._fused():  # the fused update decays (at the multiplied rate) itself
            return
        for variable in variables:
            m = self.rate_multiplier(variable)
            if m == 0.0 or not self._use_weight_decay(variable):
                continue
            lr = ops.cast(self.learning_rate, variable.dtype) * m
            variable.assign(variable - variable * ops.cast(self.weight_decay, variable.dtype) * lr)

    def get_config(self):
        config = super().get_config()
        config.update({"multipliers": dict(self.multipliers), "default_multiplier": self.default_multiplier})
        return config
