"""SerBERTus one run at a time (notebook 04), and the files and ensembles its runs make.

A run is a :class:`Setting` (its one change) on the shared :class:`Recipe`; :class:`Experiment` runs :func:`run_setting`
per (setting, seed) and saves rows (:func:`to_run_result`) and predictions (:func:`load_predictions`) so a resumed sweep
can still build the dev-gated ensembles.

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
    """A data set's multitask kind (head, loss and score): ``"classification"``, ``"binary"`` or ``"regression"``.

    ``"binary"``: two-class pairs, one logit (as SerBERTus' QQP head); scores are accuracy, or Pearson for regression.

    Raises:
        ValueError: the task has neither class labels nor a score per text or pair.
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
    """Logits of the head: the number of classes, or 1 (binary, regression); errors as :func:`task_kind`."""
    return int(ds.num_classes) if task_kind(ds) == "classification" else 1


def slot_for(ds) -> str:
    """Which task (``sst``, ``qqp`` or ``sts``) your own data set replaces (:data:`SLOTS`).

    Raises:
        ValueError: the data set's task is none of those notebook 04 takes.
    """
    if ds.task not in SLOTS:
        raise ValueError(f"{ds.name} is a {ds.task!r} data set; notebook 04 takes {sorted(SLOTS)}.")
    return SLOTS[ds.task]


def task_inputs(ds, preprocessor, vocabulary=None) -> dict:
    """``{split: (inputs, labels)}`` for every split of ``ds``; inputs mapped to ``vocabulary`` when given."""
    out = {}
    for split, part in ds.splits.items():
        x = preprocessor(part.x)
        out[split] = (vocabulary(x) if vocabulary is not None else x, np.asarray(part.labels))
    return out


def load_tasks(sizes: dict, own=None) -> dict:
    """``{slot: TextDataset}`` of the scale's three tasks (``sizes["tasks"]``), each subsampled as its spec says.

    ``own`` (your data set, or None) takes the slot of its kind (:func:`slot_for`); ValueError if it fits none.
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
    """``({task: kind}, {task: number of outputs})`` (:func:`task_kind`, :func:`task_outputs`)."""
    return {t: task_kind(ds) for t, ds in datasets.items()}, {t: task_outputs(ds) for t, ds in datasets.items()}


def compact_vocabulary(raw: dict, tokenizer):
    """A :class:`kit.text.CompactVocabulary` of every id the texts of ``raw`` use (all splits): exact for them."""
    ids = [x["token_ids"] for splits in raw.values() for x, _ in splits.values()]
    return CompactVocabulary.for_tokenizer(tokenizer, ids, tokenizer.vocabulary_size())


def with_vocabulary(raw: dict, vocabulary=None) -> dict:
    """``raw`` (``{task: {split: (inputs, labels)}}``) with every input mapped to ``vocabulary`` when given."""
    return {
        t: {s: (vocabulary(x) if vocabulary is not None else x, y) for s, (x, y) in splits.items()}
        for t, splits in raw.items()
    }


def backbone_factory(name: str, sequence_length: int, vocabulary=None, num_layers: int | None = None):
    """A no-argument function returning a fresh copy of the pretrained encoder (each run starts from the checkpoint).

    The checkpoint is read once (a new copy takes a fraction of a second instead of seconds). ``vocabulary`` cuts the
    token table to its ids (``kit.models.compact_backbone``); ``num_layers`` keeps the bottom layers (None: all).
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
    """The :class:`kit.models.MultitaskBert` of one architecture on ``backbone``, a head per task (``{task: outputs}``).

    ``"single"``/``"multi"``: one encoder; ``"cerbertus"``: per-task top ``k`` layers (k=0 is multi-BERT); ``"triple"``:
    an encoder per task. ``pooling``: ``"cls"`` (BERT's pooler) or ``"mean"``.

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

    ``architecture``: ``"single"``, ``"multi"``, ``"cerbertus"`` (top ``k`` layers per task) or ``"triple"``
    (:func:`build_model`); ``lambda_s``: SMART's weight (0: none); ``decay``: layer-wise LR decay in (0, 1] (1: none,
    same optimizer; outside: ValueError); ``mlm_steps``: further-pretraining masked-LM steps (0: none).

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
    """The recipe every run of notebook 04 shares.

    AdamW (no decay on biases and LayerNorm), clipped to global norm 1, rate warmed up over ``warmup`` of the steps
    (the first step already at ``rate / warm-up steps``, not 0), then cosine to 0; one task per batch, all tasks'
    batches shuffled (mt-dnn's sampler), last partial batches dropped. With ``epochs > 1`` the epoch of best mean dev
    score is kept (as the paper reports). ``smart``: a :class:`kit.train.SmartNoise`; ``pooling``: ``"cls"`` or
    ``"mean"``.

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
        """The scale's recipe from its :data:`RECIPE` sizes (``smart`` a dict), ``changes`` overriding fields."""
        fields = {k: sizes[k] for k in RECIPE}
        fields["smart"] = SmartNoise(**(fields["smart"] or {}))
        return cls(**{**fields, **changes})


@dataclass
class SettingResult:
    """What one run produced: trained model, scores and unrounded predictions per task, cost.

    ``architecture`` is e.g. ``"CerBERTus k=1"`` or ``"single-task"``; ``model`` is the
    :class:`kit.models.MultitaskBert` (not the SMART wrapper); scores are accuracy or Pearson; ``seconds`` include
    further pretraining and scoring; ``smart_loss``/``mlm_curve`` are None without them; ``train`` scores the first
    :data:`TRAIN_SCORED` training examples.
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
        """Metrics shared by the run's tasks: ``params, steps, seconds`` (+ ``smart_loss``, ``mlm_loss_*``)."""
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
    """Train one :class:`Setting` on ``data`` (``{task: {split: (x, y)}}``) and score it: one run of notebook 04.

    ``backbone`` is trained in place; ``seed`` seeds Python, NumPy and Keras first, then SMART, stream order and MLM
    masking; ``masker`` (a :class:`kit.text.MLMMasker`) is needed when ``setting.mlm_steps > 0`` (MiniLM has no MLM
    head, so it starts fresh). ``train`` scores hold the train-test gap that SMART shrinks.

    Raises:
        ValueError: empty ``data``, a task lacking a split, of unknown kind or smaller than one batch, or
            ``mlm_steps > 0`` without ``masker``.
        TypeError: ``setting`` not a :class:`Setting` or ``recipe`` not a :class:`Recipe`.
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
    """The notebook's settings, ``(experiment, setting, task, {option: value})`` (options: :data:`OPTIONS`).

    The single-task baseline per task; the ablations (SMART, layer decay, MLM steps) on ``sizes["ablation_task"]``; the
    architectures on all tasks (``task`` joined by ``+``); where the sizes ask, joint triple-BERT and the paper's best
    model.
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
    """Every setting for every seed: dicts of ``experiment, setting, task, seed, steps`` (the ETA's) and options."""

    def steps(task, options):
        per_epoch = sum(len(data[t]["train"][1]) // sizes["batch_size"] for t in task.split("+"))
        return sizes["epochs"] * per_epoch + options.get("mlm_steps", 0)

    return [
        dict(experiment=e, setting=s, task=t, seed=seed, steps=steps(t, o), **o)
        for e, s, t, o in setting_rows
        for seed in sizes["seeds"]
    ]


def to_run_result(setting: SettingResult, epochs: int | None = None, mlm_steps: int = 0) -> RunResult:
    """A :class:`SettingResult` as the :class:`kit.results.RunResult` whose rows ``results.csv`` gets.

    Per task ``dev_score``, ``test_score`` (``train_score``); a multitask run's own rows hold ``dev_mean``,
    ``test_mean`` and the summary, its tasks' rows are ``parts``. Predictions are saved as ``dev__<task>``,
    ``test__<task>``. ``epochs`` None: from the history; ``mlm_steps`` count in ``trained_steps``.
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

    Saves unrounded predictions (``predictions/<run>.npz``), keeps the first seed's multitask run with best mean dev in
    ``out/best_model/`` (``kit.models.load_bundle``), writes scores to ``results.csv``. ``bundle_args``: more for the
    bundle (``preprocessor``, ``vocabulary``, ``label_names``).
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
        """Train and score ``run`` from a fresh encoder (session cleared, seeded before its dropout layers exist)."""
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
        FileNotFoundError: rows are in the CSV, the predictions file is gone (delete those rows, or the CSV, and rerun).
    """
    return by_split(base.load_predictions(out, run, KEYS))


def seed_ensembles(predictions: dict, labels: dict, kinds: dict, keep_predictions: bool = False) -> list[dict]:
    """One dev-gated ensemble (:func:`kit.train.dev_gated_ensemble`) per seed and task of that seed's models.

    ``predictions``: ``{(model name, seed): {"dev"|"test": {task: p}}}``; ``labels``: ``{"dev"|"test": {task: y}}``.
    Rows: ``seed``, ``task``, ``candidates``, ``members``, ``member_names``, ``dev_score``, ``test_score``,
    ``best_single``, ``best_single_dev``, ``best_single_test``; ``keep_predictions`` adds ``test_predictions``,
    ``best_single_test_predictions``.
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
    """A run's name among ensemble candidates: ``"<experiment>: <setting>"``, or ``"triple-BERT (= baseline)"``."""
    return "triple-BERT (= baseline)" if run["experiment"] == "baseline" else f"{run['experiment']}: {run['setting']}"


def ensembles(plan_rows: list, out, data: dict, kinds: dict, keep_predictions: bool = False):
    """A data frame of :func:`seed_ensembles` (a row per seed and task) from the saved predictions of all planned runs.

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
    """Record each ensemble and its best single model (by dev) as runs of experiment ``ensemble`` in ``sweep``."""
    for r in ens.itertuples():
        sweep.record(
            {"experiment": "ensemble", "setting": "dev-gated", "task": r.task, "seed": r.seed},
            {"dev_score": r.dev_score, "test_score": r.test_score, "members": r.members, "candidates": r.candidates},
        )
        sweep.record(
            {"experiment": "ensemble", "setting": "best single model (by dev)", "task": r.task, "seed": r.seed},
            {"dev_score": r.best_single_dev, "test_score": r.best_single_test},
        )
