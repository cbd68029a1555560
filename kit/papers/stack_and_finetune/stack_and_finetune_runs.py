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

import gc
import math
import time
from dataclasses import dataclass, field

import keras
import numpy as np

from ... import config
from ...metrics.classification import macro_f1
from ...metrics.masked_tokens import MaskedAccuracy, MaskedSparseCategoricalCrossentropy
from ...metrics.tagging_scores import entity_scores, token_accuracy
from ...models import heads
from ...models.bundle import save_bundle_if_best
from ...models.heads import TokenTaggerHead, build_classifier, build_stacked_model
from ...text.alignment import align_labels, word_predictions
from ...text.wordpiece import BertPreprocessor
from ...train.ensemble import average_predictions
from ...train.freeze import STRATEGIES, StackResult, stack_and_finetune
from ...train.freeze_helpers import EncoderWatch, optimizer_factory, planned_epochs
from .stack_and_finetune_sizes import matched_budget

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
        if self.kind != "tagging":
            raise ValueError(f"{self.name} is a {self.kind} task: word outputs are for tagging.")
        return word_predictions(token_outputs, self.aligned[split], fill=fill)


def encode_task(ds, preprocessor, name: str | None = None, splits=("train", "dev", "test")) -> TaskData:
    """A tagging, classification or pairs :class:`~kit.data.TextDataset` → :class:`TaskData` for ``preprocessor``."""
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
    """The paper's finetune-only tagging head: per token, Dense(``hidden_dim``, ReLU) → Dense(tags)."""
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
        return build_classifier(
            backbone, task.num_labels, dropout=dropout, hidden_dim=hidden_dim, name=name, pooling=pooling
        )
    pooler = getattr(backbone, "pooled_dense", None)
    if pooler is not None:  # the head reads the token states only: no gradient reaches BERT's pooler, keep it fixed
        pooler.trainable = False
    return build_stacked_model(backbone, head or light_head(task, hidden_dim, dropout), name=name)


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


def loss_and_metrics(task: TaskData):
    """``(loss, metrics factory)`` for the task: masked token loss/accuracy for tagging, else None (the defaults)."""
    if task.kind == "tagging":
        return MaskedSparseCategoricalCrossentropy(), (lambda: [MaskedAccuracy(name="accuracy")])
    return None, None


def train_strategy(
    model: keras.Model,
    encoder,
    task: TaskData,
    strategy: str,
    *,
    phase1_lr: float = 1e-3,
    phase2_lr: float = 2e-5,
    phase1_epochs: int = 0,
    phase2_epochs: int = 0,
    batch_size: int = 32,
    divergence="default",
    patience: int | None = None,
    weight_decay: float = 0.01,
    schedule: str = "bert_adam",
    warmup: float = 0.1,
    verbose: int = 0,
) -> StrategyRun:
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
    result = stack_and_finetune(
        model,
        encoder,
        task.x["train"],
        task.y["train"],
        task.x["dev"],
        task.y["dev"],
        strategy=strategy,
        phase1_lr=phase1_lr,
        phase2_lr=phase2_lr,
        phase1_epochs=phase1_epochs,
        phase2_epochs=phase2_epochs,
        batch_size=batch_size,
        loss=loss,
        metrics=metrics,
        divergence=divergence,
        patience=patience,
        optimizer=optimizer_factory(
            strategy, task.steps_per_epoch(batch_size), phase1_epochs, phase2_epochs, schedule, warmup, weight_decay
        ),
        callbacks=[watch],
        verbose=verbose,
    )
    outputs = np.asarray(model.predict(task.x["test"], batch_size=max(batch_size, 64), verbose=0), "float32")
    seconds = time.perf_counter() - t
    steps = sum(p.epochs for p in result.phases) * task.steps_per_epoch(batch_size)
    return StrategyRun(strategy, result, watch.changed, outputs, steps, seconds)


# --- a run's scores ---------------------------------------------------------------------------------------------------


