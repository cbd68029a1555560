"""Multitask fine-tuning: one model with a head per task, batches of one task at a time, all shuffled together.

mt-dnn's sampler (``mt_dnn/batcher.py``, SerBERTus: unweighted): tasks drawn in proportion to their size, each example
once per epoch. Sample weights 0 silence the inactive heads' losses, but their gradient is zero, not none, so AdamW's
momentum and weight decay still move them (one model is the portable design: jax's ``stateless_apply`` needs every
variable). In the history ``<task>_loss`` averages over all batches (others count 0): compare tasks by metrics. Wrap in
:class:`kit.train.smart.SMART` before compiling, or pass an ``llrd_optimizer``, to compose.

>>> import numpy as np
>>> x = {"token_ids": np.ones((10, 4), "int32"), "segment_ids": np.zeros((10, 4), "int32"),
...      "padding_mask": np.ones((10, 4), "int32")}
>>> data = {"sst": (x, np.arange(10) % 5), "sts": ({k: v[:4] for k, v in x.items()}, np.linspace(0, 5, 4))}
>>> batches = MultitaskBatches(data, {"sst": "classification", "sts": "regression"}, batch_size=4)
>>> sorted(batches.task_of(i) for i in range(len(batches)))     # 3 SST batches, 1 STS batch
['sst', 'sst', 'sst', 'sts']
>>> x_b, y_b, w_b = batches[[batches.task_of(i) for i in range(len(batches))].index("sts")]
>>> {t: w.tolist() for t, w in sorted(w_b.items())}
{'sst': [0.0, 0.0, 0.0, 0.0], 'sts': [1.0, 1.0, 1.0, 1.0]}
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import keras
import numpy as np

from ..metrics.task_scores import Pearson, check_kind, task_predictions, task_score

INPUT_KEYS = ("token_ids", "segment_ids", "padding_mask")


def task_loss(kind: str) -> keras.losses.Loss:
    """The loss of a task kind: cross-entropy on logits, binary cross-entropy on one logit, or squared error.

    ``"classification"`` (e.g. SST-5), ``"binary"`` (QQP) or ``"regression"`` (STS-B).

    Raises:
        ValueError: an unknown kind.
    """
    check_kind(kind)
    if kind == "classification":
        return keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    if kind == "binary":
        return keras.losses.BinaryCrossentropy(from_logits=True)
    return keras.losses.MeanSquaredError()


def task_metrics(kind: str) -> list:
    """A task kind's metric in a list: ``accuracy`` (argmax, or logit > 0 for binary) or streaming ``pearson``.

    Raises:
        ValueError: an unknown kind.
    """
    check_kind(kind)
    if kind == "classification":
        return [keras.metrics.SparseCategoricalAccuracy(name="accuracy")]
    if kind == "binary":
        return [keras.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)]
    return [Pearson(name="pearson")]


def _check_model_outputs(model, kinds: dict):
    inner = getattr(model, "model", model)  # a SMART wrapper shows its inner model's outputs
    structure = getattr(inner, "_outputs_struct", None)
    if structure is None:
        return
    if not isinstance(structure, dict):
        raise ValueError(
            f"A multitask model needs a dict of outputs {{task: logits}}; {inner.name!r} has "
            f"{type(structure).__name__}. Build it with kit.models.multitask_bert.MultitaskBert."
        )
    missing = sorted(set(kinds) - set(structure))
    if missing:
        raise ValueError(f"Tasks {missing} have no output in the model (its outputs: {sorted(structure)}).")


def compile_multitask(model, kinds: dict, optimizer, **compile_kwargs) -> None:
    """Compile ``model`` (outputs ``{task: logits}``, or a SMART wrapper) with each task's loss and weighted metric.

    Weighted metrics count only their own task's examples.

    Raises:
        ValueError: an unknown kind, a model without a dict of outputs, or a task without an output.
    """
    kinds = {t: check_kind(k, t) for t, k in kinds.items()}
    _check_model_outputs(model, kinds)
    model.compile(
        optimizer=optimizer,
        loss={t: task_loss(k) for t, k in kinds.items()},
        weighted_metrics={t: task_metrics(k) for t, k in kinds.items()},
        **compile_kwargs,
    )


def _length(x) -> int:
    if not isinstance(x, dict) or any(k not in x for k in INPUT_KEYS):
        raise ValueError(
            f"Each task's inputs must be the preprocessor's dict with {INPUT_KEYS}; got "
            f"{sorted(x) if isinstance(x, dict) else type(x).__name__}."
        )
    n = len(x["token_ids"])
    if any(len(x[k]) != n for k in INPUT_KEYS):
        raise ValueError("token_ids, segment_ids and padding_mask differ in length.")
    return n


def _targets(kind: str, y, n: int):
    y = np.asarray(y)
    if kind == "classification":
        return y.reshape(n).astype("int32")
    return y.reshape(n, 1).astype("float32")


class MultitaskBatches(keras.utils.PyDataset):
    """mt-dnn's multitask stream: one task per batch, every task's batches shuffled together, reshuffled each epoch.

    Item ``i`` is ``(x, {task: targets} for every task (zeros if inactive), {task: (B,) weights})``, weights 1.0 for the
    batch's task and 0.0 elsewhere. ``data`` is ``{task: (inputs, labels)}``; epoch ``e`` shuffles with ``[seed, e]``;
    ``shuffle=False`` keeps tasks and examples in order; ``drop_remainder`` drops each task's last partial batch (fewer
    shapes, fewer recompilations on jax and tensorflow).

    Raises:
        ValueError: no tasks, ``batch_size`` < 1, a task without a kind or examples, inputs that are not the
            preprocessor's dict, or labels that do not match the inputs in number.
    """

    def __init__(
        self,
        data: dict,
        kinds: dict,
        batch_size: int,
        seed: int = 0,
        shuffle: bool = True,
        drop_remainder: bool = False,
    ):
        super().__init__()
        if not data:
            raise ValueError("No tasks given: data maps each task to (inputs, labels).")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}.")
        missing = sorted(set(data) - set(kinds))
        if missing:
            raise ValueError(
                f"No kind for tasks {missing}: kinds maps each task to 'classification', 'binary' or 'regression'."
            )
        self.kinds = {t: check_kind(kinds[t], t) for t in data}
        self.data = {}
        for task, (x, y) in data.items():
            n = _length(x)
            if n == 0:
                raise ValueError(f"Task {task!r} has no examples.")
            if len(np.asarray(y)) != n:
                raise ValueError(f"Task {task!r}: {len(np.asarray(y))} labels for {n} examples.")
            self.data[task] = ({k: np.asarray(x[k]) for k in INPUT_KEYS}, _targets(self.kinds[task], y, n))
        self.tasks = list(self.data)
        self.batch_size, self.seed, self.shuffle = int(batch_size), int(seed), bool(shuffle)
        self.drop_remainder = bool(drop_remainder)
        self.epoch = 0
        self._order = self._make_order()

    def batches_per_task(self) -> dict:
        """``{task: its batches per epoch}``: its size / ``batch_size``, rounded up (down with ``drop_remainder``)."""
        count = (lambda n: n // self.batch_size) if self.drop_remainder else (lambda n: math.ceil(n / self.batch_size))
        return {t: count(len(y)) for t, (_, y) in self.data.items()}

    def _make_order(self):
        rng = np.random.default_rng([self.seed, self.epoch])
        order = []
        for task, (_, y) in self.data.items():
            n = len(y)
            rows = rng.permutation(n) if self.shuffle else np.arange(n)
            for b in range(self.batches_per_task()[task]):
                order.append((task, rows[b * self.batch_size : (b + 1) * self.batch_size]))
        if self.shuffle:
            order = [order[i] for i in rng.permutation(len(order))]
        return order

    def __len__(self):
        return len(self._order)

    def task_of(self, i: int) -> str:
        """The task of batch ``i`` in this epoch's order."""
        return self._order[i][0]

    def __getitem__(self, i):
        if not 0 <= i < len(self._order):
            raise IndexError(i)
        task, rows = self._order[i]
        x, y = self.data[task]
        b = len(rows)
        xb = {k: v[rows] for k, v in x.items()}
        yb, wb = {}, {}
        for t, (_, yt) in self.data.items():
            if t == task:
                yb[t], wb[t] = yt[rows], np.ones(b, "float32")
            else:
                yb[t], wb[t] = np.zeros((b,) + yt.shape[1:], yt.dtype), np.zeros(b, "float32")
        return xb, yb, wb

    def on_epoch_end(self):
        self.epoch += 1
        self._order = self._make_order()


