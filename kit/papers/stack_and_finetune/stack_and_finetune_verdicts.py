"""Notebook 03's verdict table: every comparison from each seed's test predictions, Holm across the table.

:func:`arm` turns one (task, model, strategy)'s ``predictions/<run>.npz`` into :func:`kit.analysis.compare_arms`' input
per seed; :func:`plan_comparisons` lists the comparisons and which are budget-matched; :func:`verdict_table` makes the
table (``kit.analysis.verdict_table``).

>>> import numpy as np
>>> counts = np.array([[1, 2], [0, 1], [2, 2]])      # 3 sentences: right entities, predicted entities
>>> round(entity_f1_of_counts(counts, np.array([2, 1, 2])), 3)     # 2 x 3 / (5 + 5)
0.6
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from ...analysis.verdicts import compare_arms
from ...analysis.verdicts import verdict_table as _verdict_table
from ...metrics.classification import macro_f1
from ...metrics.tagging_scores import entity_scores
from ...train.ensemble import average_predictions
from ..experiment import load_predictions, predictions_path
from .stack_and_finetune_report import comparison_name, primary_metric
from .stack_and_finetune_runs import KEYS, MATCHED

LIGHT, FT, SO, SF = "light", "finetune_only", "stack_only", "stack_and_finetune"


def ratio_of_sums(counts, totals) -> float:
    """``sum(counts) / sum(totals)``: token accuracy from right words and words per sentence (0 for no words).

    Example:
        >>> ratio_of_sums(np.array([3, 1]), np.array([4, 4]))
        0.5
    """
    total = float(np.sum(totals))
    return float(np.sum(counts)) / total if total else 0.0


def entity_f1_of_counts(counts, gold) -> float:
    """Micro entity F1 ``2 right / (predicted + gold)`` from per-sentence counts (0 when there are no entities).

    ``counts``: ``(sentences, 2)``, right and predicted entities; ``gold``: per sentence. Equals conlleval's F1 over the
    whole test set's spans.
    """
    counts = np.asarray(counts)
    denominator = float(counts[:, 1].sum() + np.sum(gold))
    return 2 * float(counts[:, 0].sum()) / denominator if denominator else 0.0


def _macro_f1(predictions, labels, num_labels: int) -> float:
    """Macro-F1 of predicted class ids against ``labels``."""
    return float(macro_f1(labels, predictions, num_labels))


def sentence_counts(task, words) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per test sentence: ``(right words (N,), words (N,), entities (N, 3))``.

    Entities: right, predicted, gold ((N, 0) for non-entity tags). ``words``: predicted label id per word, as
    ``stack_and_finetune_runs.word_array`` saves them (-1: cut).
    """
    names = task.label_names
    outside = names.index("O") if "O" in names else 0
    right, n, entities = [], [], []
    for gold, row in zip(task.words["test"], words):
        pred = [int(t) for t in row[: len(gold)]]
        right.append(sum(int(g == p) for g, p in zip(gold, pred)))
        n.append(len(gold))
        if task.is_entity_task:
            e = entity_scores([[names[t] for t in gold]], [[names[t if t >= 0 else outside] for t in pred]])
            entities.append((e["n_correct"], e["n_pred"], e["n_true"]))
    return np.array(right), np.array(n), np.array(entities, dtype=int).reshape(len(n), -1)


def _outputs(out: Path, task: str, model: str, strategy: str, seed, members: list) -> np.ndarray | None:
    """One run's saved test predictions, or the mean class probabilities of ``members`` for ``ensemble``."""
    names = members if model == "ensemble" else [model]
    runs = [dict(task=task, model=m, strategy=strategy, seed=seed) for m in names]
    if not runs or not all(predictions_path(out, r, KEYS).exists() for r in runs):
        return None
    loaded = [load_predictions(out, r, KEYS)["test"] for r in runs]
    return average_predictions(loaded) if model == "ensemble" else loaded[0]


