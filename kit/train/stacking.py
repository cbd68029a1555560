"""The three strategies of arXiv 1907.05338 on one task: its inputs, its models, one training run.

Notebook 03 compares finetune-only, stack-only and stack-and-finetune on
token tagging, single-text classification and sentence pairs with one
pretrained encoder. This module holds what those runs share, so the
notebook's cells stay short:

- :func:`encode_task` turns a :class:`~kit.data.TextDataset` into model
  inputs and labels (:class:`TaskData`): WordPiece inputs for texts or
  pairs, and for tagging the word labels moved to each word's first
  sub-token (``kit.models.align_labels``);
- :func:`build_model` puts a head on the backbone: a rich head (any layer
  that reads the token-state dict of ``kit.models.build_stacked_model``), or
  with ``head=None`` the paper's **light** finetune-only head ("two fully
  connected layers": per token for tagging, on ``[CLS]`` otherwise);
- :class:`ReusableBackbone` gives every run the pretrained encoder afresh
  (weights reset, no reload);
- :func:`train_strategy` trains it with :func:`kit.train.stack_and_finetune`
  (the loss and metric that fit the task), watches the encoder's weights
  (bit-identical through a frozen phase?), and returns the test outputs.

>>> import keras, numpy as np
>>> from kit.data import Split, TextDataset
>>> from kit.models import BertBackbone
>>> from kit.text import BertPreprocessor, WordPieceTokenizer
>>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "good", "bad", "film", "a"]
>>> pre = BertPreprocessor(WordPieceTokenizer(vocab), sequence_length=6)
>>> split = Split(["a good film", "a bad film"] * 4, [1, 0] * 4)
>>> task = encode_task(TextDataset("toy", "classification", {"train": split, "dev": split, "test": split},
...                                ["neg", "pos"]), pre)
>>> task.kind, task.sizes(), task.x["test"]["token_ids"].shape
('classification', {'train': 8, 'dev': 8, 'test': 8}, (8, 6))
>>> keras.utils.set_random_seed(0)
>>> bb = BertBackbone(vocabulary_size=9, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16,
...                   max_sequence_length=8)
>>> run = train_strategy(build_model(bb, task, hidden_dim=8), bb, task, "stack_and_finetune",
...                      phase1_epochs=2, phase2_epochs=1, batch_size=4)
>>> [p.name for p in run.result.phases], run.encoder_changed, run.test_outputs.shape
(['phase1', 'phase2'], [False, True], (8, 2))
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass, field

import keras
import numpy as np

from ..models.heads import build_classifier
from ..models.stacked import build_stacked_model
from ..models.tagging import (MaskedAccuracy, MaskedSparseCategoricalCrossentropy, TokenTaggerHead,
                              align_labels)
from .freeze import STRATEGIES, StackResult, stack_and_finetune

#: The task kinds the three strategies run on, and the dataset task each one reads.
KINDS = {"tagging": "tagging", "classification": "classification", "pairs": "pairs"}


@dataclass
class TaskData:
    """One task, encoded for a BERT backbone: inputs and labels per split (train, dev, test).

    ``x[split]``: ``token_ids``, ``segment_ids``, ``padding_mask``; ``y[split]``:
    class ids ``(N,)`` or, for tagging, token labels ``(N, T)`` (the word's
    label at its first sub-token, ``kit.models.IGNORE`` elsewhere). Tagging
    also keeps ``words[split]`` (gold label ids per word) and
    ``aligned[split]`` (to map token outputs back to words).
    """

    name: str
    kind: str
    label_names: list
    x: dict
    y: dict
    words: dict | None = None
    aligned: dict | None = None
    info: dict = field(default_factory=dict)

    @property
    def num_labels(self) -> int:
        return len(self.label_names)

    @property
    def is_entity_task(self) -> bool:
        """True when the labels are BIO/IOBES chunk tags (entity-level F1 applies)."""
        return self.kind == "tagging" and any(n[:2] in ("B-", "I-", "S-", "E-") for n in self.label_names)

    def sizes(self) -> dict:
        return {s: len(v["token_ids"]) for s, v in self.x.items()}

    def steps_per_epoch(self, batch_size: int) -> int:
        return math.ceil(self.sizes()["train"] / batch_size)

    def word_outputs(self, token_outputs, split: str = "test", fill: int = -1) -> list[list[int]]:
        """Tagging: one predicted label id per word (``fill`` for words cut by the sequence length)."""
        from ..models.tagging import word_predictions

        if self.kind != "tagging":
            raise ValueError(f"{self.name} is a {self.kind} task: word outputs are for tagging.")
        return word_predictions(token_outputs, self.aligned[split], fill=fill)


def encode_task(ds, preprocessor, name: str | None = None, splits=("train", "dev", "test")) -> TaskData:
    """A tagging, classification or pairs :class:`~kit.data.TextDataset` → :class:`TaskData` for ``preprocessor``."""
    if ds.task not in KINDS.values():
        raise ValueError(f"{ds.name} is a {ds.task!r} set; the three strategies run on {sorted(KINDS)} tasks "
                         "(class labels or word tags; regression targets are not supported here).")
    if ds.label_names is None:
        raise ValueError(f"{ds.name} has no label names; encode_task needs the classes or tags by name.")
    kind = ds.task
    x, y, words, aligned, info = {}, {}, {}, {}, {}
    for s in splits:
        split = ds[s]
        if kind == "tagging":
            a = align_labels(split.texts, split.labels, preprocessor)
            x[s], y[s], aligned[s] = a.x, a.y, a
            words[s] = [list(map(int, row)) for row in split.labels]
            info[f"{s}_truncated"] = a.truncated
        else:
            if (kind == "pairs") != (split.texts_b is not None):
                raise ValueError(f"{ds.name}: a {kind} set needs {'two texts' if kind == 'pairs' else 'one text'} "
                                 "per example.")
            x[s] = preprocessor(split.x)
            y[s] = np.asarray(split.labels, dtype="int32")
    return TaskData(name or ds.name, kind, list(ds.label_names), x, y, words or None, aligned or None, info)


def light_head(task: TaskData, hidden_dim: int, dropout: float = 0.1) -> keras.layers.Layer:
    """The paper's finetune-only tagging head: per token, Dense(``hidden_dim``, ReLU) → Dense(tags)."""
    return TokenTaggerHead(task.num_labels, n_layers=0, hidden_dim=hidden_dim, dropout=dropout, name="head")