def predict_tasks(model, data: dict, kinds: dict, batch_size: int = 64) -> dict:
    """``{task: unrounded predictions}``: class probabilities (N, C), P(positive) (N,) or scores (N,).

    ``data`` is ``{task: inputs}`` or ``{task: (inputs, labels)}`` (see :func:`kit.metrics.task_predictions`).

    Raises:
        ValueError: the model has no output for a task, or an unknown kind.
    """
    out = {}
    for task, x in data.items():
        x = x[0] if isinstance(x, tuple) else x
        logits = model.predict({k: np.asarray(x[k]) for k in INPUT_KEYS}, batch_size=batch_size, verbose=0)
        if task not in logits:
            raise ValueError(f"The model has no output {task!r} (outputs: {sorted(logits)}).")
        out[task] = task_predictions(check_kind(kinds[task], task), logits[task])
    return out


def evaluate_multitask(model, data: dict, kinds: dict, batch_size: int = 64) -> dict:
    """``{task: accuracy (classification, binary) or Pearson (regression), ..., "mean": their mean}`` on ``data``."""
    preds = predict_tasks(model, {t: xy[0] for t, xy in data.items()}, kinds, batch_size)
    scores = {t: task_score(kinds[t], data[t][1], preds[t]) for t in data}
    scores["mean"] = float(np.mean(list(scores.values())))
    return scores


