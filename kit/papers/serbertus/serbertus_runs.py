"""SerBERTus one run at a time, and the files and ensembles its runs make.

A run is the model, further MLM pretraining, SMART, layer-wise LR decay, the mixed multitask stream, and the
unrounded dev and test predictions that the dev-gated ensemble averages.

Notebook 04 describes each run by a :class:`Setting` (its one change) and a
:class:`Recipe` (the rest, the same for every run: ``Recipe.from_sizes``);
:class:`Experiment` calls :func:`run_setting` once per (setting, seed) of its sweep and records the run's
rows (one per task, and a summary row for a multitask run: :func:`to_run_result`)
and its predictions (:func:`load_predictions` reads them back), so a resumed
sweep can still build the ensembles.

The recipe is the same for every run; a setting changes one thing:

- **architecture**: ``"single"`` (one task, one encoder: the baseline; three
  of them are the paper's triple-BERT), ``"multi"`` (one shared encoder, a head
  per task), ``"cerbertus"`` (shared lower ``L-k`` layers, per-task copies of
  the top ``k``) or ``"triple"`` (three encoders trained together in one model);
- **optimizer**: AdamW (no weight decay on biases and LayerNorm), gradients
  clipped to global norm 1, the learning rate warmed up linearly over
  ``warmup`` of the steps (from ``rate/warm`` on the first step, not 0), then
  cosine-decayed to 0 (:func:`kit.optimizers.schedules.cosine`); ``decay < 1`` scales it per
  layer (:func:`kit.train.llrd_optimizer`); ``decay = 1`` is the same optimizer
  with every multiplier 1, so "no decay" differs in nothing else;
- **stream**: one task per batch, all tasks' batches shuffled together
  (mt-dnn's sampler, :class:`kit.train.MultitaskBatches`), each task's last
  partial batch dropped;
- **epochs**: with ``epochs > 1`` the dev set is scored after every epoch and
  the epoch with the best mean dev score is kept (the paper reports its best
  dev epoch); with one epoch there is nothing to choose;
- **SMART** (``lambda_s > 0``): the model trains inside :class:`kit.train.SMART`,
  with noise on the embedding output of every encoder;
- **further pretraining** (``mlm_steps > 0``): the backbone first gets
  ``mlm_steps`` masked-LM steps on the training texts of the run's tasks
  (:func:`kit.train.further_pretrain`; MiniLM ships no MLM head, so the head
  starts fresh).

>>> import tempfile, pathlib, numpy as np
>>> from kit.models import BertBackbone
>>> from kit.train import Sweep
>>> def task(n, y):
...     ids = np.random.default_rng(n).integers(4, 30, (n, 8)).astype("int32")
...     return {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": np.ones_like(ids)}, y
>>> data = {"sst": {s: task(8, np.arange(8) % 5) for s in ("train", "dev", "test")},
...         "sts": {s: task(8, np.linspace(0, 5, 8)) for s in ("train", "dev", "test")}}
>>> bb = BertBackbone(vocabulary_size=30, num_layers=2, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=8)
>>> kinds, heads = {"sst": "classification", "sts": "regression"}, {"sst": 5, "sts": 1}
>>> setting = Setting(architecture="cerbertus", k=1, lambda_s=1.0, decay=0.9)   # the run's one change
>>> result = run_setting(bb, data, kinds, heads, setting, Recipe(learning_rate=1e-3, epochs=1, batch_size=4))
>>> result.architecture, result.steps, sorted(result.test), result.smart_loss > 0
('CerBERTus k=1', 4, ['sst', 'sts'], True)
>>> sweep = Sweep(pathlib.Path(tempfile.mkdtemp()) / "results.csv", keys=KEYS, log=lambda *a: None)
>>> run = {"experiment": "architecture", "setting": "CerBERTus k=1", "task": "sst+sts", "seed": 0}
>>> sweep.record(run, to_run_result(result))
>>> sorted(set(sweep.results().task)), "dev_mean" in set(sweep.results().metric)
(['sst', 'sst+sts', 'sts'], True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import keras
import numpy as np

from ... import config
from ...data import load
from ...metrics.task_scores import check_kind, task_score
from ...models import load_backbone
from ...models.bundle import save_bundle_if_best, uncompiled_copy
from ...models.compact_backbone import compact_backbone
from ...models.multitask_bert import MultitaskBert, cerbertus, multi_bert, triple_bert
from ...models.truncate import truncate_backbone
from ...optimizers import schedules
from ...results import RunResult
from ...text import CompactVocabulary
from ...train.ensemble import dev_gated_ensemble
from ...train.further_pretraining import MLMRecipe, further_pretrain
from ...train.layerwise_decay import llrd_optimizer
from ...train.multitask import INPUT_KEYS, MultitaskBatches, MultitaskRecipe, fit_multitask, predict_tasks
from ...train.smart import SMART, SmartNoise
from .. import experiment as base

ARCHITECTURES = ("single", "multi", "cerbertus", "triple")
#: The Sweep keys of notebook 04's ``results.csv``: ``experiment, setting, task, seed`` (then ``metric, value``).
KEYS = ("experiment", "setting", "task", "seed")
#: Which of the paper's three tasks a data set of each kind stands in for (your own CSV replaces that task).
SLOTS = {"classification": "sst", "pairs": "qqp", "pair_regression": "sts", "regression": "sts"}


# --- tasks ---------------------------------------------------------------------------------------------------------


def task_kind(ds) -> str:
    """The multitask kind of a :class:`kit.data.TextDataset`: which head, loss and score its task gets.

    Args:
        ds: the data set.

    Returns:
        ``"classification"`` (softmax, accuracy), ``"binary"`` (two-class pairs: one logit, accuracy, as SerBERTus' QQP
        head) or ``"regression"`` (one score, Pearson).

    Raises:
        ValueError: the data set's task has neither class labels nor a score per text or pair.
    """
    if ds.task in ("regression", "pair_regression"):
        return "regression"
    if ds.task == "pairs" and ds.num_classes == 2:
        return "binary"
    if ds.task in ("classification", "pairs"):
        return "classification"
    raise ValueError(
        f"{ds.name} is a {ds.task!r} data set; SerBERTus' heads need class labels or a score per "
        "text or pair (classification, pairs, regression, pair_regression)."
    )


def task_outputs(ds) -> int:
    """Logits of the head: the number of classes, or 1 (binary, regression).

    Args:
        ds: the :class:`kit.data.TextDataset` (its kind: :func:`task_kind`).

    Raises:
        ValueError: as :func:`task_kind`.
    """
    return int(ds.num_classes) if task_kind(ds) == "classification" else 1


def slot_for(ds) -> str:
    """Which task (``sst``, ``qqp`` or ``sts``) your own data set replaces.

    Texts with classes → SST-5's place, pairs with classes → QQP's, scores (pairs or single texts) → STS-B's
    (:data:`SLOTS`).

    Args:
        ds: your :class:`kit.data.TextDataset`.

    Raises:
        ValueError: the data set's task is none of those notebook 04 takes.
    """
    if ds.task not in SLOTS:
        raise ValueError(f"{ds.name} is a {ds.task!r} data set; notebook 04 takes {sorted(SLOTS)}.")
    return SLOTS[ds.task]


def task_inputs(ds, preprocessor, vocabulary=None) -> dict:
    """``{split: (inputs, labels)}`` for every split of ``ds``, ready for the model.

    Args:
        ds: the :class:`kit.data.TextDataset`.
        preprocessor: makes the model's input dict of a split's texts.
        vocabulary: a :class:`kit.text.CompactVocabulary` to map the inputs to, or None to keep them as they are.

    Returns:
        Per split, the preprocessor's dict (mapped to the compact vocabulary when one is given) and the labels as an
        array.
    """
    out = {}
    for split, part in ds.splits.items():
        x = preprocessor(part.x)
        out[split] = (vocabulary(x) if vocabulary is not None else x, np.asarray(part.labels))
    return out


def load_tasks(sizes: dict, own=None) -> dict:
    """``{slot: TextDataset}`` of the scale's three tasks, each subsampled as its spec says.

    Args:
        sizes: the scale's sizes; ``sizes["tasks"]`` gives each slot's data set, its options, ``max_train`` and
            ``max_eval``.
        own: your data set (``kit.data.notebook_dataset``), or None; it takes the slot of its kind (:func:`slot_for`),
            subsampled as that slot's spec says.

    Raises:
        ValueError: ``own``'s task is none of those notebook 04 takes.
    """
    datasets = {
        t: load(spec["dataset"], max_train=spec["max_train"], max_eval=spec["max_eval"], seed=0, **spec["options"])
        for t, spec in sizes["tasks"].items()
    }
    if own is not None:
        spec = sizes["tasks"][slot_for(own)]
        datasets[slot_for(own)] = own.subsample(spec["max_train"], spec["max_eval"], seed=0)
    return datasets


def kinds_and_heads(datasets: dict) -> tuple[dict, dict]:
    """Each task's kind and number of outputs (:func:`task_kind`, :func:`task_outputs`).

    Args:
        datasets: ``{task: TextDataset}``.

    Returns:
        ``({task: kind}, {task: number of outputs})``.
    """
    return {t: task_kind(ds) for t, ds in datasets.items()}, {t: task_outputs(ds) for t, ds in datasets.items()}


def compact_vocabulary(raw: dict, tokenizer):
    """A :class:`kit.text.CompactVocabulary` of every id the tasks' texts use (all splits): exact for these texts.

    Args:
        raw: ``{task: {split: (inputs, labels)}}`` (:func:`task_inputs` without a vocabulary).
        tokenizer: the tokenizer that made the ids.
    """
    ids = [x["token_ids"] for splits in raw.values() for x, _ in splits.values()]
    return CompactVocabulary.for_tokenizer(tokenizer, ids, tokenizer.vocabulary_size())


def with_vocabulary(raw: dict, vocabulary=None) -> dict:
    """``raw`` with every input mapped to ``vocabulary`` (when given).

    Args:
        raw: ``{task: {split: (inputs, labels)}}``.
        vocabulary: a :class:`kit.text.CompactVocabulary`, or None to keep the inputs as they are.

    Returns:
        ``{task: {split: (inputs, labels)}}``, the labels unchanged.
    """
    return {
        t: {s: (vocabulary(x) if vocabulary is not None else x, y) for s, (x, y) in splits.items()}
        for t, splits in raw.items()
    }


def backbone_factory(name: str, sequence_length: int, vocabulary=None, num_layers: int | None = None):
    """A function that returns a fresh copy of the pretrained encoder (every run starts from the checkpoint).

    The checkpoint is read once; each call builds a new backbone from its config and the kept weights (a fraction of a
    second instead of seconds).

    Args:
        name: the encoder's name (:func:`kit.models.load_backbone`).
        sequence_length: the longest input, in tokens.
        vocabulary: a :class:`kit.text.CompactVocabulary`: the encoder is cut to its ids
            (``kit.models.compact_backbone``); None keeps the whole token table.
        num_layers: keep the encoder's bottom ``num_layers`` layers (``kit.models.truncate``); None keeps them all.

    Returns:
        A function of no arguments that returns a new backbone.
    """
    template = load_backbone(name, sequence_length=sequence_length).backbone
    template = compact_backbone(template, vocabulary) if vocabulary is not None else template
    template = truncate_backbone(template, num_layers)
    cls, config = type(template), template.get_config()
    weights = [keras.ops.convert_to_numpy(w) for w in template.weights]
    del template

    def make_backbone():
        fresh = cls.from_config(config)
        fresh.set_weights(weights)
        return fresh

    return make_backbone


# --- the model and the optimizer -------------------------------------------------------------------------------------


def build_model(
    backbone, heads: dict, architecture: str = "multi", k: int = 0, dropout: float = 0.1, pooling: str = "cls"
) -> MultitaskBert:
    """The multitask model of one architecture on ``backbone``, with a head per task.

    Args:
        backbone: the pretrained encoder.
        heads: ``{task: number of outputs}``.
        architecture: ``"single"``/``"multi"``: one encoder with a head per task; ``"cerbertus"``: per-task top ``k``
            layers; ``"triple"``: a whole encoder per task.
        k: CerBERTus' task-specific top layers (``"cerbertus"`` only; k=0 is multi-BERT).
        dropout: the heads' dropout.
        pooling: ``"cls"`` (BERT's pooler) or ``"mean"`` (the tokens' mean).

    Returns:
        The :class:`kit.models.MultitaskBert`.

    Raises:
        ValueError: an unknown architecture, ``"single"`` with several tasks, or ``"cerbertus"`` with ``k < 1``.
    """
    if architecture not in ARCHITECTURES:
        raise ValueError(f"Unknown architecture {architecture!r}; use one of {ARCHITECTURES}.")
    if architecture == "single" and len(heads) != 1:
        raise ValueError(f"architecture='single' is one task; got {sorted(heads)}. Use 'multi' for several.")
    if architecture in ("single", "multi"):
        return multi_bert(backbone, heads, dropout=dropout, pooling=pooling)
    if architecture == "cerbertus":
        if k < 1:
            raise ValueError(f"CerBERTus needs k >= 1 task-specific layers (k=0 is multi-BERT), got {k}.")
        return cerbertus(backbone, heads, k=k, dropout=dropout, pooling=pooling)
    return triple_bert(backbone, heads, dropout=dropout, pooling=pooling)


# --- one run -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """What one run changes (the paper's one change per experiment); everything else is the :class:`Recipe`.

    Attributes:
        architecture: ``"single"``, ``"multi"``, ``"cerbertus"`` or ``"triple"`` (:func:`build_model`).
        k: CerBERTus' task-specific top layers.
        lambda_s: SMART's weight (0: no SMART).
        decay: the layer-wise decay of the learning rate, in (0, 1] (1: no decay, the same optimizer).
        mlm_steps: masked-LM steps of further pretraining before fine-tuning (0: none).

    Raises:
        ValueError: ``decay`` outside (0, 1].

    Example:
        >>> Setting(architecture="cerbertus", k=1)
        Setting(architecture='cerbertus', k=1, lambda_s=0.0, decay=1.0, mlm_steps=0)
    """

    architecture: str = "single"
    k: int = 0
    lambda_s: float = 0.0
    decay: float = 1.0
    mlm_steps: int = 0

    def __post_init__(self):
        if not 0 < self.decay <= 1:
            raise ValueError(f"decay must be in (0, 1] (1 = no layer-wise decay), got {self.decay}.")


@dataclass(frozen=True)
class Recipe:
    """The recipe every run of notebook 04 shares: fine-tuning's, further pretraining's rate, SMART's noise.

    Attributes:
        learning_rate: the peak learning rate of fine-tuning.
        epochs: epochs over the mixed stream; with more than 1 the epoch with the best mean dev score is kept.
        batch_size: the examples in a batch (one task per batch; further pretraining's batches too).
        warmup: the fraction of the steps the learning rate warms up over (fine-tuning and further pretraining).
        weight_decay: AdamW's weight decay (not on biases and LayerNorm).
        dropout: the heads' dropout.
        mlm_learning_rate: the learning rate of further pretraining.
        smart: SMART's noise (``epsilon, sigma, eta, steps, norm``: a :class:`kit.train.SmartNoise`).
        pooling: ``"cls"`` (BERT's pooler) or ``"mean"`` (the tokens' mean).
        eval_batch_size: the examples per prediction batch.

    Example:
        >>> from kit.papers.serbertus.serbertus_sizes import DEFAULTS, SCALES
        >>> r = Recipe.from_sizes({**DEFAULTS, **SCALES["smoke"]})
        >>> r.smart.sigma, r.eval_batch_size
        (1e-05, 128)
    """

    learning_rate: float = 2e-5
    epochs: int = 1
    batch_size: int = 32
    warmup: float = 0.1
    weight_decay: float = 0.01
    dropout: float = 0.1
    mlm_learning_rate: float = 1e-5
    smart: SmartNoise = SmartNoise()
    pooling: str = "cls"
    eval_batch_size: int = 128

    @classmethod
    def from_sizes(cls, sizes: dict, **changes) -> Recipe:
        """The scale's recipe: the :data:`RECIPE` sizes (``smart`` a dict of :class:`kit.train.SmartNoise`'s fields).

        Args:
            sizes: notebook 04's sizes.
            **changes: fields that differ from the sizes (e.g. ``epochs=1`` for a short solution).
        """
        fields = {k: sizes[k] for k in RECIPE}
        fields["smart"] = SmartNoise(**(fields["smart"] or {}))
        return cls(**{**fields, **changes})


@dataclass
class SettingResult:
    """What one run produced: the trained model, its scores and unrounded predictions per task, and what it cost.

    Attributes:
        model: the trained :class:`kit.models.MultitaskBert` (not the SMART wrapper).
        architecture: the model's architecture (e.g. ``"CerBERTus k=1"``), or ``"single-task"`` for a one-task run.
        dev: ``{task: dev score}`` (accuracy or Pearson).
        test: ``{task: test score}``.
        dev_predictions: ``{task: unrounded dev predictions}`` (what the dev-gated ensemble averages).
        test_predictions: ``{task: unrounded test predictions}``.
        params: the model's size (parameters).
        steps: the optimizer steps of the multitask fit.
        seconds: the run's time, further pretraining and scoring included.
        smart_loss: the final SMART term (None without SMART).
        mlm_curve: the MLM loss curve of further pretraining (``"step"`` and ``"loss"`` lists; None without it).
        history: the fit's history.
        train: ``{task: score}`` on the first :data:`TRAIN_SCORED` training examples (the train-test gap).
    """

    model: MultitaskBert
    architecture: str
    dev: dict
    test: dict
    dev_predictions: dict
    test_predictions: dict
    params: int
    steps: int
    seconds: float
    smart_loss: float | None = None
    mlm_curve: dict | None = None
    history: dict = field(default_factory=dict)
    train: dict = field(default_factory=dict)

    def summary(self) -> dict:
        """Metrics shared by the run's tasks (:func:`record` writes them).

        Returns:
            ``params, steps, seconds`` (+ ``smart_loss``; the MLM loss first, last and after each chunk of further
            pretraining, ``mlm_loss_first``, ``mlm_loss_last``, ``mlm_loss_step<N>``).
        """
        out = {"params": self.params, "steps": self.steps, "seconds": self.seconds}
        if self.smart_loss is not None:
            out["smart_loss"] = self.smart_loss
        if self.mlm_curve:
            out["mlm_loss_first"], out["mlm_loss_last"] = self.mlm_curve["loss"][0], self.mlm_curve["loss"][-1]
            out.update(
                {f"mlm_loss_step{step}": loss for step, loss in zip(self.mlm_curve["step"], self.mlm_curve["loss"])}
            )
        return out


def _stack_inputs(parts: list) -> dict:
    """Concatenate several tasks' input dicts (padding the shorter sequences)."""
    length = max(p["token_ids"].shape[1] for p in parts)
    pad = lambda a: np.pad(a, ((0, 0), (0, length - a.shape[1])))  # noqa: E731
    return {k: np.concatenate([pad(np.asarray(p[k])) for p in parts]) for k in INPUT_KEYS}


def _check_setting(data: dict, kinds: dict, setting: Setting, masker) -> None:
    """Check a setting before anything is seeded or built."""
    if not isinstance(setting, Setting):
        raise TypeError(f"setting must be a serbertus_runs.Setting, got {type(setting).__name__}.")
    if not data:
        raise ValueError("data is empty: give {task: {'train': (x, y), 'dev': (x, y), 'test': (x, y)}}.")
    for task, splits in data.items():
        missing = [s for s in ("train", "dev", "test") if s not in splits]
        if missing:
            raise ValueError(f"Task {task!r} lacks the split(s) {missing}.")
        check_kind(kinds.get(task), task)
    if setting.mlm_steps and masker is None:
        raise ValueError("mlm_steps > 0 needs masker=kit.text.MLMMasker.for_tokenizer(tokenizer, length, ...).")


def _batches_per_task(train: dict, kinds: dict, batch_size: int) -> dict:
    """The full batches each task gives the mixed stream per epoch (its last partial batch dropped)."""
    per_task = MultitaskBatches(train, kinds, batch_size, drop_remainder=True).batches_per_task()
    empty = [t for t, n in per_task.items() if n == 0]
    if empty:
        raise ValueError(f"Tasks {empty} have fewer training examples than one batch ({batch_size}).")
    return per_task


def _further_pretraining(backbone, train: dict, masker, mlm_steps: int, recipe: Recipe, seed: int):
    """Further pretraining: ``mlm_steps`` masked-LM steps of ``backbone`` on the training texts of every task."""
    if not mlm_steps:
        return None
    texts = _stack_inputs([inputs for inputs, _ in train.values()])
    steps = int(mlm_steps)
    mlm = MLMRecipe(steps, recipe.batch_size, recipe.mlm_learning_rate, warmup=recipe.warmup, chunks=min(4, steps))
    return further_pretrain(backbone, texts, masker, mlm, seed=seed).curve


def _optimizer(model, recipe: Recipe, steps: int, decay: float):
    """The run's AdamW: the rate warmed up, then cosine-decayed to 0, scaled per layer by ``decay``, clipped."""
    schedule = schedules.cosine(recipe.learning_rate, steps, round(recipe.warmup * steps))
    return llrd_optimizer(model, model, schedule, decay=decay, weight_decay=recipe.weight_decay, global_clipnorm=1.0)


def _fit(trained, data: dict, kinds: dict, optimizer, recipe: Recipe, seed: int):
    """Train on the mixed stream (each task's last partial batch dropped), keeping the best mean dev epoch."""
    stream = MultitaskRecipe(
        recipe.epochs, recipe.batch_size, drop_remainder=True, eval_batch_size=recipe.eval_batch_size
    )
    return fit_multitask(
        trained,
        {t: splits["train"] for t, splits in data.items()},
        kinds,
        stream,
        optimizer=optimizer,
        dev={t: splits["dev"] for t, splits in data.items()} if recipe.epochs > 1 else None,
        seed=seed,
    )


def _scored_result(model, fit, data: dict, kinds: dict, eval_batch_size: int, start: float, smart_loss, mlm_curve):
    """Predict and score every task's dev and test sets and the first :data:`TRAIN_SCORED` training examples."""
    tasks = list(data)
    dev_p = predict_tasks(model, {t: data[t]["dev"][0] for t in tasks}, kinds, eval_batch_size)
    test_p = predict_tasks(model, {t: data[t]["test"][0] for t in tasks}, kinds, eval_batch_size)
    seen = {t: {k: np.asarray(v)[:TRAIN_SCORED] for k, v in data[t]["train"][0].items()} for t in tasks}
    train_p = predict_tasks(model, seen, kinds, eval_batch_size)
    return SettingResult(
        model=model,
        architecture=model.architecture if len(tasks) > 1 else "single-task",
        dev={t: task_score(kinds[t], data[t]["dev"][1], dev_p[t]) for t in tasks},
        test={t: task_score(kinds[t], data[t]["test"][1], test_p[t]) for t in tasks},
        dev_predictions=dev_p,
        test_predictions=test_p,
        params=int(model.count_params()),
        steps=fit.steps,
        seconds=time.perf_counter() - start,
        smart_loss=smart_loss,
        mlm_curve=mlm_curve,
        history=fit.history,
        train={t: task_score(kinds[t], data[t]["train"][1][:TRAIN_SCORED], train_p[t]) for t in tasks},
    )


def run_setting(
    backbone,
    data: dict,
    kinds: dict,
    heads: dict,
    setting: Setting = Setting(),
    recipe: Recipe = Recipe(),
    *,
    masker=None,
    seed: int = 0,
) -> SettingResult:
    """Train one setting on ``data`` and score it: one run of notebook 04.

    Seeds Python, NumPy and Keras with ``seed`` first. The result also holds each task's score on (the first
    :data:`TRAIN_SCORED` examples of) its training set (``train``): the train-test gap is what a regulariser such as
    SMART shrinks.

    Args:
        backbone: a fresh pretrained encoder (it is trained in place).
        data: ``{task: {"train"|"dev"|"test": (inputs, labels)}}``.
        kinds: ``{task: kind}`` (:func:`task_kind`).
        heads: ``{task: number of outputs}`` (:func:`task_outputs`).
        setting: what this run changes (:class:`Setting`: architecture, ``k``, ``lambda_s``, ``decay``,
            ``mlm_steps``).
        recipe: what every run shares (:class:`Recipe`; ``Recipe.from_sizes(sizes)`` for the scale's).
        masker: a :class:`kit.text.MLMMasker` for the backbone's vocabulary; needed when ``setting.mlm_steps > 0``.
        seed: seeds Python, NumPy and Keras first, then SMART's noise, the stream's order and the MLM masking.

    Returns:
        The :class:`SettingResult`.

    Raises:
        ValueError: ``data`` is empty, a task lacks a split, has an unknown kind or fewer training examples than one
            batch, or ``mlm_steps > 0`` without a ``masker``.
        TypeError: ``setting`` is not a :class:`Setting` or ``recipe`` not a :class:`Recipe`.
    """
    _check_setting(data, kinds, setting, masker)
    if not isinstance(recipe, Recipe):
        raise TypeError(
            f"recipe must be a serbertus_runs.Recipe (Recipe.from_sizes(sizes)), got {type(recipe).__name__}."
        )
    start = time.perf_counter()
    config.set_seed(seed)
    train = {t: splits["train"] for t, splits in data.items()}
    per_task = _batches_per_task(train, kinds, recipe.batch_size)
    mlm_curve = _further_pretraining(backbone, train, masker, setting.mlm_steps, recipe, seed)
    model = build_model(
        backbone, {t: heads[t] for t in data}, setting.architecture, setting.k, recipe.dropout, recipe.pooling
    )
    smart = setting.lambda_s > 0
    trained = SMART(model, model, lambda_s=setting.lambda_s, noise=recipe.smart, seed=seed) if smart else model
    optimizer = _optimizer(model, recipe, recipe.epochs * sum(per_task.values()), setting.decay)
    fit = _fit(trained, data, kinds, optimizer, recipe, seed)
    smart_loss = float(fit.history["smart_loss"][-1]) if smart else None
    return _scored_result(model, fit, data, kinds, recipe.eval_batch_size, start, smart_loss, mlm_curve)


# --- the plan: every setting for every seed ------------------------------------------------------------------------

#: How many training examples per task :func:`run_setting` scores for the train score (the train-test gap).
TRAIN_SCORED = 128

#: The sizes :meth:`Recipe.from_sizes` reads: the recipe of every run.
RECIPE = (
    "learning_rate",
    "epochs",
    "batch_size",
    "warmup",
    "weight_decay",
    "dropout",
    "mlm_learning_rate",
    "smart",
    "pooling",
)
#: The run keys that make its :class:`Setting` (the setting's one change).
OPTIONS = ("architecture", "k", "lambda_s", "decay", "mlm_steps")


def settings(sizes: dict, tasks: list) -> list[tuple]:
    """The notebook's settings, ``(experiment, setting, task, {option: value})``.

    The single-task baseline on every task, the ablations (SMART ``lambda_s``, layer decay, MLM steps) on
    ``sizes["ablation_task"]``, the architectures on all tasks at once, and where the sizes ask for them the jointly
    trained triple-BERT and the paper's best single model.

    Args:
        sizes: the scale's sizes: ``ablation_task``, the grids ``smart_lambdas``, ``llrd_decays``, ``mlm_steps`` and
            ``cerbertus_k``, ``joint_triple`` and ``combined``.
        tasks: the tasks' names; a multitask setting's ``task`` joins them with ``+``.

    Returns:
        The settings; each ``{option: value}`` holds :data:`OPTIONS`, the fields of its :class:`Setting`.
    """
    a, every = sizes["ablation_task"], "+".join(tasks)
    out = [("baseline", "single-task", t, {}) for t in tasks]
    out += [("smart", f"lambda_s={x:g}", a, {"lambda_s": x}) for x in sizes["smart_lambdas"]]
    out += [("llrd", f"decay={d:g}", a, {"decay": d}) for d in sizes["llrd_decays"]]
    out += [("mlm", f"mlm_steps={n}", a, {"mlm_steps": n}) for n in sizes["mlm_steps"]]
    out += [("architecture", "multi-BERT", every, {"architecture": "multi"})]
    out += [
        ("architecture", f"CerBERTus k={k}", every, {"architecture": "cerbertus", "k": k}) for k in sizes["cerbertus_k"]
    ]
    if sizes["joint_triple"]:
        out += [("architecture", "triple-BERT (joint)", every, {"architecture": "triple"})]
    if sizes["combined"]:
        c = sizes["combined"]
        out += [
            (
                "combined",
                f"CerBERTus k={c['k']} + SMART {c['lambda_s']:g} + decay {c['decay']:g}",
                every,
                {"architecture": "cerbertus", **c},
            )
        ]
    return out


def plan(setting_rows: list, sizes: dict, data: dict) -> list[dict]:
    """Every setting for every seed, with the optimizer ``steps`` each plans (the sweep's ETA reads them).

    Args:
        setting_rows: :func:`settings`' rows.
        sizes: the scale's sizes (``seeds``, ``epochs``, ``batch_size``).
        data: ``{task: {split: (inputs, labels)}}``: the training sets' sizes give the steps.

    Returns:
        One dict per run: ``experiment, setting, task, seed, steps`` and the setting's options.
    """

    def steps(task, options):
        per_epoch = sum(len(data[t]["train"][1]) // sizes["batch_size"] for t in task.split("+"))
        return sizes["epochs"] * per_epoch + options.get("mlm_steps", 0)

    return [
        dict(experiment=e, setting=s, task=t, seed=seed, steps=steps(t, o), **o)
        for e, s, t, o in setting_rows
        for seed in sizes["seeds"]
    ]


def to_run_result(setting: SettingResult, epochs: int | None = None, mlm_steps: int = 0) -> RunResult:
    """A :class:`SettingResult` as the shared :class:`kit.results.RunResult`: the rows ``results.csv`` gets.

    Per task ``dev_score`` and ``test_score`` (and ``train_score`` when scored); a multitask run's own rows hold
    ``dev_mean``, ``test_mean`` and :meth:`SettingResult.summary`, its tasks' rows are its ``parts`` (one write); a
    single-task run carries the summary on its task's rows. Every task's unrounded dev and test predictions are saved
    as ``dev__<task>`` and ``test__<task>``.

    Args:
        setting: the run's result.
        epochs: the epochs it ran (None: read from its history).
        mlm_steps: the further pretraining's masked-LM steps before fine-tuning (counted in ``trained_steps``).
    """
    summary = setting.summary()
    steps, seconds = summary.pop("steps"), summary.pop("seconds")
    per_task = {}
    for t in setting.dev:
        per_task[t] = {"dev_score": setting.dev[t], "test_score": setting.test[t]}
        if t in setting.train:
            per_task[t]["train_score"] = setting.train[t]
    if len(per_task) == 1:
        metrics, parts = {**next(iter(per_task.values())), **summary}, {}
    else:
        means = {"dev_mean": float(np.mean(list(setting.dev.values())))}
        means["test_mean"] = float(np.mean(list(setting.test.values())))
        metrics, parts = {**means, **summary}, per_task
    ran = epochs if epochs is not None else len(setting.history.get("loss", []))
    arrays = {f"{split}__{t}": np.asarray(p) for split, preds in (("dev", setting.dev_predictions),
              ("test", setting.test_predictions)) for t, p in preds.items()}  # fmt: skip
    return RunResult(
        metrics,
        seconds=seconds,
        trained={"steps": steps + int(mlm_steps), "epochs": ran},
        predictions=arrays,
        parts=parts,
        model=setting.model,
        details={"setting": setting},
    )


class Experiment(base.Experiment):
    """Notebook 04's runs: :meth:`run_one` trains a planned run, :meth:`record` writes what it produced.

    :meth:`record` saves the run's unrounded dev and test predictions (``predictions/<run>.npz``, for the
    ensembles and the verdicts), keeps a multitask run of the first seed with the best mean dev score so far in
    ``out/best_model/`` (a bundle, ``kit.models.load_bundle``), and writes its scores to ``results.csv``
    (:func:`to_run_result`: a row per task and, for a multitask run, its summary row, in one write).

    Args:
        sizes: the scale's sizes (the :data:`RECIPE` of every run, ``seeds``, the settings' grids).
        datasets: ``{task: TextDataset}``: each task's kind and outputs (:func:`kinds_and_heads`), and its name and
            sizes in the sweep's fingerprint.
        data: ``{task: {split: (inputs, labels)}}``.
        make_backbone: returns a fresh pretrained encoder (:func:`backbone_factory`).
        masker: the :class:`kit.text.MLMMasker` of further pretraining.
        out: the run's output folder.
        **bundle_args: what else the bundle saves (``kit.models.save_bundle_if_best``: e.g. ``preprocessor``,
            ``vocabulary``, ``label_names``).
    """

    KEYS = KEYS
    GROUP = "experiment"  # the experiments differ in cost per step: the ETA fits each alone

    def __init__(self, sizes: dict, datasets: dict, data: dict, make_backbone, masker, out, **bundle_args):
        self.sizes, self.data, self.make_backbone, self.masker = sizes, data, make_backbone, masker
        self.kinds, self.heads = kinds_and_heads(datasets)
        self.best, self.bundle_args = Path(out) / "best_model", bundle_args
        self.recipe = Recipe.from_sizes(sizes)
        fingerprinted = {t: [ds.name, ds.sizes()] for t, ds in datasets.items()}
        super().__init__(
            out, {**sizes, "scale": config.scale(), "precision": config.precision(), "data": fingerprinted}
        )

    def plan(self) -> list[dict]:
        """Every setting (:func:`settings`) for every seed, with its optimizer steps (:func:`plan`)."""
        return plan(settings(self.sizes, list(self.data)), self.sizes, self.data)

    def run_one(self, run: dict) -> RunResult:
        """Train ``run`` from a fresh pretrained encoder and score it.

        Clears the Keras session and seeds everything with the run's seed before the backbone is built (its dropout
        layers draw their seeds then).

        Args:
            run: a row of :func:`plan`.

        Returns:
            The :class:`kit.results.RunResult` (:func:`to_run_result`).
        """
        keras.backend.clear_session()
        config.set_seed(run["seed"])  # before the backbone is built: its dropout layers draw their seeds now
        setting = Setting(**{k: run[k] for k in OPTIONS if k in run})
        tasks = {t: self.data[t] for t in run["task"].split("+")}
        done = run_setting(
            self.make_backbone(),
            tasks,
            self.kinds,
            self.heads,
            setting,
            self.recipe,
            masker=self.masker,
            seed=run["seed"],
        )
        return to_run_result(done, epochs=self.sizes["epochs"], mlm_steps=setting.mlm_steps)

    def keep(self, run: dict, result: RunResult) -> None:
        """Keep a multitask run of the first seed whose mean dev score is the best so far, as a bundle."""
        setting, tasks = result.details["setting"], list(self.data)
        if len(setting.dev) == len(tasks) and run["seed"] == self.sizes["seeds"][0]:
            save_bundle_if_best(
                self.best,
                uncompiled_copy(setting.model),
                float(np.mean(list(setting.dev.values()))),
                config=self.sweep.fingerprint,
                score_name="dev_mean",
                info={
                    "notebook": "04",
                    "run": {k: run[k] for k in KEYS},
                    "output": tasks[0],
                    "kinds": self.kinds,
                    "dev": setting.dev,
                    "test": setting.test,
                },
                **self.bundle_args,
            )


# --- results on disk -------------------------------------------------------------------------------------------------


def by_split(saved: dict) -> dict:
    """A run's saved arrays (``dev__<task>``, ``test__<task>``) as ``{"dev": {task: ...}, "test": {task: ...}}``.

    Example:
        >>> by_split({"dev__sst": [0.1], "test__sst": [0.2]})
        {'dev': {'sst': [0.1]}, 'test': {'sst': [0.2]}}
    """
    out = {"dev": {}, "test": {}}
    for key, value in saved.items():
        split, task = key.split("__", 1)
        out[split][task] = value
    return out


def load_predictions(out, run: dict) -> dict:
    """The unrounded predictions :meth:`Experiment.record` saved for ``run``, by split and task (:func:`by_split`).

    Raises:
        FileNotFoundError: the run's rows are in the CSV but its predictions file is gone (delete those rows, or the
            CSV, and rerun).
    """
    return by_split(base.load_predictions(out, run, KEYS))


def seed_ensembles(predictions: dict, labels: dict, kinds: dict, keep_predictions: bool = False) -> list[dict]:
    """One dev-gated ensemble per seed and task from every model's saved predictions.

    The candidates of a seed are its models that predict the task; the ensemble is
    :func:`kit.train.dev_gated_ensemble` (best model first, a model joins only if the dev score does not drop).

    Args:
        predictions: ``{(model name, seed): {"dev": {task: predictions}, "test": {task: predictions}}}``.
        labels: ``{"dev": {task: y}, "test": {task: y}}``.
        kinds: ``{task: kind}``.
        keep_predictions: also keep the ensemble's and the best single model's test predictions
            (``test_predictions``, ``best_single_test_predictions``: the verdict table's arms).

    Returns:
        One row per (seed, task): ``seed, task, candidates, members, member_names, dev_score, test_score`` of the
        ensemble and ``best_single`` (the model with the best dev score), ``best_single_dev``, ``best_single_test``.
    """
    rows = []
    for seed in sorted({s for _, s in predictions}):
        mine = {name: p for (name, s), p in predictions.items() if s == seed}
        dev = {name: p["dev"] for name, p in mine.items()}
        tasks = [t for t in labels["dev"] if any(t in p for p in dev.values())]
        ens = dev_gated_ensemble(dev, {t: labels["dev"][t] for t in tasks}, kinds)
        for t in tasks:
            e = ens[t]
            test = e.average({name: p["test"][t] for name, p in mine.items() if t in p["test"]})
            first = e.trace[0]["model"]
            kept = {"test_predictions": test, "best_single_test_predictions": mine[first]["test"][t]}
            rows.append(
                {
                    **(kept if keep_predictions else {}),
                    "seed": seed,
                    "task": t,
                    "candidates": len(e.trace),
                    "members": len(e.members),
                    "member_names": " | ".join(e.members),
                    "dev_score": e.dev_score,
                    "test_score": task_score(kinds[t], labels["test"][t], test),
                    "best_single": first,
                    "best_single_dev": e.trace[0]["alone"],
                    "best_single_test": task_score(kinds[t], labels["test"][t], mine[first]["test"][t]),
                }
            )
    return rows


def model_name(run: dict) -> str:
    """How a run is named among an ensemble's candidates: ``"<experiment>: <setting>"``.

    The baseline's three single-task models together are the paper's triple-BERT: ``"triple-BERT (= baseline)"``.

    Args:
        run: the run's keys.
    """
    return "triple-BERT (= baseline)" if run["experiment"] == "baseline" else f"{run['experiment']}: {run['setting']}"


def ensembles(plan_rows: list, out, data: dict, kinds: dict, keep_predictions: bool = False):
    """The dev-gated ensemble of every seed and task (:func:`seed_ensembles`) from the predictions of every planned run.

    Args:
        plan_rows: the planned runs (:func:`plan`).
        out: the output folder their predictions were saved in (:meth:`Experiment.record`).
        data: ``{task: {split: (inputs, labels)}}`` (the dev and test labels).
        kinds: ``{task: kind}``.
        keep_predictions: also keep the test predictions (:func:`seed_ensembles`).

    Returns:
        A data frame, one row per (seed, task).

    Raises:
        FileNotFoundError: a planned run's predictions are missing (:func:`load_predictions`).
    """
    import pandas as pd

    predictions = {}
    for run in plan_rows:
        p = load_predictions(out, run)
        slot = predictions.setdefault((model_name(run), run["seed"]), {"dev": {}, "test": {}})
        slot["dev"].update(p["dev"])
        slot["test"].update(p["test"])
    tasks = list(data)
    labels = {split: {t: data[t][split][1] for t in tasks} for split in ("dev", "test")}
    return pd.DataFrame(seed_ensembles(predictions, labels, kinds, keep_predictions))


def record_ensembles(sweep, ens) -> None:
    """Record each ensemble and the single model it started from (the best by dev) as runs of experiment ``ensemble``.

    Args:
        sweep: the :class:`kit.train.Sweep`.
        ens: :func:`ensembles`' data frame.
    """
    for r in ens.itertuples():
        sweep.record(
            {"experiment": "ensemble", "setting": "dev-gated", "task": r.task, "seed": r.seed},
            {"dev_score": r.dev_score, "test_score": r.test_score, "members": r.members, "candidates": r.candidates},
        )
        sweep.record(
            {"experiment": "ensemble", "setting": "best single model (by dev)", "task": r.task, "seed": r.seed},
            {"dev_score": r.best_single_dev, "test_score": r.best_single_test},
        )
