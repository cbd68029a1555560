"""The three strategies of arXiv 1907.05338 on one task: its inputs, its models, one training run (notebook 03).

:func:`encode_task` makes :class:`TaskData`; :func:`build_model` puts a rich head, or the paper's light finetune-only
head, on the backbone; :class:`ReusableBackbone` gives each run the pretrained encoder afresh; :func:`train_strategy`
trains by a :class:`kit.train.FreezeRecipe`, watching whether the encoder's weights change, and predicts the test split.

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
>>> recipe = FreezeRecipe(phase1_epochs=2, phase2_epochs=1, batch_size=4)
>>> run = train_strategy(build_model(bb, task, hidden_dim=8), bb, task, "stack_and_finetune", recipe)
>>> [p.name for p in run.result.phases], run.encoder_changed, run.test_outputs.shape
(['phase1', 'phase2'], [False, True], (8, 2))
"""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field, replace

import keras
import numpy as np

from ... import config
from ...files import atomic_write
from ...metrics.classification import macro_f1
from ...metrics.masked_tokens import MaskedAccuracy, MaskedSparseCategoricalCrossentropy
from ...metrics.tagging_scores import entity_scores, token_accuracy
from ...models import heads
from ...models.bundle import save_bundle_if_best
from ...models.heads import TokenTaggerHead, build_classifier, build_stacked_model
from ...results import RunResult
from ...text.alignment import align_labels, word_predictions
from ...text.wordpiece import BertPreprocessor
from ...train.ensemble import average_predictions
from ...train.freeze import STRATEGIES, FreezeRecipe, StackResult, stack_and_finetune
from ...train.freeze_helpers import EncoderWatch, optimizer_factory, planned_epochs
from .. import experiment as base
from .stack_and_finetune_sizes import matched_budget

#: The task kinds the three strategies run on, and the dataset task each one reads.
KINDS = {"tagging": "tagging", "classification": "classification", "pairs": "pairs"}


@dataclass
class TaskData:
    """One task encoded for a BERT backbone: inputs and labels per split.

    ``kind``: ``"tagging"``, ``"classification"`` or ``"pairs"``; ``x``: ``{split: inputs}`` (``token_ids``,
    ``segment_ids``, ``padding_mask``); ``y``: class ids ``(N,)`` or token labels ``(N, T)`` (a word's label at its
    first sub-token, ``kit.models.IGNORE`` elsewhere). Tagging only (else None): ``words`` (gold ids per word),
    ``aligned`` (to map tokens back to words). ``info``: notes, e.g. ``{split}_truncated`` (tagging sentences the
    sequence length cut).
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
        """How many classes or tags."""
        return len(self.label_names)

    @property
    def is_entity_task(self) -> bool:
        """True when the labels are BIO/IOBES chunk tags (entity-level F1 applies)."""
        return self.kind == "tagging" and any(n[:2] in ("B-", "I-", "S-", "E-") for n in self.label_names)

    def sizes(self) -> dict:
        """``{split: number of examples}``."""
        return {s: len(v["token_ids"]) for s, v in self.x.items()}

    def steps_per_epoch(self, batch_size: int) -> int:
        """Optimizer steps in one epoch over the training split: ``ceil(train examples / batch_size)``."""
        return math.ceil(self.sizes()["train"] / batch_size)

    def word_outputs(self, token_outputs, split: str = "test", fill: int = -1) -> list[list[int]]:
        """Tagging: one list of predicted label ids per sentence from ``(N, T, tags)`` outputs, ``fill`` for cut words.

        Raises:
            ValueError: the task is not a tagging task.
        """
        if self.kind != "tagging":
            raise ValueError(f"{self.name} is a {self.kind} task: word outputs are for tagging.")
        return word_predictions(token_outputs, self.aligned[split], fill=fill)


def encode_task(ds, preprocessor, name: str | None = None, splits=("train", "dev", "test")) -> TaskData:
    """A tagging, classification or pairs :class:`~kit.data.TextDataset` → :class:`TaskData` for ``preprocessor``.

    Tagging: word labels move to each word's first sub-token (``kit.models.align_labels``). ``name``: default
    ``ds.name``.

    Raises:
        ValueError: ``ds`` is not tagging, classification or pairs (no regression here), has no label names, or the
            wrong number of texts per example for its kind.
    """
    if ds.task not in KINDS.values():
        raise ValueError(
            f"{ds.name} is a {ds.task!r} set; the three strategies run on {sorted(KINDS)} tasks "
            "(class labels or word tags; regression targets are not supported here)."
        )
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
                raise ValueError(
                    f"{ds.name}: a {kind} set needs {'two texts' if kind == 'pairs' else 'one text'} per example."
                )
            x[s] = preprocessor(split.x)
            y[s] = np.asarray(split.labels, dtype="int32")
    return TaskData(name or ds.name, kind, list(ds.label_names), x, y, words or None, aligned or None, info)


def light_head(task: TaskData, hidden_dim: int, dropout: float = 0.1) -> keras.layers.Layer:
    """The paper's finetune-only tagging ``TokenTaggerHead``: per token Dense(``hidden_dim``, ReLU) → Dense(tags)."""
    return TokenTaggerHead(task.num_labels, n_layers=0, hidden_dim=hidden_dim, dropout=dropout, name="head")


