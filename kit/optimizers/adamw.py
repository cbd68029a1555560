"""AdamW the way BERT fine-tuning uses it: no weight decay on biases and LayerNorm; one fused update on torch.

One factory for every recipe of the kit (TLM's stage 1, further pretraining,
stack-and-finetune's BERT-Adam, the pretrain-or-not transformer;
:class:`kit.train.LayerwiseAdamW` applies the same rule per variable). A
variable whose path contains one of ``no_decay`` gets no weight decay;
``no_decay=()`` decays every variable.

:class:`AdamW` is Keras' AdamW, computed the same way. On the torch backend
Keras updates the weights with about ten whole-tensor passes a step (one per
arithmetic operation, several of them allocating a new tensor); for a small
batch on a CPU that costs as much as the forward pass (0.31 of 0.71 s a step
for MiniLM's bottom 3 layers at batch 16 x 32 tokens). There :class:`AdamW`
makes one pass with PyTorch's fused AdamW kernel (``torch._fused_adamw_``, what
``torch.optim.AdamW(fused=True)`` runs), with Keras' epsilon convention (Keras
adds epsilon to the uncorrected ``sqrt(v)``; the kernel's epsilon is scaled to
match), so the weights agree with Keras' AdamW to float rounding
(``tests/optimizers/test_adamw.py``). Where the kernel is missing it falls back to
Keras' own update; ``KIT_FUSED_ADAMW=0`` turns the fused path off.

>>> opt = adamw(1e-3, weight_decay=0.01, global_clipnorm=1.0)
>>> type(opt).__name__, opt.global_clipnorm, isinstance(opt, keras.optimizers.AdamW)
('AdamW', 1.0, True)
"""

from __future__ import annotations

import math
import os

import keras

#: Variables whose path contains one of these get no weight decay (BERT's biases and LayerNorm gamma/beta).
NO_DECAY_NAMES = ("bias", "gamma", "beta")
#: Set to 0 to update with Keras' own (unfused) AdamW on torch too.
FUSED_ENV = "KIT_FUSED_ADAMW"


def fused_available() -> bool:
    """Whether :class:`AdamW` updates with one fused kernel here.

    Returns:
        True on the torch backend with ``torch._fused_adamw_`` present, unless ``KIT_FUSED_ADAMW=0`` turns it off.
    """
    if keras.backend.backend() != "torch" or os.environ.get(FUSED_ENV, "1").strip() == "0":
        return False
    import torch

    return hasattr(torch, "_fused_adamw_")


@keras.saving.register_keras_serializable(package="kit")
class AdamW(keras.optimizers.AdamW):
    """``keras.optimizers.AdamW``, updated by one fused kernel on torch (same arguments, same config).

    The fused path reads a per-variable rate factor from :meth:`rate_multiplier` (0: the variable is left
    alone) and groups variables by factor, decay, dtype and device; a subclass that scales rates (LayerwiseAdamW)
    must scale them in ``update_step`` too, for the other backends. A model saved after ``compile`` with this
    optimizer names it ``kit>AdamW``: import ``kit.optimizers`` before ``keras.saving.load_model``
    (``load_bundle`` does).

    Args:
        *args: ``keras.optimizers.AdamW``'s positional arguments (``learning_rate``, ``weight_decay``, ...).
        no_decay_names: variables whose path contains one of these get no weight decay (kept in the config, so a
            loaded model goes on excluding them; exclusions added later with Keras' ``exclude_from_weight_decay``
            are not saved).
        **kwargs: ``keras.optimizers.AdamW``'s keyword arguments.
    """

    def __init__(self, *args, no_decay_names=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.no_decay_names = list(no_decay_names or [])
        if self.no_decay_names:
            self.exclude_from_weight_decay(var_names=self.no_decay_names)

    def get_config(self):
        return {**super().get_config(), "no_decay_names": list(self.no_decay_names)}

    def rate_multiplier(self, variable) -> float:
        """The factor on the learning rate (and the decay step) of ``variable``: 1 here.

        Args:
            variable: one of the optimizer's variables.

        Returns:
            The factor; 0 leaves the variable alone.
        """
        return 1.0

    def _fused(self) -> bool:
        if self.amsgrad or not fused_available():
            return False
        import torch

        return not torch.compiler.is_compiling()  # under jit_compile=True (torch.compile) Keras' own update traces

    def _apply_weight_decay(self, variables):
        if self._fused():
            return  # folded into the fused update (same order: decay first, then the Adam step)
        super()._apply_weight_decay(variables)

    def _backend_update_step(self, grads, trainable_variables, learning_rate):
        if not self._fused():
            return self._unfused_update_step(grads, trainable_variables, learning_rate)
        import torch

        with torch.no_grad():
            self._fused_update(grads, trainable_variables, learning_rate)

    def _unfused_update_step(self, grads, trainable_variables, learning_rate):
        if keras.backend.backend() == "torch" and type(self).update_step is AdamW.update_step:
            import torch
            from keras.src.backend.torch.optimizers import torch_adam  # noqa: PLC0415 - imports torch; Keras' multi-tensor update

            with torch.no_grad():
                return torch_adam.Adam._parallel_update_step(self, grads, trainable_variables, learning_rate)
        return super()._backend_update_step(grads, trainable_variables, learning_rate)

    def _fused_update(self, grads, variables, learning_rate):
        import torch

        step = int(keras.ops.convert_to_numpy(self.iterations)) + 1
        lr = float(keras.ops.convert_to_numpy(learning_rate))
        # Keras: w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps); the kernel adds its eps to
        # sqrt(v) / sqrt(1 - b2^t), so the same update takes eps / sqrt(1 - b2^t) there.
        eps = self.epsilon / math.sqrt(1.0 - self.beta_2**step)
        decay = float(self.weight_decay or 0.0)
        groups = {}
        for grad, variable in zip(grads, variables):
            scale = self.rate_multiplier(variable)
            if scale == 0.0:
                continue
            value = variable.value
            wd = decay if decay and self._use_weight_decay(variable) else 0.0
            key = (scale, wd, value.dtype, value.device)
            i = self._get_variable_index(variable)
            g = groups.setdefault(key, ([], [], [], []))
            g[0].append(value)
            g[1].append(grad.to(value.dtype) if grad.dtype != value.dtype else grad)
            g[2].append(self._momentums[i].value)
            g[3].append(self._velocities[i].value)
        for (scale, wd, _, device), (params, gs, ms, vs) in groups.items():
            steps = [torch.tensor(float(step), dtype=torch.float32, device=device)] * len(params)
            torch._fused_adamw_(
                params,
                gs,
                ms,
                vs,
                [],
                steps,
                lr=lr * scale,
                beta1=float(self.beta_1),
                beta2=float(self.beta_2),
                weight_decay=wd,
                eps=eps,
                amsgrad=False,
                maximize=False,
            )


def adamw(
    learning_rate, weight_decay: float = 0.01, global_clipnorm: float | None = None, no_decay=NO_DECAY_NAMES
) -> AdamW:
    """:class:`AdamW` (Keras' AdamW, fused on torch) with ``no_decay`` variables excluded from weight decay.

    Args:
        learning_rate: a rate or a schedule (:mod:`kit.optimizers.schedules`).
        weight_decay: the decoupled weight decay.
        global_clipnorm: clip the gradients' global norm to this, or None.
        no_decay: variables whose path contains one of these get no weight decay (default: biases and LayerNorm
            gamma/beta); ``()`` decays every variable.

    Returns:
        The optimizer.
    """
    return AdamW(learning_rate, weight_decay=weight_decay, global_clipnorm=global_clipnorm, no_decay_names=no_decay)