def score(task, outputs, split: str = "test") -> dict:
    """Scores of ``outputs`` (logits or probabilities) against ``task``'s ``split`` labels.

    Accuracy and macro-F1 for texts and pairs; word-level token accuracy for tagging, plus entity-level
    precision/recall/F1 when the tags are BIO chunks.

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


def curve_rows(run, **keys) -> list[dict]:
    """One row per epoch of every phase of a :class:`StrategyRun` (or ``StackResult``).

    Columns: ``keys``, ``phase, epoch, global_epoch, train, dev, loss, val_loss``,
    ``encoder_frozen`` and ``stopped`` (why the phase ended early, on its rows).
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
    """``{name: TaskData}``: each task tokenized by ``tokenizer`` at its spec's ``sequence_length``."""
    return {
        name: encode_task(ds, BertPreprocessor(tokenizer, specs[name]["sequence_length"])) for name, ds in data.items()
    }


def rich_head(name: str, num_labels: int, sizes: dict) -> keras.layers.Layer:
    """The rich head ``name`` (a key of :data:`HEADS`), sized by ``sizes["heads"][name]``, dropout
    ``sizes["dropout"]``.
    """
    if name not in HEADS:
        raise ValueError(f"Unknown head {name!r}; the rich heads are {sorted(HEADS)}.")
    return getattr(heads, HEADS[name])(num_labels, **sizes["heads"][name], dropout=sizes["dropout"], name=name)


#: finetune-only trained for as many epochs as stack-and-finetune's two phases together (``sizes["matched_budget"]``).
MATCHED = "finetune_only_matched"


def recipe_of(strategy: str, recipe: dict) -> tuple[str, dict]:
    """``(strategy for the freeze scheduler, recipe)``: :data:`MATCHED` is finetune-only whose one phase lasts
    ``phase1_epochs + phase2_epochs`` epochs.

    >>> recipe_of(MATCHED, {"phase1_epochs": 4, "phase2_epochs": 2})
    ('finetune_only', {'phase1_epochs': 4, 'phase2_epochs': 6})
    """
    if strategy != MATCHED:
        return strategy, recipe
    return "finetune_only", {**recipe, "phase2_epochs": recipe["phase1_epochs"] + recipe["phase2_epochs"]}


def plan(models: dict, sizes: dict, tasks: dict) -> list[dict]:
    """Every run: per task the light head finetune-only (and, where :func:`matched_budget`, finetune-only for
    as many epochs as stack-and-finetune's two phases: :data:`MATCHED`), then each rich head stack-only and
    stack-and-finetune (and finetune-only where ``sizes["rich_head_finetune"]``), for every seed, with its planned
    optimizer steps.
    """
    out = []
    rich = (["finetune_only"] if sizes["rich_head_finetune"] else []) + ["stack_only", "stack_and_finetune"]
    for name, task_models in models.items():
        light = [("light", "finetune_only")] + ([("light", MATCHED)] if matched_budget(sizes, name) else [])
        for m, s in light + [(h, s) for h in task_models[1:] for s in rich]:
            for seed in sizes["seeds"]:
                s_run, r = recipe_of(s, sizes)
                epochs = planned_epochs(s_run, r["phase1_epochs"], r["phase2_epochs"])
                out.append(
                    dict(
                        task=name,
                        model=m,
                        strategy=s,
                        seed=seed,
                        steps=epochs * tasks[name].steps_per_epoch(sizes["batch_size"]),
                    )
                )
    return out


def by_section(tasks: dict, specs: dict) -> dict:
    """``{section: [task names]}`` for the paper's three experiments (tagging, classification, pairs)."""
    return {sec: [n for n in tasks if specs[n]["section"] == sec] for sec in ("tagging", "classification", "pairs")}