def build_model(
    backbone,
    task: TaskData,
    head: keras.layers.Layer | None = None,
    *,
    hidden_dim: int | None = None,
    dropout: float = 0.1,
    name: str | None = None,
    pooling: str = "cls",
) -> keras.Model:
    """``backbone`` with ``head`` on its token states, or (``head=None``) the paper's light finetune-only head.

    Light ("two fully connected layers"): per token for tagging (:func:`light_head`); for texts and pairs pooled
    ``[CLS]`` (BERT's pooler) → Dense(``hidden_dim``, tanh) → logits, or with ``pooling="mean"`` the mean token state
    (MiniLM's lower layers' [CLS] barely varies). A rich head reads ``kit.models.build_stacked_model``'s token-state
    dict and leaves the pooler (``pooled_dense``) without gradients, so it is set untrainable (:class:`ReusableBackbone`
    restores it per run). ``hidden_dim`` defaults to the backbone's; ``name`` to ``{task}_light`` or
    ``{task}_{head name}``.
    """
    hidden_dim = hidden_dim or backbone.hidden_dim
    name = name or f"{task.name}_{'light' if head is None else head.name}"
    if head is None and task.kind != "tagging":
        return build_classifier(
            backbone, task.num_labels, dropout=dropout, hidden_dim=hidden_dim, name=name, pooling=pooling
        )
    pooler = getattr(backbone, "pooled_dense", None)
    if pooler is not None:  # the head reads the token states only: no gradient reaches BERT's pooler, keep it fixed
        pooler.trainable = False
    return build_stacked_model(backbone, head or light_head(task, hidden_dim, dropout), name=name)


@dataclass
class StrategyRun:
    """One trained model: the scheduler's :class:`~kit.train.StackResult`, the encoder's fate per phase, test outputs.

    ``encoder_changed``: per phase, whether any encoder weight changed; ``test_outputs``: logits ``(N, classes)`` or
    ``(N, T, tags)``; ``steps``: of every phase's epochs; ``seconds``: training and predicting.
    """

    strategy: str
    result: StackResult
    encoder_changed: list
    test_outputs: np.ndarray  # logits: (N, classes) or (N, T, tags)
    steps: int
    seconds: float

    def phase(self, name: str):
        """The ``result.phases`` entry called ``name`` (``"phase1"``, ...), or None when the run had no such phase."""
        for p in self.result.phases:
            if p.name == name:
                return p
        return None

    def summary(self) -> dict:
        """Numbers for ``results.csv``: ``dev_best``, ``steps``, ``seconds`` and per phase its flags and sizes.

        Per phase: ``{phase}_epochs``, ``_max_epochs``, ``_trainable_params``, ``_encoder_frozen``,
        ``_encoder_changed``, ``_stopped_early`` (0/1 flags).
        """
        out = {"dev_best": float(self.result.best_dev), "steps": self.steps, "seconds": self.seconds}
        for p, changed in zip(self.result.phases, self.encoder_changed):
            out[f"{p.name}_epochs"] = p.epochs
            out[f"{p.name}_max_epochs"] = p.max_epochs
            out[f"{p.name}_trainable_params"] = p.trainable_params
            out[f"{p.name}_encoder_frozen"] = int(p.encoder_frozen)
            out[f"{p.name}_encoder_changed"] = int(changed)
            out[f"{p.name}_stopped_early"] = int(bool(p.stopped))
        return out


