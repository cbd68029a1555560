"""Scoring and drawing the three strategies (arXiv 1907.05338): task scores, phase curves, the comparison table.

- :func:`score` gives a trained model's test scores from its outputs: accuracy
  and macro-F1 for texts and pairs; word-level token accuracy for tagging,
  plus entity-level precision/recall/F1 when the tags are BIO chunks.
- :func:`curve_rows` flattens a run's per-epoch history (all phases) with the
  reason phase 1 stopped; :func:`plot_phase_curve` draws train vs dev accuracy
  with the end of phase 1 marked.
- :func:`strategy_table` puts mean ± standard error over seeds side by side,
  one column per strategy, with stack-and-finetune's differences to the other two.

>>> import numpy as np
>>> from kit.train.stacking import TaskData
>>> task = TaskData("toy", "classification", ["a", "b"], {}, {"test": np.array([0, 1, 1, 0])})
>>> s = score(task, np.array([[2.0, 0.0], [0.0, 1.0], [3.0, 0.0], [1.0, 0.0]]))
>>> s["accuracy"], round(s["macro_f1"], 3)
(0.75, 0.733)
"""

from __future__ import annotations

import numpy as np

from .spread import difference, format_mean_se, summarize
from .tagging import entity_scores, token_accuracy

#: The metric each kind of task is compared on (tagging: entity F1 where the tags are entities).
PRIMARY = {"classification": "accuracy", "pairs": "accuracy", "tagging": "token_accuracy"}


def primary_metric(task) -> str:
    """``entity_f1`` for an entity task, else the kind's headline metric (``PRIMARY``)."""
    return "entity_f1" if task.is_entity_task else PRIMARY[task.kind]


def macro_f1(y_true, y_pred, n_classes: int) -> float:
    """Unweighted mean over classes of F1 (a class never predicted nor present is skipped).

    >>> round(macro_f1([0, 0, 1, 1], [0, 1, 1, 1], 2), 3)
    0.733
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    f1s = []
    for c in range(n_classes):
        tp = int(((y_pred == c) & (y_true == c)).sum())
        fp = int(((y_pred == c) & (y_true != c)).sum())
        fn = int(((y_pred != c) & (y_true == c)).sum())
        if tp + fp + fn == 0:
            continue
        f1s.append(2 * tp / (2 * tp + fp + fn))
    return float(np.mean(f1s)) if f1s else 0.0


def score(task, outputs, split: str = "test") -> dict:
    """Scores of ``outputs`` (logits or probabilities) against ``task``'s ``split`` labels."""
    outputs = np.asarray(outputs)
    n = len(task.y[split])
    if len(outputs) != n:
        raise ValueError(f"{task.name}: {len(outputs)} outputs for the {n} examples of its {split!r} split; "
                         "predict the same split you score.")
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
        out.update(entity_f1=e["f1"], entity_precision=e["precision"], entity_recall=e["recall"],
                   entities=e["n_true"])
    return out


def curve_rows(run, **keys) -> list[dict]:
    """One row per epoch of every phase of a :class:`kit.train.stacking.StrategyRun` (or ``StackResult``).

    Columns: ``keys``, ``phase, epoch, global_epoch, train, dev, loss, val_loss``,
    ``encoder_frozen`` and ``stopped`` (why the phase ended early, on its rows).
    """
    result = getattr(run, "result", run)
    frozen = {p.name: p.encoder_frozen for p in result.phases}
    why = {p.name: p.stopped or "" for p in result.phases}
    return [{**keys, **r, "encoder_frozen": frozen[r["phase"]], "stopped": why[r["phase"]]}
            for r in result.curve()]


def phase1_story(curve) -> str:
    """One sentence on where phase 1 of a stack-and-finetune curve stopped and why (``curve``: its rows)."""
    rows = [r for r in (curve.to_dict("records") if hasattr(curve, "to_dict") else curve) if r["phase"] == "phase1"]
    if not rows:
        return "no phase 1 (finetune-only)"
    n, reason = len(rows), rows[-1]["stopped"]
    last = rows[-1]
    head = f"phase 1 ran {n} epoch{'s' if n > 1 else ''} (train {last['train']:.3f}, dev {last['dev']:.3f} at the end)"
    if isinstance(reason, str) and reason:
        return f"{head}; stopped because {reason}"
    return f"{head}; it reached its epoch cap without diverging"