class Experiment:
    """Notebook 03's runs on one reusable pretrained encoder: models, one run, and what a run writes.

    :meth:`record` appends the run's scores and scheduler summary to the sweep's ``results.csv``, its per-epoch
    curve to ``curves.csv``, the test outputs of texts and pairs to ``predictions/`` (for the ensemble), and the
    best stack-and-finetune classifier by dev accuracy to ``best_model/``.
    """

    def __init__(self, sizes: dict, tasks: dict, specs: dict, encoder, tokenizer, out, sweep):
        self.sizes, self.tasks, self.specs, self.encoder = sizes, tasks, specs, encoder
        self.tokenizer, self.sweep = tokenizer, sweep
        self.out, self.curves_path, self.predictions = out, out / "curves.csv", out / "predictions"
        self.predictions.mkdir(parents=True, exist_ok=True)
        self.models = {name: ["light"] + sizes["section_heads"][specs[name]["section"]] for name in tasks}
        self.recipe = {
            k: sizes[k]
            for k in (
                "phase1_lr",
                "phase2_lr",
                "phase1_epochs",
                "phase2_epochs",
                "batch_size",
                "weight_decay",
                "schedule",
                "warmup",
            )
        }
        self.recipe["divergence"] = {
            "threshold": sizes["divergence_threshold"],
            "patience": sizes["divergence_patience"],
        }

    def make_model(self, task_name: str, model_name: str) -> keras.Model:
        """The encoder (pretrained weights put back) with the light head or the rich head ``model_name``."""
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

    def run_one(self, run: dict) -> tuple:
        """Train ``run`` (a row of :func:`plan`): ``(model, StrategyRun)``."""
        config.set_seed(run["seed"])
        model = self.make_model(run["task"], run["model"])
        strategy, recipe = recipe_of(run["strategy"], self.recipe)
        return model, train_strategy(model, self.encoder.backbone, self.tasks[run["task"]], strategy, **recipe)

    def record(self, run: dict, model: keras.Model, result: StrategyRun) -> None:
        """Write what ``run`` produced (curve, predictions, best model, scores); the model is then let go."""
        import pandas as pd

        task, keys = self.tasks[run["task"]], {k: run[k] for k in KEYS}
        curve = pd.DataFrame(curve_rows(result, **keys, config=self.sweep.fingerprint))
        curve.to_csv(self.curves_path, mode="a", header=not self.curves_path.exists(), index=False)
        if task.kind != "tagging":
            np.save(self.predictions / "{task}__{model}__{strategy}__{seed}.npy".format(**keys), result.test_outputs)
        if task.kind == "classification" and run["strategy"] == "stack_and_finetune":
            save_bundle_if_best(
                self.out / "best_model",
                model,
                result.result.best_dev,
                config=self.sweep.fingerprint,
                score_name="dev_accuracy",
                info={"notebook": "03", **keys},
                preprocessor=BertPreprocessor(self.tokenizer, self.specs[run["task"]]["sequence_length"]),
                label_names=task.label_names,
            )
        self.sweep.record(run, {**score(task, result.test_outputs), **result.summary()})
        del model
        gc.collect()

    def curves(self):
        """This configuration's per-epoch curves (``curves.csv``)."""
        import pandas as pd

        frame = pd.read_csv(self.curves_path)
        return frame[frame.config == self.sweep.fingerprint]

    def record_ensembles(self, names: list) -> None:
        """The ensemble of Experiment B: per task, strategy and seed, the average of the rich heads' class
        probabilities (``kit.train.average_predictions``), scored and written as model ``ensemble``.
        """
        for name in names:
            members = [h for h in self.models[name] if h != "light"]
            for strategy in ("stack_only", "stack_and_finetune"):
                for seed in self.sizes["seeds"]:
                    files = [self.predictions / f"{name}__{m}__{strategy}__{seed}.npy" for m in members]
                    if all(f.exists() for f in files):
                        probs = average_predictions([np.load(f) for f in files])
                        self.sweep.record(
                            dict(task=name, model="ensemble", strategy=strategy, seed=seed),
                            score(self.tasks[name], probs),
                        )