def loss_and_metrics(task: TaskData):
    """``(MaskedSparseCategoricalCrossentropy, factory of [MaskedAccuracy])`` for tagging, else ``(None, None)``."""
    if task.kind == "tagging":
        return MaskedSparseCategoricalCrossentropy(), (lambda: [MaskedAccuracy(name="accuracy")])
    return None, None


def freeze_recipe(sizes: dict) -> FreezeRecipe:
    """The scale's :class:`kit.train.FreezeRecipe`: phase rates and epochs, batch, phase 1's divergence rule, decay.

    :func:`train_strategy` adds the task's loss and BERT-Adam.

    Example:
        >>> from kit.papers.stack_and_finetune.stack_and_finetune_sizes import DEFAULTS, SCALES
        >>> r = freeze_recipe({**DEFAULTS, **SCALES["smoke"]})
        >>> r.phase1_epochs, r.phase2_epochs, r.batch_size, r.divergence
        (4, 2, 16, {'threshold': 0.05, 'patience': 2})
    """
    return FreezeRecipe(
        phase1_lr=sizes["phase1_lr"],
        phase2_lr=sizes["phase2_lr"],
        phase1_epochs=sizes["phase1_epochs"],
        phase2_epochs=sizes["phase2_epochs"],
        batch_size=sizes["batch_size"],
        divergence={"threshold": sizes["divergence_threshold"], "patience": sizes["divergence_patience"]},
        weight_decay=sizes["weight_decay"],
    )


def train_strategy(
    model: keras.Model,
    encoder,
    task: TaskData,
    strategy: str,
    recipe: FreezeRecipe,
    *,
    schedule: str = "bert_adam",
    warmup: float = 0.1,
    verbose: int = 0,
    keep_stack_only: bool = False,
) -> StrategyRun:
    """Train ``model`` by ``strategy`` on ``task`` (``kit.train.stack_and_finetune``), then predict the test split.

    Loss and metrics are the task's (:func:`loss_and_metrics`), the optimizer BERT-Adam per phase
    (``kit.train.optimizer_factory``). ``encoder`` is frozen by the scheduler and watched (``encoder_changed`` per
    phase); phase 1 and the best epoch watch dev ``accuracy`` (tagging: over words). ``schedule``: ``"bert_adam"``
    (warm-up over ``warmup`` of a phase's steps, then linear decay) or ``"constant"``; prediction batches: at least 64.
    ``keep_stack_only`` (stack-and-finetune): keep the stack-only run its phase 1 may be (:func:`stack_only_of`).

    Raises:
        ValueError: ``strategy`` is not one of ``kit.train.STRATEGIES``.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"Unknown strategy {strategy!r}: use one of {STRATEGIES}.")
    loss, metrics = loss_and_metrics(task)
    r = recipe
    steps = task.steps_per_epoch(r.batch_size)
    bert_adam = optimizer_factory(strategy, steps, r.phase1_epochs, r.phase2_epochs, schedule, warmup, r.weight_decay)
    watch = EncoderWatch(encoder)
    t = time.perf_counter()
    result = stack_and_finetune(
        model,
        encoder,
        (task.x["train"], task.y["train"]),
        (task.x["dev"], task.y["dev"]),
        replace(recipe, loss=loss, metrics=metrics, optimizer=bert_adam),
        strategy=strategy,
        callbacks=[watch],
        verbose=verbose,
        keep_stack_only=keep_stack_only,
    )
    return _predicted_run(model, task, strategy, result, watch, t, r.batch_size)


def stack_only_of(model: keras.Model, task: TaskData, run: StrategyRun, batch_size: int) -> StrategyRun | None:
    """The stack-only run inside ``run``, a stack-and-finetune run trained with ``keep_stack_only``, or None.

    Until the divergence rule stops it, stack-and-finetune's phase 1 is the same training as a stack-only run with the
    same recipe and seed: the same weights, batches and dropout masks, epoch for epoch (the freeze scheduler's tests
    hold it). When phase 1 ran all its epochs, ``model`` with phase 1's best dev epoch predicts the test split as that
    stack-only run would, and ``model`` gets its own weights back. ``seconds``: phase 1's and that prediction's.
    """
    alone = run.result.stack_only
    if alone is None:
        return None
    own, t = model.get_weights(), time.perf_counter()
    model.set_weights(run.result.stack_only_weights)
    try:
        outputs = _test_outputs(model, task, batch_size)
    finally:
        model.set_weights(own)
    seconds = alone.phases[0].seconds + time.perf_counter() - t
    steps = alone.phases[0].epochs * task.steps_per_epoch(batch_size)
    return StrategyRun("stack_only", alone, run.encoder_changed[:1], outputs, steps, seconds)


def _test_outputs(model, task: TaskData, batch_size: int) -> np.ndarray:
    """``model``'s float32 outputs on the test split, in batches of at least 64."""
    return np.asarray(model.predict(task.x["test"], batch_size=max(batch_size, 64), verbose=0), "float32")


