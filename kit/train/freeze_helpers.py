"""What the freeze scheduler's runs need around it: fresh pretrained weights per run, a frozen-encoder check, BERT-Adam.

>>> import keras, numpy as np
>>> keras.utils.set_random_seed(0)
>>> inp = keras.Input((4,)); enc = keras.layers.Dense(8, name="encoder")
>>> model = keras.Model(inp, keras.layers.Dense(2)(enc(inp)))
>>> watch = EncoderWatch(enc)
>>> x, y = np.ones((8, 4), "float32"), np.zeros(8, "int32")
>>> from kit.train import FreezeRecipe, stack_and_finetune
>>> recipe = FreezeRecipe(phase1_epochs=1, phase2_epochs=1, batch_size=4)
>>> r = stack_and_finetune(model, enc, (x, y), (x, y), recipe, strategy="stack_and_finetune", callbacks=[watch])
>>> watch.changed                      # phase 1 (encoder frozen), phase 2 (everything trains)
[False, True]
"""

from __future__ import annotations

import hashlib
import random

import keras
import numpy as np

from ..optimizers import adamw, schedules


class ReusableBackbone:
    """One pretrained backbone for many runs: :meth:`fresh` puts its pretrained weights back before each one.

    Reloading MiniLM costs seconds, resetting weights milliseconds. The weights, ``trainable`` flags, dropout rates and
    seed states of ``backbone`` are recorded at construction; build each run's model on ``fresh()``'s return value.
    """

    def __init__(self, backbone):
        self.backbone = backbone
        self._weights = [np.array(w) for w in backbone.get_weights()]
        layers = list(backbone._flatten_layers(include_self=True, recursive=True))
        self._flags = [(layer, layer.trainable) for layer in layers]
        self._var_flags = [(v, v.trainable) for v in backbone.weights]
        self._rates = [(layer, layer.rate) for layer in layers if isinstance(layer, keras.layers.Dropout)]
        self._seed_states = [sg.state for layer in layers for sg in getattr(layer, "_seed_generators", [])]

    def fresh(self):
        """The same backbone, its weights, trainable flags and dropout rates restored, ready for the next run's model.

        ``set_weights`` leaves dropout's seed generators alone, so they get new seeds from Python's ``random`` (seeded
        by ``kit.config.set_seed``): a run with a given seed gets the same dropout masks whatever ran before it.
        """
        for layer, flag in self._flags:
            layer.trainable = flag
        for v, flag in self._var_flags:
            v.trainable = flag
        for layer, rate in self._rates:
            layer.rate = rate
        self.backbone.set_weights(self._weights)
        for state in self._seed_states:  # as keras.random.SeedGenerator(seed=None) draws its seed
            state.assign(np.array([random.randint(1, int(1e9)), 0], dtype=keras.backend.standardize_dtype(state.dtype)))
        return self.backbone


class EncoderWatch(keras.callbacks.Callback):
    """Fingerprints (SHA-1 of the bytes) of ``layers``' weights at the start and end of every ``fit``.

    ``changed`` lists, per ``fit`` call (= per phase), whether any weight's bytes differ at the end: a frozen encoder
    must give ``False``.
    """

    def __init__(self, layers):
        super().__init__()
        self.layers = list(layers) if isinstance(layers, (list, tuple)) else [layers]
        self.changed: list[bool] = []
        self._start = None

    def fingerprint(self) -> str:
        """The SHA-1 hex digest of the watched layers' weights, byte for byte."""
        h = hashlib.sha1()
        for layer in self.layers:
            for v in layer.weights:
                h.update(np.ascontiguousarray(keras.ops.convert_to_numpy(v)).tobytes())
        return h.hexdigest()

    def on_train_begin(self, logs=None):
        self._start = self.fingerprint()

    def on_train_end(self, logs=None):
        self.changed.append(self.fingerprint() != self._start)


SCHEDULES = ("bert_adam", "constant")


def optimizer_factory(
    strategy: str,
    steps_per_epoch: int,
    phase1_epochs: int,
    phase2_epochs: int,
    schedule: str = "bert_adam",
    warmup: float = 0.1,
    weight_decay: float = 0.01,
):
    """A ``lr -> optimizer`` factory for :func:`kit.train.stack_and_finetune`, one fresh AdamW per phase.

    ``"bert_adam"``: the paper's BERT-Adam, AdamW (no decay on biases and LayerNorm) with warm-up + linear decay over
    each phase's planned steps, ``warmup`` of them warming up; ``"constant"``: AdamW at a constant rate. The scheduler
    calls the factory once per phase in order (then once more to leave the model compiled); calls beyond the strategy's
    phases get a constant rate.

    Raises:
        ValueError: an unknown ``schedule``.
        KeyError: an unknown ``strategy``.

    Example:
        >>> make = optimizer_factory("stack_and_finetune", 10, phase1_epochs=3, phase2_epochs=2)
        >>> [round(float(make(lr).learning_rate), 8) for lr in (1e-3, 2e-5)]   # step 0: 1/3 and 1/2 of the way up
        [0.00033333, 1e-05]
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}.")
    epochs = {
        "finetune_only": [phase2_epochs],
        "stack_only": [phase1_epochs],
        "stack_and_finetune": [phase1_epochs, phase2_epochs],
    }[strategy]
    calls = []

    def make(lr):
        i = len(calls)
        calls.append(lr)
        if schedule == "constant" or i >= len(epochs):
            rate = lr
        else:
            total = max(1, epochs[i] * steps_per_epoch)
            rate = schedules.WarmupLinearDecay(lr, total, int(round(warmup * total)))
        return adamw(rate, weight_decay)

    return make


def planned_epochs(strategy: str, phase1_epochs: int, phase2_epochs: int) -> int:
    """Most epochs a strategy can run (phase 1 may stop early); KeyError for an unknown ``strategy``.

    Example:
        >>> from kit.train.freeze import STRATEGIES
        >>> [planned_epochs(s, 4, 2) for s in STRATEGIES]
        [2, 4, 6]
    """
    return {
        "finetune_only": phase2_epochs,
        "stack_only": phase1_epochs,
        "stack_and_finetune": phase1_epochs + phase2_epochs,
    }[strategy]
