"""Notebook 04's exercises: the shared set-up of a small SerBERTus experiment, so a solution shows its experiment.

Every exercise of notebook 04 loads one or two of the scale's tasks (fewer examples at smoke), encodes them with
MiniLM's WordPiece, cuts the token table to the ids they use and needs a fresh copy of the pretrained encoder for each
model it trains. :func:`small_tasks` does all of that once; :func:`recipe_optimizer` is the notebook's AdamW
(warm-up, cosine, layer-wise rates, clipped), and :func:`mean_se` formats a score over seeds.

>>> import kit
>>> setup = small_tasks(max_train=48, max_eval=32)           # doctest: +SKIP
>>> model = kit.papers.serbertus.serbertus_runs.build_model(  # doctest: +SKIP
...     setup.make_backbone(), setup.heads, "single", pooling=setup.S["pooling"])
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ... import analysis, config, models, papers, train
from ...models.compact_backbone import compact_backbone
from . import serbertus_runs as runs


def _copier(template):
    """A function that returns a fresh copy of ``template`` (its config and its weights): every run starts equal."""

    def make_backbone():
        fresh = type(template).from_config(template.get_config())
        fresh.set_weights(template.get_weights())
        return fresh

    return make_backbone


def small_tasks(tasks=None, max_train=None, max_eval=None, smoke_layers: int = 2, sizes=None) -> SimpleNamespace:
    """Some of notebook 04's tasks at the scale's sizes (or fewer examples), encoded, with a fresh-encoder factory.

    Args:
        tasks: the task slots (``"sst"``, ``"qqp"``, ``"sts"``); None: the ablation task alone.
        max_train: training examples per task (None: the scale's own).
        max_eval: dev and test examples per task (None: the scale's own).
        smoke_layers: MiniLM's bottom layers kept at smoke scale (other scales keep the sizes' ``encoder_layers``).
        sizes: notebook 04's sizes (default: ``kit.papers.sizes("serbertus")`` at ``KIT_SCALE``).

    Returns:
        A namespace: ``S`` (the sizes), ``smoke``, ``A`` (the first task), ``tasks``, ``datasets``, ``data``
        (``{task: {split: (inputs, labels)}}``), ``kinds``, ``heads``, ``make_backbone`` (a fresh pretrained encoder
        per call), ``guess`` (``{task: the constant guess's test score}``) and ``seed`` (the sizes' first).
    """
    S = dict(sizes or papers.sizes("serbertus"))
    smoke = config.scale() == "smoke"
    tasks = list(tasks or [S["ablation_task"]])
    limits = {k: v for k, v in (("max_train", max_train), ("max_eval", max_eval)) if v is not None}
    datasets = runs.load_tasks({**S, "tasks": {t: S["tasks"][t] | limits for t in tasks}})
    enc = models.load_backbone(S["backbone"], sequence_length=S["sequence_length"])
    raw = {t: runs.task_inputs(ds, enc.preprocessor) for t, ds in datasets.items()}
    vocab = runs.compact_vocabulary(raw, enc.tokenizer) if S["compact_vocabulary"] else None
    data = runs.with_vocabulary(raw, vocab)
    kinds, heads = runs.kinds_and_heads(datasets)
    template = compact_backbone(enc.backbone, vocab) if vocab is not None else enc.backbone
    template = models.truncate_backbone(template, smoke_layers if smoke else S["encoder_layers"])
    guess = {
        t: analysis.constant_guess(
            data[t]["train"][1], data[t]["test"][1], "pearson" if kinds[t] == "regression" else "accuracy"
        )
        for t in tasks
    }
    return SimpleNamespace(
        S=S, smoke=smoke, A=tasks[0], tasks=tasks, datasets=datasets, data=data, kinds=kinds, heads=heads,
        make_backbone=_copier(template), guess=guess, seed=S["seeds"][0],
    )  # fmt: skip


def recipe_optimizer(model, S: dict, steps: int, decay: float = 1.0, **options):
    """The notebook's AdamW for ``steps`` steps: warm-up then cosine, rates per layer (``decay``), clipped to norm 1.

    Args:
        model: the :class:`kit.models.MultitaskBert` (its own backbone is the one ``decay`` counts).
        S: notebook 04's sizes (``learning_rate``, ``warmup``, ``weight_decay``).
        steps: the optimizer steps of the run.
        decay: the layer-wise decay (1: one rate for every layer).
        **options: :func:`kit.train.llrd_optimizer`'s other options (``embeddings``, ``head_multiplier``).

    Returns:
        ``(optimizer, schedule)``.
    """
    schedule = train.schedules.cosine(S["learning_rate"], steps, round(S["warmup"] * steps))
    optimizer = train.llrd_optimizer(
        model, model, schedule, decay=decay, weight_decay=S["weight_decay"], global_clipnorm=1.0, **options
    )
    return optimizer, schedule


def mean_se(values) -> str:
    """``"mean ± standard error"`` of scores over seeds (just the mean for one seed)."""
    v = np.asarray(values, dtype=float)
    return analysis.format_mean_se(v.mean(), v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan)