def _predicted_run(model, task: TaskData, strategy: str, result: StackResult, watch, started: float, batch_size: int):
    """Predict the test split, then time the run from ``started`` and count its steps: a :class:`StrategyRun`."""
    outputs = _test_outputs(model, task, batch_size)
    seconds = time.perf_counter() - started
    steps = sum(p.epochs for p in result.phases) * task.steps_per_epoch(batch_size)
    return StrategyRun(strategy, result, watch.changed, outputs, steps, seconds)


# --- a run's scores ---------------------------------------------------------------------------------------------------


def score(task, outputs, split: str = "test") -> dict:
    """Scores of ``outputs`` (logits or probabilities, ``(N, classes)`` or ``(N, T, tags)``) against ``split``'s labels.

    ``{"accuracy", "macro_f1"}`` for texts and pairs; tagging: word-level ``token_accuracy`` and, for BIO chunk tags,
    ``entity_f1``, ``entity_precision``, ``entity_recall``, ``entities`` (gold count). A word cut by the sequence length
    counts as wrong.

    Raises:
        ValueError: ``outputs`` has not one row per example of ``split``.

    Example:
        >>> task = TaskData("toy", "classification", ["a", "b"], {}, {"test": np.array([0, 1, 1, 0])})
        >>> s = score(task, np.array([[2.0, 0.0], [0.0, 1.0], [3.0, 0.0], [1.0, 0.0]]))
        >>> s["accuracy"], round(s["macro_f1"], 3)
        (0.75, 0.733)
    """
    outputs = np.asarray(outputs)
    n = len(task.y[split])
    if len(outputs) != n:
        raise ValueError(
            f"{task.name}: {len(outputs)} outputs for the {n} examples of its {split!r} split; "
            "predict the same split you score."
        )
    if task.kind != "tagging":
        y = np.asarray(task.y[split])
        pred = outputs.argmax(-1)
        return {"accuracy": float((pred == y).mean()), "macro_f1": macro_f1(y, pred, task.num_labels)}
    gold = task.words[split]
    pred = task.word_outputs(outputs, split, fill=-1)  # a word cut off by the sequence length counts as wrong
    out = {"token_accuracy": token_accuracy(gold, pred)}
    if task.is_entity_task:
        names = task.label_names
        outside = names.index("O") if "O" in names else 0
        as_tags = lambda seqs: [[names[t if t >= 0 else outside] for t in s] for s in seqs]  # noqa: E731
        e = entity_scores(as_tags(gold), as_tags(pred))
        out.update(entity_f1=e["f1"], entity_precision=e["precision"], entity_recall=e["recall"], entities=e["n_true"])
    return out


#: The label id :func:`word_array` puts after a sentence's last word (a word cut by the sequence length is -1).
PAD = -100


def word_array(task, outputs, split: str = "test") -> np.ndarray:
    """Tagging: int32 predicted label ids per word, ``(sentences, longest sentence)``, as ``predictions/`` keeps them.

    A word the sequence length cut is ``-1`` (scored wrong), a place after a sentence's last word :data:`PAD`.

    Example:
        >>> from kit.text.alignment import align_labels
        >>> from kit.text import BertPreprocessor, WordPieceTokenizer
        >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b"]
        >>> pre = BertPreprocessor(WordPieceTokenizer(vocab), 4)
        >>> a = align_labels([["a", "b", "a"], ["b"]], [[0, 1, 0], [1]], pre)
        >>> task = TaskData("t", "tagging", ["x", "y"], {}, {}, {"test": [[0, 1, 0], [1]]}, {"test": a})
        >>> word_array(task, np.eye(2)[[[0, 0, 1, 0], [0, 1, 0, 0]]]).tolist()     # "a b" fit, the last "a" cut
        [[0, 1, -1], [1, -100, -100]]
    """
    rows = task.word_outputs(outputs, split, fill=-1)
    out = np.full((len(rows), max((len(r) for r in rows), default=0)), PAD, "int32")
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