def build_model(backbone, task: TaskData, head: keras.layers.Layer | None = None, *, hidden_dim: int | None = None,
                dropout: float = 0.1, name: str | None = None, pooling: str = "cls") -> keras.Model:
    """``backbone`` with ``head`` on its token states, or (``head=None``) the light finetune-only head.

    The light head is the paper's: two fully connected layers per token for
    tagging (:func:`light_head`); for texts and pairs the pooled ``[CLS]``
    (BERT's pooler, Dense + tanh) → Dense(``hidden_dim``, tanh) → logits
    (``kit.models.build_classifier``); ``pooling="mean"`` reads the mean token
    state instead (for MiniLM, whose lower layers' [CLS] barely varies). ``hidden_dim`` defaults to the
    backbone's hidden size. A head on the token states leaves BERT's pooler
    (``pooled_dense``) without gradients, so it is set untrainable (the
    scheduler keeps it so; :class:`ReusableBackbone` restores it per run).
    """
    hidden_dim = hidden_dim or backbone.hidden_dim
    name = name or f"{task.name}_{'light' if head is None else head.name}"
    if head is None and task.kind != "tagging":
        return build_classifier(backbone, task.num_labels, dropout=dropout, hidden_dim=hidden_dim, name=name,
                                pooling=pooling)
    pooler = getattr(backbone, "pooled_dense", None)
    if pooler is not None:  # the head reads the token states only: no gradient reaches BERT's pooler, keep it fixed
        pooler.trainable = False
    return build_stacked_model(backbone, head or light_head(task, hidden_dim, dropout), name=name)