@dataclass
class MultitaskResult:
    """Per-epoch dev scores, the best-mean epoch (its weights kept), each task's best epoch score, time.

    Attributes:
        history: Keras' ``History.history`` (with ``dev_<task>`` and ``dev_mean`` per epoch when ``dev`` was given).
        dev_scores: per epoch, :func:`evaluate_multitask`'s dict on dev (empty without ``dev``).
        best_epoch: the epoch with the best mean dev score (0-based; -1 without ``dev``).
        best_per_task: each task's best dev score over the epochs (each may come from another epoch).
    """

    history: dict
    dev_scores: list = field(default_factory=list)
    best_epoch: int = -1
    best: dict = field(default_factory=dict)
    best_per_task: dict = field(default_factory=dict)
    steps: int = 0
    seconds: float = 0.0


class _DevEval(keras.callbacks.Callback):
    def __init__(self, dev, kinds, batch_size, keep_best):
        super().__init__()
        self.dev, self.kinds, self.batch_size, self.keep_best = dev, kinds, batch_size, keep_best
        self.scores, self.best_mean, self.best_weights = [], -math.inf, None

    def on_epoch_end(self, epoch, logs=None):
        s = evaluate_multitask(self.model, self.dev, self.kinds, self.batch_size)
        self.scores.append(s)
        if logs is not None:
            logs.update({f"dev_{k}": v for k, v in s.items()})
        if s["mean"] > self.best_mean:
            self.best_mean = s["mean"]
            if self.keep_best:
                self.best_weights = [np.array(w) for w in self.model.get_weights()]


@dataclass(frozen=True)
class MultitaskRecipe:
    """How :func:`fit_multitask` runs the mixed stream: epochs, batch, partial batches, the dev epoch it keeps.

    ``drop_remainder``: see :class:`MultitaskBatches`; ``keep_best`` (with ``dev``) restores the best mean dev epoch's
    weights; dev is scored in batches of ``eval_batch_size`` (default ``max(batch_size, 64)``).

    Raises:
        ValueError: ``epochs`` or ``batch_size`` below 1.

    Example:
        >>> MultitaskRecipe(epochs=3, batch_size=32, drop_remainder=True).keep_best
        True
    """

    epochs: int
    batch_size: int
    drop_remainder: bool = False
    keep_best: bool = True
    eval_batch_size: int | None = None

    def __post_init__(self):
        if self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}.")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}.")


def fit_multitask(
    model,
    train: dict,
    kinds: dict,
    recipe: MultitaskRecipe,
    *,
    optimizer,
    dev: dict | None = None,
    seed: int = 0,
    verbose: int = 0,
) -> MultitaskResult:
    """Compile ``model`` for the tasks and fit it on mt-dnn's mixed stream; score ``dev`` after every epoch.

    ``train`` and ``dev`` are ``{task: (inputs, labels)}``. For more ``compile`` arguments use :func:`compile_multitask`
    and your own ``model.fit``.

    Raises:
        TypeError: ``recipe`` is not a :class:`MultitaskRecipe`.
        ValueError: data, kinds or a model that :class:`MultitaskBatches` or :func:`compile_multitask` refuse.
    """
    if not isinstance(recipe, MultitaskRecipe):
        raise TypeError(
            f"recipe must be a kit.train.MultitaskRecipe, got {type(recipe).__name__}: e.g. "
            "MultitaskRecipe(epochs=3, batch_size=32)."
        )
    r = recipe
    stream = MultitaskBatches(train, kinds, r.batch_size, seed=seed, drop_remainder=r.drop_remainder)
    compile_multitask(model, {t: kinds[t] for t in stream.tasks}, optimizer)
    callbacks = []
    if dev:
        evaluator = _DevEval(dev, kinds, r.eval_batch_size or max(r.batch_size, 64), r.keep_best)
        callbacks.append(evaluator)
    t = time.perf_counter()
    hist = model.fit(stream, epochs=r.epochs, verbose=verbose, shuffle=False, callbacks=callbacks)
    seconds = time.perf_counter() - t
    result = MultitaskResult(hist.history, steps=r.epochs * len(stream), seconds=seconds)
    if dev:
        result.dev_scores = evaluator.scores
        means = [s["mean"] for s in evaluator.scores]
        result.best_epoch = int(np.argmax(means))
        result.best = dict(evaluator.scores[result.best_epoch])
        result.best_per_task = {task: max(s[task] for s in evaluator.scores) for task in dev}
        if r.keep_best and evaluator.best_weights is not None:
            model.set_weights(evaluator.best_weights)
    return result