#: The columns of a run's per-epoch curve (:func:`curve_rows`), as saved with its predictions.
CURVE_COLUMNS = ("phase", "epoch", "global_epoch", "train", "dev", "loss", "val_loss", "encoder_frozen", "stopped")


def curve_columns(rows: list[dict]) -> dict:
    """:func:`curve_rows`' rows as one array per column (text columns as strings), the way a run saves them.

    Example:
        >>> cols = curve_columns([{"phase": "phase1", "epoch": 0, "dev": 0.5, "stopped": ""}])
        >>> cols["phase"].tolist(), cols["dev"].tolist()
        (['phase1'], [0.5])
    """
    names = [c for c in CURVE_COLUMNS if any(c in r for r in rows)] or list(CURVE_COLUMNS)
    out = {}
    for c in names:
        values = [r.get(c) for r in rows]
        text = c in ("phase", "stopped")
        out[c] = np.array([str(v) for v in values]) if text else np.array(values, dtype="float64")
    return out


def curve_rows(run, **keys) -> list[dict]:
    """One row per epoch of every phase of a :class:`StrategyRun` (or ``StackResult``), ``keys`` first.

    Columns: ``phase, epoch, global_epoch, train, dev, loss, val_loss, encoder_frozen, stopped`` (why a phase ended).
    """
    result = getattr(run, "result", run)
    frozen = {p.name: p.encoder_frozen for p in result.phases}
    why = {p.name: p.stopped or "" for p in result.phases}
    return [{**keys, **r, "encoder_frozen": frozen[r["phase"]], "stopped": why[r["phase"]]} for r in result.curve()]


# --- the notebook's tasks, heads and runs -----------------------------------------------------------------------

#: The Sweep keys of notebook 03's ``results.csv`` (then ``metric, value``).
KEYS = ("task", "model", "strategy", "seed")
#: The rich heads, by the names ``sizes["heads"]`` and ``sizes["section_heads"]`` use.
HEADS = {
    "bilstm": "TokenTaggerHead",
    "densenet": "DenseCNNHead",
    "highway": "HighwayBiLSTMHead",
    "bimpm": "BiMPMHead",
    "sim_transformer": "SimTransformerHead",
}


def encode_tasks(data: dict, specs: dict, tokenizer) -> dict:
    """``{name: TaskData}`` of ``data``, each tokenized at its spec's ``sequence_length`` (:func:`encode_task`)."""
    return {
        name: encode_task(ds, BertPreprocessor(tokenizer, specs[name]["sequence_length"])) for name, ds in data.items()
    }


def rich_head(name: str, num_labels: int, sizes: dict) -> keras.layers.Layer:
    """The rich head ``name`` (a key of :data:`HEADS`), sized by ``sizes["heads"][name]``, dropout ``sizes["dropout"]``.

    Raises:
        ValueError: ``name`` is not a rich head.
    """
    if name not in HEADS:
        raise ValueError(f"Unknown head {name!r}; the rich heads are {sorted(HEADS)}.")
    head = getattr(heads, HEADS[name])  # a grouped size (DenseNet's blocks, the transformer's layers) is gathered
    return head.from_sizes(num_labels, sizes["heads"][name], dropout=sizes["dropout"], name=name)


#: finetune-only trained for as many epochs as stack-and-finetune's two phases together (``sizes["matched_budget"]``).
MATCHED = "finetune_only_matched"


def recipe_of(strategy: str, recipe: FreezeRecipe) -> tuple[str, FreezeRecipe]:
    """``(strategy for the freeze scheduler, recipe)`` of a planned strategy.

    :data:`MATCHED` is finetune-only whose one phase lasts ``phase1_epochs + phase2_epochs`` epochs.

    Example:
        >>> strategy, r = recipe_of(MATCHED, FreezeRecipe(phase1_epochs=4, phase2_epochs=2))
        >>> strategy, r.phase1_epochs, r.phase2_epochs
        ('finetune_only', 4, 6)
    """
    if strategy != MATCHED:
        return strategy, recipe
    return "finetune_only", replace(recipe, phase2_epochs=recipe.phase1_epochs + recipe.phase2_epochs)