class ReusableBackbone:
    """One pretrained backbone for many runs: :meth:`fresh` puts its pretrained weights back before each one.

    Loading MiniLM again for every run costs seconds; resetting the weights of
    one backbone object costs milliseconds. :meth:`fresh` also restores every
    sublayer's and variable's ``trainable`` flag and dropout rate as they were
    at construction, so nothing a previous run did (freezing, training) carries
    over. Build each run's model on ``fresh()``'s return value.

    Dropout's random state lives in seed generators that ``set_weights``
    does not touch; :meth:`fresh` draws new seeds for them from Python's
    ``random`` (seeded by ``kit.config.set_seed``), so a run with a given seed
    gets the same dropout masks whatever ran before it.
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
        """The backbone with its pretrained weights, trainable flags and dropout rates restored."""
        for layer, flag in self._flags:
            layer.trainable = flag
        for v, flag in self._var_flags:
            v.trainable = flag
        for layer, rate in self._rates:
            layer.rate = rate
        self.backbone.set_weights(self._weights)
        for state in self._seed_states:   # as keras.random.SeedGenerator(seed=None) draws its seed
            state.assign(np.array([random.randint(1, int(1e9)), 0], dtype=keras.backend.standardize_dtype(state.dtype)))
        return self.backbone


class EncoderWatch(keras.callbacks.Callback):
    """Fingerprints (SHA-1 of the bytes) of some layers' weights at the start and end of every ``fit``.

    ``changed`` lists, per ``fit`` call (= per phase), whether any weight's
    bytes differ at the end: a frozen encoder must give ``False``.
    """

    def __init__(self, layers):
        super().__init__()
        self.layers = list(layers) if isinstance(layers, (list, tuple)) else [layers]
        self.changed: list[bool] = []
        self._start = None

    def fingerprint(self) -> str:
        h = hashlib.sha1()
        for layer in self.layers:
            for v in layer.weights:
                h.update(np.ascontiguousarray(keras.ops.convert_to_numpy(v)).tobytes())
        return h.hexdigest()

    def on_train_begin(self, logs=None):
        self._start = self.fingerprint()

    def on_train_end(self, logs=None):
        self.changed.append(self.fingerprint() != self._start)


@dataclass
class StrategyRun:
    """One trained model: the scheduler's result, the encoder's fate per phase, the test outputs."""

    strategy: str
    result: StackResult
    encoder_changed: list
    test_outputs: np.ndarray  # logits: (N, classes) or (N, T, tags)
    steps: int
    seconds: float

    def phase(self, name: str):
        for p in self.result.phases:
            if p.name == name:
                return p
        return None

    def summary(self) -> dict:
        """Numbers for ``results.csv``: epochs, trainable parameters and encoder change per phase, time."""
        out = {"dev_best": float(self.result.best_dev), "steps": self.steps, "seconds": self.seconds}
        for p, changed in zip(self.result.phases, self.encoder_changed):
            out[f"{p.name}_epochs"] = p.epochs
            out[f"{p.name}_max_epochs"] = p.max_epochs
            out[f"{p.name}_trainable_params"] = p.trainable_params
            out[f"{p.name}_encoder_frozen"] = int(p.encoder_frozen)
            out[f"{p.name}_encoder_changed"] = int(changed)
            out[f"{p.name}_stopped_early"] = int(bool(p.stopped))
        return out


@keras.saving.register_keras_serializable(package="kit")
class WarmupLinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    """BERT's schedule: linear warm-up to ``peak`` over ``warmup_steps``, then linear decay to 0 at ``total_steps``.

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
        down = self.peak * keras.ops.maximum(0.0, (self.total_steps - step)
                                             / float(max(self.total_steps - self.warmup_steps, 1)))
        return keras.ops.where(step < self.warmup_steps, up, down)

    def get_config(self):
        return {"peak": self.peak, "total_steps": self.total_steps, "warmup_steps": self.warmup_steps}


SCHEDULES = ("bert_adam", "constant")


