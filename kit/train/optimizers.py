"""AdamW the way BERT fine-tuning uses it: no weight decay on biases and LayerNorm.

One factory for every recipe of the kit (TLM's stage 1, further pretraining,
stack-and-finetune's BERT-Adam; :class:`kit.train.LayerwiseAdamW` applies the
same rule per variable). A variable whose path contains one of ``no_decay``
gets no weight decay; ``no_decay=()`` decays every variable (the
pretrain-or-not transformer recipe of :func:`kit.train.fit_classifier`).

>>> opt = adamw(1e-3, weight_decay=0.01, global_clipnorm=1.0)
>>> type(opt).__name__, opt.global_clipnorm
('AdamW', 1.0)
"""

from __future__ import annotations

import keras

#: Variables whose path contains one of these get no weight decay (BERT's biases and LayerNorm gamma/beta).
NO_DECAY_NAMES = ("bias", "gamma", "beta")


def adamw(learning_rate, weight_decay: float = 0.01, global_clipnorm: float | None = None,
          no_decay=NO_DECAY_NAMES) -> keras.optimizers.AdamW:
    """``keras.optimizers.AdamW`` with ``no_decay`` variables excluded from weight decay."""
    optimizer = keras.optimizers.AdamW(learning_rate, weight_decay=weight_decay, global_clipnorm=global_clipnorm)
    if no_decay:
        optimizer.exclude_from_weight_decay(var_names=list(no_decay))
    return optimizer