def plan(models: dict, sizes: dict, tasks: dict) -> list[dict]:
    """Rows ``{task, model, strategy, seed, steps}``: every run of the sweep, every seed, with its planned steps.

    Per task: light-head finetune-only (+ :data:`MATCHED` where :func:`matched_budget`), then each rich head
    stack-and-finetune and stack-only (+ finetune-only where ``sizes["rich_head_finetune"]``; + :data:`MATCHED` for the
    heads in ``sizes["rich_head_matched"]`` on matched-budget tasks). ``models``: ``{task: [model names]}``, light
    first. Stack-and-finetune comes before stack-only: :class:`Experiment` takes stack-only from its phase 1 where it
    can.
    """
    out = []
    epochs = FreezeRecipe(phase1_epochs=sizes["phase1_epochs"], phase2_epochs=sizes["phase2_epochs"])
    rich = (["finetune_only"] if sizes["rich_head_finetune"] else []) + ["stack_and_finetune", "stack_only"]
    for name, task_models in models.items():
        matched = matched_budget(sizes, name)
        light = [("light", "finetune_only")] + ([("light", MATCHED)] if matched else [])
        heads = [(h, s) for h in task_models[1:] for s in rich]
        heads += [(h, MATCHED) for h in task_models[1:] if matched and h in (sizes.get("rich_head_matched") or ())]
        for m, s in light + heads:
            for seed in sizes["seeds"]:
                s_run, r = recipe_of(s, epochs)
                most = planned_epochs(s_run, r.phase1_epochs, r.phase2_epochs)
                out.append(
                    dict(
                        task=name,
                        model=m,
                        strategy=s,
                        seed=seed,
                        steps=most * tasks[name].steps_per_epoch(sizes["batch_size"]),
                    )
                )
    return out


def by_section(tasks: dict, specs: dict) -> dict:
    """``{"tagging"|"classification"|"pairs": [task names]}``: the paper's three experiments, by spec ``section``."""
    return {sec: [n for n in tasks if specs[n]["section"] == sec] for sec in ("tagging", "classification", "pairs")}