def plot_phase_curve(ax, curve, title: str = "", metric: str = "accuracy"):
    """Train vs dev ``metric`` per epoch over both phases; phase 1 shaded, its end marked."""
    rows = curve.to_dict("records") if hasattr(curve, "to_dict") else list(curve)
    x = [r["global_epoch"] + 1 for r in rows]
    ax.plot(x, [r["train"] for r in rows], "o-", label=f"train {metric} (running mean, dropout on)")
    ax.plot(x, [r["dev"] for r in rows], "s-", label=f"dev {metric}")
    n1 = sum(r["phase"] == "phase1" and bool(r["encoder_frozen"]) for r in rows)
    if n1:
        ax.axvspan(0.5, n1 + 0.5, color="grey", alpha=0.15, label="phase 1: encoder frozen")
        ax.axvline(n1 + 0.5, color="grey", ls="--", lw=1)
    ax.set(xlabel="epoch (both phases)", ylabel=metric, title=title)
    ax.legend(fontsize=7, loc="lower right")
    return ax


def strategy_table(results, metric: str, light: str = "light", scale: float = 100.0, digits: int = 1):
    """The paper's comparison: per task and rich head, mean ± SE over seeds of each strategy, and the differences.

    ``results``: long rows ``task, model, strategy, seed, metric, value``.
    finetune-only is the ``light`` model's row of the same task (the paper's
    light head); stack-only and stack-and-finetune are the rich head's (and
    the rich head's own finetune-only row, where it was run, gets a column
    too). The last columns are stack-and-finetune minus finetune-only (light
    head) and minus stack-only, each with its standard error and verdict
    (:func:`kit.analysis.difference`), in points when ``scale=100``.
    """
    import pandas as pd

    rows = results[results.metric == metric]
    stats = summarize(rows, ["task", "model", "strategy"])
    get = lambda *k: stats.loc[k] if k in stats.index else None  # noqa: E731
    fmt = lambda st: "-" if st is None else format_mean_se(st["mean"], st["se"], scale, digits)  # noqa: E731
    diff = lambda a, b: "-" if a is None or b is None else difference(a, b).text(scale, "", digits)  # noqa: E731
    out = []
    for task, model in rows[rows.model != light][["task", "model"]].drop_duplicates().itertuples(index=False):
        ft, so, sf = get(task, light, "finetune_only"), get(task, model, "stack_only"), \
            get(task, model, "stack_and_finetune")
        row = {"task": task, "head": model, "finetune-only (light head)": fmt(ft)}
        if get(task, model, "finetune_only") is not None:
            row["finetune-only (this head)"] = fmt(get(task, model, "finetune_only"))
        row.update({"stack-only": fmt(so), "stack-and-finetune": fmt(sf), "S&F - finetune-only": diff(sf, ft),
                    "S&F - stack-only": diff(sf, so)})
        out.append(row)
    if not out:
        raise ValueError(f"No rich-head rows with metric {metric!r} in the results.")
    return pd.DataFrame(out).set_index(["task", "head"]).fillna("-")


def paper_comparison(results, paper, task_of: dict, scale: float = 100.0, digits: int = 1):
    """The paper's reported differences beside ours.

    ``paper``: rows with ``experiment, section, metric, a, b, paper, says``
    where ``a`` and ``b`` are ``(model, strategy)`` and ``paper`` the
    paper's ``a - b`` in points (None where it gives only a direction);
    ``task_of``: section → our task. Ours is ``a - b`` over seeds with its
    standard error and verdict, or "not run" when a side is missing.
    """
    import pandas as pd

    stats = summarize(results, ["task", "model", "strategy", "metric"])
    out = []
    for r in (paper.to_dict("records") if hasattr(paper, "to_dict") else paper):
        task = task_of.get(r["section"])
        ka, kb = (task, *r["a"], r["metric"]), (task, *r["b"], r["metric"])
        ours = difference(stats.loc[ka], stats.loc[kb]).text(scale, "", digits) \
            if ka in stats.index and kb in stats.index else "not run"
        out.append({"experiment": r["experiment"], "comparison": f"{'/'.join(r['a'])} - {'/'.join(r['b'])}",
                    "metric": r["metric"], "paper says": r["says"],
                    "paper (points)": "-" if r["paper"] is None else f"{r['paper']:+.2f}",
                    "our task": task, "ours (points)": ours})
    return pd.DataFrame(out)
