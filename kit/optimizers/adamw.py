"""AdamW as BERT fine-tuning uses it: no weight decay on biases and LayerNorm; one fused update on torch.

One factory for every recipe (TLM stage 1, further pretraining, BERT-Adam, pretrain-or-not's transformer). On torch,
Keras' AdamW makes ~10 whole-tensor passes a step (0.31 of 0.71 s a step, MiniLM's bottom 3 layers, batch 16 x 32
tokens, CPU); :class:`AdamW` makes one with ``torch._fused_adamw_``, epsilon rescaled to Keras' convention (same
weights to float rounding: ``tests/optimizers/test_adamw.py``). Without the kernel, or with ``KIT_FUSED_ADAMW=0``,
Keras' own update runs.

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
    """Whether :class:`AdamW` runs one fused kernel: torch with ``torch._fused_adamw_``, ``KIT_FUSED_ADAMW`` not 0."""
    if keras.backend.backend() != "torch" or os.environ.get(FUSED_ENV, "1").strip() == "0":
        return False
    import torch

    return hasattr(torch, "_fused_adamw_")


@keras.saving.register_keras_serializable(package="kit")
class AdamW(keras.optimizers.AdamW):
    """``keras.optimizers.AdamW``, updated by one fused kernel on torch (same arguments, same config).

    The fused path groups variables by :meth:`rate_multiplier` (0: left alone), decay, dtype and device; a subclass that
    scales rates must scale them in ``update_step`` too, for the other backends. A model compiled with it names
    ``kit>AdamW``: import ``kit.optimizers`` before ``keras.saving.load_model`` (``load_bundle`` does).
    ``no_decay_names`` (path substrings exempt from weight decay) is saved in the config; exclusions added later with
    ``exclude_from_weight_decay`` are not.
    """

    def __init__(self, *args, no_decay_names=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.no_decay_names = list(no_decay_names or [])
        if self.no_decay_names:
            self.exclude_from_weight_decay(var_names=self.no_decay_names)

    def get_config(self):
        return {**super().get_config(), "no_decay_names": list(self.no_decay_names)}

    def rate_multiplier(self, variable) -> float:
        """The factor on ``variable``'s learning rate and decay step (0 leaves it alone): 1 here."""
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
    """:class:`AdamW` (fused on torch) with variables whose path contains one of ``no_decay`` exempt from weight decay.

    ``learning_rate`` may be a schedule (:mod:`kit.optimizers.schedules`); ``global_clipnorm=None`` does not clip;
    ``no_decay=()`` decays every variable (default: biases and LayerNorm gamma/beta).
    """
    return AdamW(learning_rate, weight_decay=weight_decay, global_clipnorm=global_clipnorm, no_decay_names=no_decay)