def arm(folder, task, model: str, strategy: str, seeds, metric: str, members: list = ()) -> tuple[dict, dict]:
    """``({seed: per-example test results}, {"labels", "score"} or {})`` of a (task, model, strategy).

    Accuracy: 1/0 per example; macro-F1: predicted classes, ``score`` recomputing it per draw; token accuracy and entity
    F1 (ratios of sums over sentences): per-sentence counts, ``score`` recomputing the ratio per bootstrap draw of
    sentences. ``model`` ``"ensemble"`` averages ``members``' probabilities; a seed without its file is left out.

    Raises:
        ValueError: a metric the task's kind does not have.
    """
    found = {s: _outputs(Path(folder), task.name, model, strategy, s, list(members)) for s in seeds}
    found = {s: o for s, o in found.items() if o is not None}
    if task.kind != "tagging" and metric in ("accuracy", "macro_f1"):
        y = np.asarray(task.y["test"])
        if metric == "accuracy":
            return {s: (o.argmax(-1) == y).astype(float) for s, o in found.items()}, {}
        score = partial(_macro_f1, num_labels=task.num_labels)
        return {s: o.argmax(-1) for s, o in found.items()}, {"labels": y, "score": score}
    if task.kind == "tagging" and metric in ("token_accuracy", "entity_f1"):
        counts = {s: sentence_counts(task, o) for s, o in found.items()}
        gold = sentence_counts(task, np.full((len(task.words["test"]), max(map(len, task.words["test"]))), -1))
        if metric == "token_accuracy":
            return {s: c[0] for s, c in counts.items()}, {"labels": gold[1], "score": ratio_of_sums}
        return {s: c[2][:, :2] for s, c in counts.items()}, {"labels": gold[2][:, 2], "score": entity_f1_of_counts}
    raise ValueError(f"{task.name} is a {task.kind} task: no per-example {metric!r} (use {primary_metric(task)!r}).")


def epochs_of(strategy: str, sizes: dict) -> int:
    """Most epochs ``strategy`` trains: finetune-only ``phase2_epochs``, stack-only ``phase1_epochs``, others both.

    Example:
        >>> sizes = {"phase1_epochs": 4, "phase2_epochs": 2}
        >>> [epochs_of(s, sizes) for s in (FT, MATCHED, SO, SF)]
        [2, 6, 4, 6]
    """
    p1, p2 = sizes["phase1_epochs"], sizes["phase2_epochs"]
    return {FT: p2, MATCHED: p1 + p2, SO: p1, SF: p1 + p2}[strategy]


def _task_pairs(section: str, heads: list, has) -> list[tuple]:
    """``(a, b)`` of one task's comparisons on its primary metric, each ``(model, strategy)``."""
    ft = (LIGHT, MATCHED) if has(LIGHT, MATCHED) else (LIGHT, FT)
    rich, pairs = heads[1:], []
    for h in rich + (["ensemble"] if section == "classification" else []):
        pairs += [((h, SF), ft), ((h, SF), (h, SO)), ((h, FT), (LIGHT, FT))]
        pairs += [((h, SF), (h, MATCHED)), ((h, MATCHED), (LIGHT, MATCHED))]  # the schedule, the head: equal epochs
    if len(rich) == 2:
        pairs += [((rich[1], s), (rich[0], s)) for s in (SO, SF)]
    return [(a, b) for a, b in pairs if has(*a) and has(*b)]


def _note(a: tuple, b: tuple, sizes: dict) -> str:
    """What the comparison sets apart, and the epochs each arm plans (what each trained is in the budget columns)."""
    ea, eb = epochs_of(a[1], sizes), epochs_of(b[1], sizes)
    if ea != eb:
        return f"planned budgets differ: {ea} vs {eb} epochs, no control at equal epochs"
    if a[0] == b[0]:
        return f"the schedule: one head, up to {ea} epochs each"
    if a[1] == b[1]:
        return f"the head: {a[1]} both, up to {ea} epochs each"
    return f"{a[1]} and {b[1]}, up to {ea} epochs each"


def _paper_effect(paper_rows: list, section: str, metric: str, a: tuple, b: tuple) -> float | None:
    """The paper's ``a - b`` for this comparison (a fraction), where it reports one (its finetune-only side either)."""
    for r in paper_rows:
        b_paper = tuple(r["b"])
        same_b = b == b_paper or (b_paper == (LIGHT, FT) and b == (LIGHT, MATCHED))
        if (r["section"], r["metric"], tuple(r["a"])) == (section, metric, a) and same_b and r["paper"] is not None:
            value = float(r["paper"])
            return None if value != value else value / 100
    return None