def optimizer_factory(strategy: str, steps_per_epoch: int, phase1_epochs: int, phase2_epochs: int,
                      schedule: str = "bert_adam", warmup: float = 0.1, weight_decay: float = 0.01):
    """A ``lr -> optimizer`` factory for :func:`kit.train.stack_and_finetune`, one fresh optimizer per phase.

    ``"bert_adam"`` is the paper's BERT-Adam: AdamW (weight decay ``weight_decay``, none on biases and
    LayerNorm) with :class:`WarmupLinearDecay` over each phase's planned steps (warm-up: ``warmup`` of
    them); ``"constant"`` is AdamW at a constant rate. The scheduler calls the factory once per phase,
    in order (then once more to leave the model compiled), which is how each call knows its phase.

    >>> make = optimizer_factory("stack_and_finetune", 10, phase1_epochs=3, phase2_epochs=2)
    >>> [round(float(make(lr).learning_rate), 8) for lr in (1e-3, 2e-5)]   # step 0: 1/3 and 1/2 of the way up
    [0.00033333, 1e-05]
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}.")
    epochs = {"finetune_only": [phase2_epochs], "stack_only": [phase1_epochs],
              "stack_and_finetune": [phase1_epochs, phase2_epochs]}[strategy]
    calls = []

    def make(lr):
        i = len(calls)
        calls.append(lr)
        if schedule == "constant" or i >= len(epochs):
            rate = lr
        else:
            total = max(1, epochs[i] * steps_per_epoch)
            rate = WarmupLinearDecay(lr, total, int(round(warmup * total)))
        opt = keras.optimizers.AdamW(rate, weight_decay=weight_decay)
        opt.exclude_from_weight_decay(var_names=["bias", "gamma", "beta"])
        return opt

    return make


def loss_and_metrics(task: TaskData):
    """``(loss, metrics factory)`` for the task: masked token loss/accuracy for tagging, else None (the defaults)."""
    if task.kind == "tagging":
        return MaskedSparseCategoricalCrossentropy(), (lambda: [MaskedAccuracy(name="accuracy")])
    return None, None


def train_strategy(model: keras.Model, encoder, task: TaskData, strategy: str, *, phase1_lr: float = 1e-3,
                   phase2_lr: float = 2e-5, phase1_epochs: int = 0, phase2_epochs: int = 0, batch_size: int = 32,
                   divergence="default", patience: int | None = None, weight_decay: float = 0.01,
                   schedule: str = "bert_adam", warmup: float = 0.1, verbose: int = 0) -> StrategyRun:
    """Train ``model`` by ``strategy`` on ``task`` (``kit.train.stack_and_finetune``), then predict the test split.

    The metric that phase 1 and the best-epoch choice watch is ``accuracy``
    (token accuracy over labelled words for tagging). Every phase gets a fresh
    optimizer from :func:`optimizer_factory` (BERT-Adam by default: warm-up,
    then linear decay over the phase's planned steps). ``run.encoder_changed``
    says, per phase, whether any weight of ``encoder`` changed.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"Unknown strategy {strategy!r}: use one of {STRATEGIES}.")
    loss, metrics = loss_and_metrics(task)
    watch = EncoderWatch(encoder)
    t = time.perf_counter()
    result = stack_and_finetune(model, encoder, task.x["train"], task.y["train"], task.x["dev"], task.y["dev"],
                                strategy=strategy, phase1_lr=phase1_lr, phase2_lr=phase2_lr,
                                phase1_epochs=phase1_epochs, phase2_epochs=phase2_epochs, batch_size=batch_size,
                                loss=loss, metrics=metrics, divergence=divergence, patience=patience,
                                optimizer=optimizer_factory(strategy, task.steps_per_epoch(batch_size), phase1_epochs,
                                                            phase2_epochs, schedule, warmup, weight_decay),
                                callbacks=[watch], verbose=verbose)
    outputs = np.asarray(model.predict(task.x["test"], batch_size=max(batch_size, 64), verbose=0), "float32")
    seconds = time.perf_counter() - t
    steps = sum(p.epochs for p in result.phases) * task.steps_per_epoch(batch_size)
    return StrategyRun(strategy, result, watch.changed, outputs, steps, seconds)


def planned_epochs(strategy: str, phase1_epochs: int, phase2_epochs: int) -> int:
    """Most epochs a strategy can run (phase 1 may stop early).

    >>> [planned_epochs(s, 4, 2) for s in STRATEGIES]
    [2, 4, 6]
    """
    return {"finetune_only": phase2_epochs, "stack_only": phase1_epochs,
            "stack_and_finetune": phase1_epochs + phase2_epochs}[strategy]