class Experiment(base.Experiment):
    """Notebook 03's runs on one reusable pretrained encoder: models, one run, and what a run keeps.

    :meth:`record` saves test predictions (logits; tagging: :func:`word_array`) and the per-epoch curve in
    ``predictions/<run>.npz``, keeps the best stack-and-finetune classifier by dev accuracy in ``best_model/``, and
    writes scores and scheduler summary to ``results.csv``. ``encoder``: a :class:`ReusableBackbone`, ``backbone`` its
    name. A stack-and-finetune run whose phase 1 ran all its epochs also holds the stack-only run of its head and seed
    (:func:`stack_only_of`): :meth:`run_one` returns that one when the plan reaches it, instead of training it again.
    """

    KEYS = KEYS
    GROUP = "strategy"  # the ETA times each strategy by its own runs: a stack-only run kept from phase 1 takes ~0 s

    def __init__(self, sizes: dict, tasks: dict, specs: dict, encoder, tokenizer, out, backbone: str):
        self.sizes, self.tasks, self.specs, self.encoder, self.tokenizer = sizes, tasks, specs, encoder, tokenizer
        self.models = {name: ["light"] + sizes["section_heads"][specs[name]["section"]] for name in tasks}
        self.recipe = freeze_recipe(sizes)
        self.schedule = {"schedule": sizes["schedule"], "warmup": sizes["warmup"]}  # BERT-Adam per phase
        self.shared: dict[tuple, RunResult] = {}  # stack-only runs kept from stack-and-finetune's phase 1
        fingerprinted = {**sizes, "tasks": specs, "scale": config.scale(), "precision": config.precision()}
        super().__init__(out, {**fingerprinted, "backbone": backbone})

    def plan(self) -> list[dict]:
        """Per task: the light head's finetune-only, each rich head's strategies, every seed (:func:`plan`)."""
        return plan(self.models, self.sizes, self.tasks)

    def make_model(self, task_name: str, model_name: str) -> keras.Model:
        """The encoder (pretrained weights put back) with the light or rich head ``model_name`` (``{task}_{model}``)."""
        task = self.tasks[task_name]
        head = None if model_name == "light" else rich_head(model_name, task.num_labels, self.sizes)
        return build_model(
            self.encoder.fresh(),
            task,
            head,
            hidden_dim=self.sizes["light_hidden_dim"],
            dropout=self.sizes["dropout"],
            pooling=self.sizes["light_pooling"],
            name=f"{task_name}_{model_name}",
        )

    def run_one(self, run: dict) -> RunResult:
        """Train ``run``, seeded by its ``seed``, and score it on the test split.

        The :class:`kit.results.RunResult` holds scores and scheduler summary, epochs and steps, test predictions
        (``test``), curve (``curve__<column>``), the model and ``details["strategy_run"]``. A stack-only run kept from
        its stack-and-finetune run (:func:`stack_only_of`) is returned as it is, without its model.
        """
        key = (run["task"], run["model"], run["seed"])
        if run["strategy"] == "stack_only" and key in self.shared:
            return self.shared.pop(key)
        gc.collect()  # the previous run's model goes first
        config.set_seed(run["seed"])
        model = self.make_model(run["task"], run["model"])
        strategy, recipe = recipe_of(run["strategy"], self.recipe)
        task = self.tasks[run["task"]]
        keep = strategy == "stack_and_finetune" and recipe.patience is None
        done = train_strategy(
            model, self.encoder.backbone, task, strategy, recipe, **self.schedule, keep_stack_only=keep
        )
        alone = stack_only_of(model, task, done, recipe.batch_size) if keep else None
        if alone is not None:
            self.shared[key] = self._result(task, alone, None)
        return self._result(task, done, model)

    def _result(self, task: TaskData, done: StrategyRun, model) -> RunResult:
        """The :class:`kit.results.RunResult` of a trained run: scores, scheduler summary, predictions, curve."""
        summary = done.summary()
        summary.pop("steps"), summary.pop("seconds")
        outputs = word_array(task, done.test_outputs) if task.kind == "tagging" else done.test_outputs
        curve = curve_columns(curve_rows(done))
        return RunResult(
            {**score(task, done.test_outputs), **summary},
            seconds=done.seconds,
            trained={"epochs": sum(p.epochs for p in done.result.phases), "steps": done.steps},
            predictions={"test": outputs, **{f"curve__{c}": v for c, v in curve.items()}},
            model=model,
            details={"strategy_run": done},
        )

    def keep(self, run: dict, result: RunResult) -> None:
        """Keep the best stack-and-finetune classifier so far (by dev accuracy) in ``best_model/``."""
        task = self.tasks[run["task"]]
        if task.kind == "classification" and run["strategy"] == "stack_and_finetune":
            save_bundle_if_best(
                self.out / "best_model",
                result.model,
                result.details["strategy_run"].result.best_dev,
                config=self.sweep.fingerprint,
                score_name="dev_accuracy",
                info={"notebook": "03", **{k: run[k] for k in KEYS}},
                preprocessor=BertPreprocessor(self.tokenizer, self.specs[run["task"]]["sequence_length"]),
                label_names=task.label_names,
            )

    def curves(self):
        """A DataFrame of every run's per-epoch curves (run keys, then :func:`curve_rows`' columns): ``curves.csv``."""
        import pandas as pd

        done = self.sweep.results().drop_duplicates(list(KEYS))
        rows = []
        for run in done[list(KEYS)].to_dict("records"):
            if run["model"] in ("constant guess", "ensemble"):
                continue
            saved = self.predictions(run)
            columns = {c.removeprefix("curve__"): v for c, v in saved.items() if c.startswith("curve__")}
            rows.append(pd.DataFrame(columns).assign(**run))
        frame = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=[*KEYS, *CURVE_COLUMNS])
        frame = frame[[*KEYS, *[c for c in frame.columns if c not in KEYS]]]
        atomic_write(self.out / "curves.csv", frame.to_csv(index=False))
        return frame

    def record_ensembles(self, names: list) -> None:
        """Experiment B's ensemble of tasks ``names``, scored and written as model ``ensemble``.

        Per task, strategy and seed: the mean of the rich heads' class probabilities
        (``kit.train.average_predictions``), where all are there.
        """
        done = {tuple(r) for r in self.sweep.results()[list(KEYS)].astype(str).itertuples(index=False)}
        for name in names:
            members = [h for h in self.models[name] if h != "light"]
            for strategy in ("stack_only", "stack_and_finetune"):
                for seed in self.sizes["seeds"]:
                    runs = [dict(task=name, model=m, strategy=strategy, seed=seed) for m in members]
                    if all(tuple(str(r[k]) for k in KEYS) in done for r in runs):
                        probs = average_predictions([self.predictions(r)["test"] for r in runs])
                        self.sweep.record(
                            dict(task=name, model="ensemble", strategy=strategy, seed=seed),
                            score(self.tasks[name], probs),
                        )