def plan_comparisons(tasks: dict, specs: dict, models: dict, ran: set, sizes: dict, paper, task_of: dict) -> list:
    """Every comparison of the verdict table: per task on its primary metric, then the paper's other rows.

    Per rich head (and ensemble): stack-and-finetune against finetune-only (the light head's for both phases' epochs
    where it ran: :data:`~stack_and_finetune_runs.MATCHED`, the only budget-matched control) and its own stack-only;
    where run, its own finetune-only against the light head's, schedule and head apart at equal epochs; the two rich
    heads against each other. Then the paper's rows not yet in. Dicts
    ``task, metric, a, b, budget_matched, note, effect`` (``budget_matched``: both arms plan as many epochs; ``effect``:
    the paper's ``a - b`` as a fraction, or None).
    """
    out, seen = [], set()
    rows = paper.to_dict("records") if hasattr(paper, "to_dict") else list(paper)

    def add(name, metric, a, b):
        if (name, metric, a, b) not in seen:
            seen.add((name, metric, a, b))
            matched = epochs_of(a[1], sizes) == epochs_of(b[1], sizes)
            effect = _paper_effect(rows, specs[name]["section"], metric, a, b)
            out.append(dict(task=name, metric=metric, a=a, b=b, budget_matched=matched, note=_note(a, b, sizes),
                            effect=effect))  # fmt: skip

    for name, task in tasks.items():
        has = lambda m, s, n=name: (n, m, s) in ran  # noqa: E731
        for a, b in _task_pairs(specs[name]["section"], models[name], has):
            add(name, primary_metric(task), a, b)
    for r in rows:
        name = task_of.get(r["section"])
        a, b = tuple(r["a"]), tuple(r["b"])
        b = (LIGHT, MATCHED) if b == (LIGHT, FT) and (name, LIGHT, MATCHED) in ran else b
        if name in tasks and r["metric"] in metrics_of(tasks[name]) and {(name, *a), (name, *b)} <= ran:
            add(name, r["metric"], a, b)
    return out


def metrics_of(task) -> tuple:
    """:func:`arm`'s metrics: tagging ``token_accuracy`` (+ ``entity_f1``), else ``accuracy``, ``macro_f1``."""
    if task.kind == "tagging":
        return ("token_accuracy", "entity_f1") if task.is_entity_task else ("token_accuracy",)
    return ("accuracy", "macro_f1")


def budgets(results, members: dict) -> dict:
    """What each (task, model, strategy) trained: ``{key: {"steps", "epochs"}}``, means over seeds of the runs' records.

    A phase 1 stopped early counts the epochs it ran; an ensemble's is its ``members``' sum. Empty for runs recorded
    before they kept it.

    Example:
        >>> import pandas as pd
        >>> rows = [("t", "h", "stack_only", s, m, v) for s in (0, 1) for m, v in (("trained_steps", 8 + 2 * s),)]
        >>> budgets(pd.DataFrame(rows, columns=["task", "model", "strategy", "seed", "metric", "value"]), {})
        {('t', 'h', 'stack_only'): {'steps': 9.0}}
    """
    kept = results[results.metric.isin(["trained_steps", "trained_epochs"])]
    out = {}
    means = kept.groupby(["task", "model", "strategy", "metric"]).value.mean()
    for (task, model, strategy, metric), v in means.items():
        out.setdefault((task, model, strategy), {})[metric.removeprefix("trained_")] = float(v)
    for task, heads in members.items():
        for strategy in {s for (t, _, s) in out if t == task}:
            parts = [out.get((task, h, strategy)) for h in heads]
            if heads and all(parts):
                out[(task, "ensemble", strategy)] = {k: sum(p[k] for p in parts) for k in parts[0]}
    return out


def verdict_table(folder, tasks: dict, comparisons: list, seeds, members: dict, trained: dict | None = None):
    """The notebook's verdict table (``kit.analysis.verdict_table``, in points) over ``comparisons``.

    Arms are read from ``folder`` (:func:`arm`); one with fewer than 2 seeds is left out (``table.attrs["left_out"]``).
    Where ``trained`` (:func:`budgets`) holds both arms, what they trained decides the budget, else the planned epochs.
    Rows are named by ``stack_and_finetune_report.comparison_name``.

    Raises:
        ValueError: no comparison has 2 seeds in both arms.
    """
    rows, left_out, trained = [], [], trained or {}
    for c in comparisons:
        task, name = tasks[c["task"]], comparison_name(c["task"], c["metric"], c["a"], c["b"])
        (xa, options), (xb, _) = (
            arm(folder, task, *side, seeds, c["metric"], members.get(c["task"], ())) for side in (c["a"], c["b"])
        )
        if min(len(xa), len(xb)) < 2:
            left_out.append(name)
            continue
        spent_a, spent_b = trained.get((c["task"], *c["a"])), trained.get((c["task"], *c["b"]))
        spent = {"budget_matched": c["budget_matched"]}
        if spent_a and spent_b:
            spent = dict(budget_a=spent_a, budget_b=spent_b)
        rows.append(compare_arms(xa, xb, name, note=c["note"], effect=c.get("effect"), **spent, **options))
    if not rows:
        raise ValueError(f"No comparison has predictions of 2 seeds in both arms in {folder}; left out: {left_out}.")
    table = _verdict_table(rows, scale=100)
    table.attrs["left_out"] = left_out
    return table
