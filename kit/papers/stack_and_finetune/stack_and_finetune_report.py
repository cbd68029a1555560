"""Notebook 03's report: phase curves, the strategy tables beside the paper's, its figures, sentences and checks.

Scores come from :func:`stack_and_finetune_runs.score`; differences and their verdicts are the verdict table's
(``stack_and_finetune_verdicts``), which :func:`paper_comparison` and :func:`sentences` quote.

>>> primary_metric(type("Task", (), {"is_entity_task": False, "kind": "pairs"})())
'accuracy'
"""

from __future__ import annotations

import gc
import re
from functools import partial

import keras

from ...analysis.baselines import constant_guess
from ...analysis.pictures import arrow, box, canvas
from ...analysis.scales import plot_scales, scale_table
from ...analysis.spread import format_mean_se, summarize
from ..experiment import predictions_path
from .stack_and_finetune_runs import KEYS
from .stack_and_finetune_sizes import matched_budget

#: The metric each kind of task is compared on (tagging: entity F1 where the tags are entities).
PRIMARY = {"classification": "accuracy", "pairs": "accuracy", "tagging": "token_accuracy"}


def primary_metric(task) -> str:
    """``entity_f1`` for an entity task, else the kind's headline metric (``PRIMARY``)."""
    return "entity_f1" if task.is_entity_task else PRIMARY[task.kind]


def phase1_story(curve) -> str:
    """One sentence on where phase 1 of a stack-and-finetune curve stopped and why, or "no phase 1"."""
    rows = [r for r in (curve.to_dict("records") if hasattr(curve, "to_dict") else curve) if r["phase"] == "phase1"]
    if not rows:
        return "no phase 1 (finetune-only)"
    n, reason = len(rows), rows[-1]["stopped"]
    last = rows[-1]
    head = f"phase 1 ran {n} epoch{'s' if n > 1 else ''} (train {last['train']:.3f}, dev {last['dev']:.3f} at the end)"
    if isinstance(reason, str) and reason:
        return f"{head}; stopped because {reason}"
    return f"{head}; it reached its epoch cap without diverging"


def kept_epochs(curve) -> dict:
    """Which epochs' weights a run kept (1-based over both phases, as the phase-curve figure's x axis).

    ``{"phase1": p1, "final": f}``: ``p1`` the epoch phase 2's head started from (the rule's kept epoch, else phase
    1's last), ``f`` the last phase's best dev epoch; a key is left out where the run has no such phase.

    Example:
        >>> rows = [{"phase": "phase1", "dev": d, "stopped": "gap; kept epoch 1's weights (x)"} for d in (.5, .7)]
        >>> kept_epochs(rows + [{"phase": "phase2", "dev": d, "stopped": ""} for d in (.9, .8)])
        {'phase1': 1, 'final': 3}
    """
    rows = curve.to_dict("records") if hasattr(curve, "to_dict") else list(curve)
    out, last = {}, []
    for phase in dict.fromkeys(r["phase"] for r in rows):
        idx = [i for i, r in enumerate(rows) if r["phase"] == phase]
        if phase == "phase1" and len(set(r["phase"] for r in rows)) > 1:
            found = re.search(r"kept epoch (\d+)'s", str(rows[idx[-1]]["stopped"] or ""))
            out["phase1"] = idx[0] + int(found.group(1)) if found else idx[-1] + 1
        last = idx  # the last phase's rows, once the loop is done
    if last:
        devs = [rows[i]["dev"] for i in last]
        out["final"] = last[devs.index(max(devs))] + 1
    return out


def plot_phase_curve(ax, curve, title: str = "", metric: str = "accuracy", legend: bool = True):
    """Train vs dev ``metric`` per epoch on ``ax``; phase 1 shaded, its end and the kept epochs marked.

    Train is the running mean with dropout on; ``legend=False`` where the figure draws one for all panels.
    """
    rows = curve.to_dict("records") if hasattr(curve, "to_dict") else list(curve)
    x = [r["global_epoch"] + 1 for r in rows]
    ax.plot(x, [r["train"] for r in rows], "o-", label=f"train {metric} (running mean, dropout on)")
    ax.plot(x, [r["dev"] for r in rows], "s-", label=f"dev {metric}")
    n1 = sum(r["phase"] == "phase1" and bool(r["encoder_frozen"]) for r in rows)
    if n1:
        ax.axvspan(0.5, n1 + 0.5, color="grey", alpha=0.15, label="phase 1: encoder frozen")
        ax.axvline(n1 + 0.5, color="grey", ls="--", lw=1)
    kept = kept_epochs(rows)
    for key, style in (("phase1", dict(marker="*", s=220, color="tab:red", label="head kept for phase 2")),
                       ("final", dict(marker="o", s=160, facecolors="none", edgecolors="black", lw=1.5,
                                      label="weights kept at the end (best dev)"))):  # fmt: skip
        if key in kept:
            ax.scatter([kept[key]], [rows[kept[key] - 1]["dev"]], zorder=5, **style)
    ax.set(xlabel="epoch (both phases)", ylabel=metric, title=title)
    ax.set_xticks(x)
    if legend:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


def strategy_table(results, metric: str, light: str = "light", scale: float = 100.0, digits: int = 1):
    """The paper's comparison: per task and rich head, mean ± SE over seeds of each strategy's test score (no verdicts).

    finetune-only is the ``light`` model's row of the task (the paper's light head), beside it ``finetune_only_matched``
    (as many epochs as both phases) where it ran; the rich head's own strategies follow. Verdicts are the verdict
    table's, so none is printed twice. ``"-"`` where a run is missing.

    Raises:
        ValueError: no rich-head rows have ``metric``.
    """
    import pandas as pd

    rows = results[results.metric == metric]
    stats = summarize(rows, ["task", "model", "strategy"])
    get = lambda *k: stats.loc[k] if k in stats.index else None  # noqa: E731
    fmt = lambda st: "-" if st is None else format_mean_se(st["mean"], st["se"], scale, digits)  # noqa: E731
    columns = {
        (True, "finetune_only"): "finetune-only (light head)",
        (True, "finetune_only_matched"): "finetune-only, same epochs as S&F",
        (False, "finetune_only"): "finetune-only (this head)",
        (False, "finetune_only_matched"): "finetune-only (this head), same epochs as S&F",
        (False, "stack_only"): "stack-only",
        (False, "stack_and_finetune"): "stack-and-finetune",
    }
    out = []
    for task, model in rows[rows.model != light][["task", "model"]].drop_duplicates().itertuples(index=False):
        row = {"task": task, "head": model}
        for (is_light, strategy), column in columns.items():
            st = get(task, light if is_light else model, strategy)
            if st is not None or column in ("stack-only", "stack-and-finetune", "finetune-only (light head)"):
                row[column] = fmt(st)
        out.append(row)
    if not out:
        raise ValueError(f"No rich-head rows with metric {metric!r} in the results.")
    return pd.DataFrame(out).set_index(["task", "head"]).fillna("-")


def comparison_name(task: str, metric: str, a: tuple, b: tuple) -> str:
    """The verdict table's name of ``a - b`` (each ``(model, strategy)``) on ``task``'s ``metric``.

    Example:
        >>> comparison_name("bbc", "accuracy", ("highway", "stack_and_finetune"), ("light", "finetune_only"))
        'bbc accuracy: highway stack_and_finetune - light finetune_only'
    """
    return f"{task} {metric}: {' '.join(a)} - {' '.join(b)}"


def agreement(delta: float, verdict: str, direction: int) -> str:
    """How a verdict-table row (our ``delta``, its ``verdict``) stands to the paper's ``direction`` (+1: ``a`` better).

    "found" rows get "same"/"opposite direction"; a difference between unequal budgets "needs a budget-matched control";
    the rest are "within the noise" with the sign named.

    Example:
        >>> agreement(5.0, "found", +1), agreement(-5.0, "found", +1)
        ('same direction, found', 'opposite direction, found')
        >>> agreement(1.0, "noise", -1), agreement(3.0, "needs a budget-matched control", +1)
        ('within the noise (the opposite sign)', "the paper's direction, needs a budget-matched control")
        >>> agreement(1.0, "too few seeds to tell", +1)
        "too few seeds to tell (the paper's sign)"
    """
    same = (1 if delta > 0 else -1 if delta < 0 else 0) == direction
    if verdict.startswith("too few"):
        return f"{verdict} (" + ("the paper's sign" if same else "the opposite sign") + ")"
    if verdict == "found":
        return "same direction, found" if same else "opposite direction, found"
    if verdict != "noise":
        return ("the paper's direction, " if same else "the opposite direction, ") + verdict
    return "within the noise (" + ("the paper's sign" if same else "the opposite sign") + ")"


def _table_row(verdicts, task, metric: str, a: tuple, b: tuple):
    """The verdict table's row of ``a - b`` (against the budget-matched finetune-only where there), or None."""
    names = list(verdicts["comparison"])
    options = ([(b[0], "finetune_only_matched")] if tuple(b) == ("light", "finetune_only") else []) + [tuple(b)]
    for other in options:
        name = comparison_name(task, metric, tuple(a), other)
        if name in names:
            return verdicts.iloc[names.index(name)]
    return None


def paper_comparison(verdicts, paper, task_of: dict, digits: int = 1):
    """A DataFrame: the paper's reported differences beside ours, with the verdict table's verdicts.

    Ours is the verdict table's row for the same ``a - b`` (against the matched-epochs finetune-only where it ran), in
    points with its 95% interval, or "not run"; the last column is :func:`agreement`. ``paper``:
    ``stack_and_finetune_paper.COMPARISONS`` (``paper`` None where it gives only a direction); ``task_of``:
    ``{section: our task}``.
    """
    import pandas as pd

    out = []
    for r in paper.to_dict("records") if hasattr(paper, "to_dict") else paper:
        task = task_of.get(r["section"])
        row = _table_row(verdicts, task, r["metric"], r["a"], r["b"])
        known = r["paper"] is not None and not pd.isna(r["paper"])
        ours = "not run"
        if row is not None:
            d = digits
            ours = f"{row['delta']:+.{d}f} [{row['low']:+.{d}f}, {row['high']:+.{d}f}]"
        out.append(
            {
                "experiment": r["experiment"],
                "paper says": r["says"],
                "paper (points)": f"{r['paper']:+.2f}" if known else "(direction only)",
                "our comparison": "not run" if row is None else row["comparison"],
                "ours (points, 95% interval)": ours,
                "ours vs the paper": "not run"
                if row is None
                else agreement(row["delta"], row["verdict"], r["direction"]),
            }
        )
    return pd.DataFrame(out)


# --- the notebook's tables, figures, sentences and checks -------------------------------------------------------


def data_table(data: dict, specs: dict):
    """A DataFrame by task: its section, split sizes, number of labels and (entity tasks) test entities."""
    import pandas as pd

    rows = []
    for name, ds in data.items():
        extra = ds.info.get("entities", {}).get("test")
        rows.append(
            {
                "task": name,
                "section": specs[name]["section"],
                **ds.sizes(),
                "labels": ds.num_classes,
                "test entities": "-" if extra is None else extra,
            }
        )
    return pd.DataFrame(rows).set_index("task")


def encoding_lines(tasks: dict, specs: dict) -> str:
    """One line per encoded task: kind, sequence length, labels, and how many sentences the length cut."""
    lines = []
    for name, task in tasks.items():
        cut = {k.split("_")[0]: v for k, v in task.info.items() if k.endswith("_truncated")}
        lines.append(
            f"{name:<24} {task.kind:<15} length {specs[name]['sequence_length']:>3}  labels "
            f"{task.num_labels:>3}" + (f"  sentences cut by the length: {cut}" if cut else "")
        )
    return "\n".join(lines)


def head_sizes(experiment):
    """A DataFrame by ``task, head``: head and encoder parameters (thousands separators); builds each model once."""
    import pandas as pd

    rows, encoder_params = [], experiment.encoder.backbone.count_params()
    for name, heads in experiment.models.items():
        for m in heads:
            total = experiment.make_model(name, m).count_params()
            rows.append(
                {
                    "task": name,
                    "head": m,
                    "head parameters": f"{total - encoder_params:,}",
                    "encoder parameters": f"{encoder_params:,}",
                }
            )
    gc.collect()
    return pd.DataFrame(rows).set_index(["task", "head"])


def cls_spread(backbone, task, n: int = 64) -> tuple[float, float]:
    """``([CLS] spread, mean-token spread)`` over the first ``n`` dev texts: std per dimension, averaged.

    A light head can only learn from a state that varies.
    """
    x = {k: v[:n] for k, v in task.x["dev"].items()}
    seq = keras.ops.convert_to_numpy(backbone(x)["sequence_output"])
    m = x["padding_mask"][..., None]
    return float(seq[:, 0].std(0).mean()), float(((seq * m).sum(1) / m.sum(1)).std(0).mean())


def phase1_figure(curves, first_seed: int) -> tuple:
    """``(figure, phase1_story per panel)``: train vs dev accuracy per epoch, ``first_seed``'s stack-and-finetune runs.

    Phase 1 shaded; each panel marks the head phase 2 started from and the weights kept; one legend under the panels.
    """
    import matplotlib.pyplot as plt

    sf = curves[(curves.strategy == "stack_and_finetune") & (curves.seed == first_seed)]
    panels = list(sf.groupby(["task", "model"], sort=False))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.6), squeeze=False)
    stories = []
    for ax, ((task_name, model_name), g) in zip(axes[0], panels):
        plot_phase_curve(ax, g, title=f"{task_name}\n{model_name}", legend=False)
        stories.append(f"{task_name} / {model_name}: {phase1_story(g)}")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))  # the legend below the panels, off the data
    return fig, stories


def wide(results):
    """A DataFrame, one row per run (``task, model, strategy, seed``), one column per metric."""
    return results.pivot_table(
        index=["task", "model", "strategy", "seed"], columns="metric", values="value"
    ).reset_index()


def phase1_stops(runs_wide):
    """Per ``task, model``: ``seeds``, ``phase1_epochs``, ``stopped_by_the_rule`` (divergence), ``phase2_epochs``.

    Of the stack-and-finetune runs (``runs_wide``: :func:`wide`); epochs are means.
    """
    ph = runs_wide[runs_wide.strategy == "stack_and_finetune"]
    return ph.groupby(["task", "model"]).agg(
        seeds=("seed", "count"),
        phase1_epochs=("phase1_epochs", "mean"),
        stopped_by_the_rule=("phase1_stopped_early", "sum"),
        phase2_epochs=("phase2_epochs", "mean"),
    )


def section_metrics(section: str, task) -> list:
    """A section's table metrics: entity F1 (entity tasks), token accuracy; accuracy, macro-F1; pairs: accuracy."""
    if section == "tagging":
        return (["entity_f1"] if task.is_entity_task else []) + ["token_accuracy"]
    return ["accuracy", "macro_f1"] if section == "classification" else ["accuracy"]


#: The strategies of :func:`strategies_figure`, in the legend's order, with their colours and markers.
STRATEGY_STYLE = {
    "finetune_only": ("finetune-only", "C0", "o"),
    "finetune_only_matched": ("finetune-only, same epochs as S&F", "C4", "D"),
    "stack_only": ("stack-only", "C1", "s"),
    "stack_and_finetune": ("stack-and-finetune", "C2", "^"),
}


def strategies_figure(results, primary: dict, guesses: dict | None = None):
    """One panel per task: each head's test score per strategy (mean ± one SE over seeds), the constant guess dashed.

    Dots with error bars, not bars from zero, which would hide differences of a few points; the guess gives the scale.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(primary), figsize=(3.6 * len(primary), 3.6), squeeze=False)
    for ax, (name, metric) in zip(axes[0], primary.items()):
        st = summarize(results[(results.task == name) & (results.metric == metric)], ["model", "strategy"])
        heads = list(dict.fromkeys(m for m, _ in st.index))
        for k, (strategy, (label, color, marker)) in enumerate(STRATEGY_STYLE.items()):
            here = [(heads.index(m), row) for (m, s), row in st.iterrows() if s == strategy]
            if here:
                ax.errorbar([i + 0.15 * (k - 1.5) for i, _ in here], [100 * r["mean"] for _, r in here],
                            yerr=[100 * (0 if r["se"] != r["se"] else r["se"]) for _, r in here], fmt=marker,
                            color=color, capsize=3, label=label)  # fmt: skip
        if guesses and guesses.get(name) is not None:
            ax.axhline(100 * guesses[name], color="grey", ls="--", lw=1, label="constant guess")
        ax.set_xticks(range(len(heads)), heads, fontsize=8)
        ax.set(
            title=name, xlabel="head", ylabel=f"test {metric} (%, mean ± SE over seeds)", xlim=(-0.5, len(heads) - 0.5)
        )
    handles = {lab: h for ax in axes[0] for h, lab in zip(*ax.get_legend_handles_labels())}
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))  # the legend below the panels, off the data
    return fig


def constant_guesses(data: dict, tasks: dict) -> dict:
    """``{task: constant guess on its primary metric}``, learned on train, scored on test.

    The most frequent tag's token accuracy or class's accuracy; 0 for entity F1 (a constant "outside" tag finds none).
    """
    out = {}
    for name, ds in data.items():
        metric = primary_metric(tasks[name])
        out[name] = (
            0.0
            if metric == "entity_f1"
            else constant_guess(
                ds.train.labels if metric == "token_accuracy" else ds.train.y,
                ds.test.labels if metric == "token_accuracy" else ds.test.y,
                metric,
            )
        )
    return out


def _budget_line(primary: dict, sizes: dict, both: list) -> str:
    """The sentence on the epochs each strategy trains, and on which tasks finetune-only also ran the same total."""
    p1, p2 = sizes["phase1_epochs"], sizes["phase2_epochs"]
    return (
        f"budgets: finetune-only trains {p2} epochs, stack-and-finetune up to {p1} (head only) + {p2}"
        + (f"; finetune-only also ran {p1 + p2} epochs, the same total, on {', '.join(both)}" if both else "")
        + (
            ""
            if len(both) == len(primary)
            else " (elsewhere the budgets differ: read stack-and-finetune's gain over finetune-only with that in mind)"
        )
    )


def _finetune_only_line(stats, name: str, metric: str, sizes: dict, guesses: dict | None) -> str:
    """The task's finetune-only score (and at the matched budget, and the constant guess, where known)."""
    p1, p2 = sizes["phase1_epochs"], sizes["phase2_epochs"]
    ft = stats.loc[(name, "light", "finetune_only", metric)]
    line = f"{name} ({metric}): finetune-only {format_mean_se(ft['mean'], ft['se'], 100, 1)}"
    if (name, "light", "finetune_only_matched", metric) in stats.index:
        fm = stats.loc[(name, "light", "finetune_only_matched", metric)]
        line += f", at {p1 + p2} epochs {format_mean_se(fm['mean'], fm['se'], 100, 1)}"
    if guesses and name in guesses:
        line += f"; a constant guess {100 * guesses[name]:.1f}"
    return line


def verdict_lines(verdicts) -> list[str]:
    r"""What the verdict table calls each comparison, in sentences: the found ones and the unmatched ones by name.

    Per verdict, how many comparisons; the found (and needing a budget-matched control) with difference, 95% interval
    and Holm p; for the others the smallest difference their runs could have found.

    Example:
        >>> import pandas as pd
        >>> t = pd.DataFrame({"comparison": ["a - b", "c - d"], "delta": [4.0, 1.0], "low": [1.0, -3.0],
        ...                   "high": [7.0, 5.0], "p_holm": [0.01, 0.9], "detectable": [3.5, 6.0],
        ...                   "verdict": ["found", "noise"]})
        >>> print("\n".join(verdict_lines(t)))
        the verdict table's 2 comparisons, Holm-corrected across all 2:
          found (1): a - b +4.0 points [+1.0, +7.0] (p 0.0100 after Holm)
          noise (1): the others (each could have found a difference of 6.0 points)
    """
    lines = [f"the verdict table's {len(verdicts)} comparisons, Holm-corrected across all {len(verdicts)}:"]
    for verdict in dict.fromkeys(verdicts.verdict):
        rows = verdicts[verdicts.verdict == verdict]
        if verdict == "noise" or verdict.startswith("too few") or verdict == "no variation":
            could = rows.detectable.dropna()
            reach = f"{could.min():.1f}" if could.min() == could.max() else f"{could.min():.1f}-{could.max():.1f}"
            who = "the others" if len(rows) < len(verdicts) else "all of them"
            lines.append(f"  {verdict} ({len(rows)}): {who} (each could have found a difference of {reach} points)")
            continue
        said = [
            f"{r.comparison} {r.delta:+.1f} points [{r.low:+.1f}, {r.high:+.1f}] (p {r.p_holm:.4f} after Holm)"
            for r in rows.itertuples()
        ]
        lines.append(f"  {verdict} ({len(rows)}): " + "; ".join(said))
    return lines


def _run_lines(results, runs_wide, sizes: dict) -> list[str]:
    """How many phase 1s the divergence rule stopped, and the mean seconds per run of each strategy."""
    sf = runs_wide[runs_wide.strategy == "stack_and_finetune"]
    stops = (
        f"phase 1 was stopped by the divergence rule in {int(sf.phase1_stopped_early.sum())} of {len(sf)} "
        f"stack-and-finetune runs; the others reached the {sizes['phase1_epochs']}-epoch cap"
    )
    secs = summarize(results[results.metric == "seconds"], "strategy")["mean"]
    return [stops, f"mean seconds per run: { {k: round(v, 1) for k, v in secs.items()} }"]


def sentences(results, runs_wide, primary: dict, sizes: dict, verdicts, guesses: dict | None = None) -> list[str]:
    """What the notebook states, a line each: budgets, finetune-only and guess, verdicts, phase-1 stops, seconds."""
    stats = summarize(results, ["task", "model", "strategy", "metric"])
    both = [name for name in primary if matched_budget(sizes, name)]
    lines = [_budget_line(primary, sizes, both)]
    lines += [_finetune_only_line(stats, name, metric, sizes, guesses) for name, metric in primary.items()]
    return lines + verdict_lines(verdicts) + _run_lines(results, runs_wide, sizes)


#: The files :func:`checks` wants in the run's folder.
_CHECKED_FILES = (
    "results.csv",
    "curves.csv",
    "phase1_curves.png",
    "strategies.png",
    "paper_vs_ours.csv",
    "best_model/model.keras",
)


def _rows_of(runs_wide, metric, **where):
    """The ``metric`` column of the runs whose columns equal ``where``."""
    rows = runs_wide
    for k, v in where.items():
        rows = rows[rows[k] == v]
    return rows[metric]


def _check_guesses(sections: dict, tasks: dict, data: dict) -> tuple[list, list, dict]:
    """``(POS tasks, entity tasks, {task: constant guess})``: token accuracy for POS, accuracy for texts and pairs."""
    pos = [n for n in sections["tagging"] if not tasks[n].is_entity_task]
    ent = [n for n in sections["tagging"] if tasks[n].is_entity_task]
    guess = {n: constant_guess(data[n].train.labels, data[n].test.labels, "token_accuracy") for n in pos}
    guess |= {
        n: constant_guess(data[n].train.y, data[n].test.y) for n in sections["classification"] + sections["pairs"]
    }
    return pos, ent, guess


def _has_guesses(path, tasks) -> bool:
    """Whether the CSV at ``path`` has a ``constant_guess`` row for every task of ``tasks``."""
    import pandas as pd

    frame = pd.read_csv(path) if path.exists() else None
    return frame is not None and set(tasks) <= set(frame.task[frame.metric == "constant_guess"].astype(str))


def checks(runs_wide, plan_rows, sections: dict, tasks: dict, data: dict, out, min_seeds: int = 3) -> dict:
    """What CI asserts on every run, as ``{claim: bool}`` (the POS claim last, where a POS task runs: medium, full).

    Every run is there (``min_seeds`` per task, head, strategy); the freeze scheduler kept its promises; tasks learned
    well above their constant guess; files and test predictions exist in ``out``; ``results.csv`` has the guesses.
    """
    import pandas as pd

    of = partial(_rows_of, runs_wide)
    frozen = pd.concat([of("phase1_encoder_changed", strategy=s) for s in ("stack_only", "stack_and_finetune")])
    sf = runs_wide[runs_wide.strategy == "stack_and_finetune"]
    pos, ent, guess = _check_guesses(sections, tasks, data)
    by_run = lambda n, metric: runs_wide[runs_wide.task == n].groupby(["model", "strategy"])[metric]  # noqa: E731
    return {
        "every planned run measured": len(runs_wide) == len(plan_rows),
        f"at least {min_seeds} seeds per task, head and strategy": bool(
            runs_wide.groupby(["task", "model", "strategy"]).size().min() >= min_seeds
        ),
        "frozen phases left the encoder bit-identical": bool((frozen == 0).all()),
        "unfrozen phases changed it": bool(
            (of("phase1_encoder_changed", strategy="finetune_only") == 1).all()
            and (of("phase2_encoder_changed", strategy="stack_and_finetune") == 1).all()
        ),
        "phase 2 trains more parameters than phase 1": bool(
            (sf.phase2_trainable_params > sf.phase1_trainable_params).all()
        ),
        "entities: every strategy finds entities (mean entity F1 > 0.1)": all(
            bool(g.mean() > 0.1) for n in ent for _, g in by_run(n, "entity_f1")
        ),
        "classification: every strategy beats the majority class by > 10 points": all(
            bool(g.mean() > guess[n] + 0.1) for n in sections["classification"] for _, g in by_run(n, "accuracy")
        ),
        "pairs: finetune-only beats the majority class by > 10 points": all(
            bool(of("accuracy", task=n, strategy="finetune_only").mean() > guess[n] + 0.1) for n in sections["pairs"]
        ),
        "figures and tables written": all((out / f).exists() for f in _CHECKED_FILES),
        "every run's test predictions saved (the verdicts' per-example results)": all(
            predictions_path(out, r, KEYS).exists() for r in plan_rows
        ),
        "results.csv carries every task's constant guess": _has_guesses(out / "results.csv", tasks),
    } | (
        {
            "POS: finetune-only beats the most frequent tag by > 20 points":  # where a POS task runs (medium, full)
            all(bool(of("token_accuracy", task=n, strategy="finetune_only").mean() > guess[n] + 0.2) for n in pos)
        }
        if pos
        else {}
    )


# --- the "how it works" pictures (one call each in the notebook) ------------------------------------------------


def _lanes(ax, y: float, spans: list) -> None:
    """One strategy's row: the encoder's bar above, the head's below, a span each ``(start, length, part, label)``."""
    for start, length, part, label in spans:
        encoder = {"all": "tab:blue", "head": "lightgrey"}.get(part, part)  # a part, or the encoder bar's colour
        ax.barh(y + 0.18, length, left=start, height=0.32, color=encoder, edgecolor="black")
        ax.barh(y - 0.18, length, left=start, height=0.32, color="tab:orange", edgecolor="black")
        ax.text(start + length / 2, y + 0.18, label, ha="center", va="center", fontsize=9)


def _lane_legend(ax, grey: str = "encoder frozen") -> None:
    """The legend of :func:`_lanes`' colours, beside the axes."""
    from matplotlib.patches import Patch

    handles = [
        Patch(color="lightgrey", label=grey),
        Patch(color="tab:blue", label="encoder trains"),
        Patch(color="tab:orange", label="head trains"),
    ]
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)


def draw_strategies():
    """The three strategies on a time axis: which part trains in which phase, at which rate.

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> [t.get_text() for t in draw_strategies().axes[0].get_yticklabels()]
        ['stack-and-finetune', 'stack-only', 'finetune-only']
    """
    import matplotlib.pyplot as plt

    rows = {
        "finetune-only": [(0, 3, "all", r"phase 2 only: $\eta_2$")],
        "stack-only": [(0, 3, "head", r"phase 1 only: $\eta_1$")],
        "stack-and-finetune": [(0, 2, "head", r"phase 1: $\eta_1$"), (2, 1, "all", r"phase 2: $\eta_2$")],
    }
    fig, ax = plt.subplots(figsize=(8, 2.8))
    for y, spans in enumerate(reversed(rows.values())):
        _lanes(ax, y, spans)
    ax.set_yticks(range(3), list(reversed(rows)))
    ax.set_xlabel("epochs (phase 1 up to its divergence stop, then phase 2)")
    ax.set_xticks([])
    _lane_legend(ax)
    ax.set_title("upper bar: encoder, lower bar: head", fontsize=9)
    fig.tight_layout()
    return fig


def draw_recompile():
    """Why Keras recompiles between phases: the variables a compiled step updates, with and without a recompile."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 3.2))
    kit_row, flip_row = 0.0, 1.5
    _lanes(ax, kit_row, [(0, 2, "head", "phase 1"), (2, 2, "all", "phase 2")])
    _lanes(ax, flip_row, [(0, 2, "head", "phase 1"), (2, 2, "lightgrey", "phase 2: not updated")])
    events = [
        (0, flip_row, "compile: T = {head}"),
        (2, flip_row, "encoder.trainable = True"),
        (0, kit_row, "compile: T = {head}"),
        (2, kit_row, "recompile, fresh optimizer: T = {encoder, head}"),
    ]
    for x, y, label in events:
        ax.plot([x, x], [y - 0.4, y + 0.45], color="0.4", lw=1, ls=":")
        ax.text(x + 0.03, y + 0.38, label, fontsize=8, va="bottom")
    ax.text(
        4.08,
        flip_row,
        "TensorFlow: runs, encoder\nsilently frozen; torch, jax:\nValueError",
        fontsize=8,
        va="center",
        color="tab:red",
    )
    ax.text(4.08, kit_row, "the encoder trains", fontsize=8, va="center")
    ax.set(xlim=(-0.1, 5.8), ylim=(-0.5, 2.35), xlabel="training steps", xticks=[])
    ax.set_yticks(
        [kit_row, flip_row],
        ["kit.train.stack_and_finetune:\na recompile per phase", "trainable flipped,\nno recompile"],
    )
    _lane_legend(ax, grey="encoder not updated")
    ax.set_title(
        "a compiled step updates the set T that was trainable at compile time (upper bar: encoder, lower: head)",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def draw_highway():
    """The highway BiLSTM head's data flow, from the encoder's token states to the logits (a matplotlib figure)."""
    fig, ax = canvas(
        (9, 2.6), (-0.3, 9.8), (-0.1, 2.1), "one highway BiLSTM layer (n_layers stacks it), then pooling and the logits"
    )
    spots = {
        "x": (0.5, 1, "token states $x_t$\n(encoder)"),
        "lstm": (2.8, 1.8, "BiLSTM$(x)_t$"),
        "wh": (2.8, 1, "$W_h x_t$"),
        "gate": (2.8, 0.2, r"$g_t = \sigma(W_g x_t + b_g)$"),
        "mul": (4.7, 0.6, r"$g_t \odot W_h x_t$"),
        "add": (5.9, 1.2, "+"),
        "h": (6.7, 1.2, "$h_t$"),
        "pool": (7.8, 1.2, "max over\ntokens"),
        "out": (9.1, 1.2, "Dense\n→ logits"),
    }
    boxes = {k: box(ax, x, y, s) for k, (x, y, s) in spots.items()}
    for a, b in [
        ("x", "lstm"),
        ("x", "wh"),
        ("x", "gate"),
        ("wh", "mul"),
        ("gate", "mul"),
        ("lstm", "add"),
        ("mul", "add"),
        ("add", "h"),
        ("h", "pool"),
        ("pool", "out"),
    ]:
        arrow(ax, boxes[a], boxes[b], color="grey")
    fig.tight_layout()
    return fig


def draw_full_matching(steps: int = 4):
    """BiMPM's full matching: each of ``steps`` forward states of text p against text q's last forward state."""
    fig, ax = canvas((8, 2.8), (-0.6, 2 * steps + 0.6), (-0.2, 3.2))
    last = 2 * steps  # q_N, the last state of q
    for i in range(steps):
        for x, name, colour in ((i, "p", "tab:blue"), (i + steps + 1, "q", "tab:green")):
            ax.text(
                x,
                1.5,
                f"${name}_{i + 1}$",
                ha="center",
                va="center",
                bbox={"boxstyle": "round", "fc": colour, "alpha": 0.3},
            )
        ax.annotate(
            "",
            (last, 1.75),
            (i, 1.75),
            arrowprops={"arrowstyle": "-", "color": "grey", "connectionstyle": "arc3,rad=-.2"},
        )
        ax.annotate("", (i, 0.55), (i, 1.3), arrowprops={"arrowstyle": "->", "color": "black"})
        ax.text(i, 0.35, f"$m_{i + 1} \\in \\mathbb{{R}}^l$", ha="center", va="center", fontsize=9)
    ax.text(
        steps,
        3.0,
        r"grey arcs: $m_{i,k} = \cos(W_k \circ p_i,\ W_k \circ q_N)$ for each perspective $k = 1..l$",
        ha="center",
        fontsize=9,
    )
    ax.text((steps - 1) / 2, -0.05, "text p (forward states): one matching vector per step", ha="center", fontsize=8)
    ax.text(
        steps + 1 + (steps - 1) / 2, 1.1, f"text q; $q_N = q_{steps}$, its last forward state", ha="center", fontsize=8
    )
    fig.tight_layout()
    return fig


# --- this run beside the committed medium run --------------------------------------------------------------------

#: The metric each kind of task is compared on across the scales (tagging: token accuracy, the only tagging metric
#: the medium run recorded).
SCALE_METRIC = {"tagging": "token_accuracy", "classification": "accuracy", "pairs": "accuracy"}
#: The strategies as the figures name them.
STRATEGY_NAMES = {
    "finetune_only": "finetune-only",
    "finetune_only_matched": "finetune-only, as many epochs",
    "stack_only": "stack-only",
    "stack_and_finetune": "stack-and-finetune",
}


def setting_label(setting: str) -> str:
    """A :func:`kit.analysis.scale_table` setting (``"task | model | strategy"``) as a person reads it.

    Example:
        >>> setting_label("wordnet_pairs | bimpm | stack_only")
        'wordnet_pairs: bimpm, stack-only'
    """
    task, model, strategy = setting.split(" | ")
    return f"{task}: {model}, {STRATEGY_NAMES.get(strategy, strategy)}"


def same_tasks_note(ours: list, reached: list, planned: list) -> str:
    """``""`` when both scales show the same tasks in a panel, else a sentence naming them and why they differ.

    ``ours``: this run's tasks of the kind; ``reached``: the medium run's with results; ``planned``: the medium plan's.

    Example:
        >>> note = same_tasks_note(["brown_entities"], ["brown_pos"], ["brown_pos", "brown_entities"])
        >>> note.split(" (")[0]
        'this run: brown_entities, medium: brown_pos'
        >>> note.split(" (")[1].split("; ")
        ['medium stopped before its brown_entities runs', 'this run plans no brown_pos)']
    """
    if not reached or set(ours) == set(reached):
        return ""
    why = [
        f"medium stopped before its {t} runs" if t in planned else f"{t} is not in medium's plan"
        for t in ours
        if t not in reached
    ]
    why += [f"this run plans no {t}" for t in reached if t not in ours]
    return f"this run: {', '.join(ours)}, medium: {', '.join(reached)} ({'; '.join(why)})"


def scales_figure(results, medium, sections: dict, medium_plan: dict, guesses: dict, title: str):
    """This run beside the committed medium run: a panel per kind of task (none for a kind without tasks), both scales.

    A panel whose scales ran different tasks says why (:func:`same_tasks_note`). ``medium``:
    :func:`kit.analysis.medium_results` of notebook 03, or None; ``medium_plan``: ``{task: kind}`` of its plan;
    ``guesses``: ``{kind: constant guess}`` on :data:`SCALE_METRIC`, or None; ``title``: scale and backend.
    """
    import matplotlib.pyplot as plt

    panels = []
    for kind, metric in SCALE_METRIC.items():
        if not sections.get(kind):  # your own data: one kind of task
            continue
        theirs = None if medium is None else medium[medium.task.map(medium_plan) == kind]
        reached = [] if theirs is None else list(dict.fromkeys(theirs.task))
        table = scale_table(results[results.task.isin(sections[kind])], theirs, list(KEYS[:3]), metric)
        note = same_tasks_note(list(sections[kind]), reached, [t for t, k in medium_plan.items() if k == kind])
        panels.append((kind, metric, table, note or ("" if reached else "not reached at medium")))
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(10, 0.45 * sum(len(p[2]) for p in panels) + 3.8),
        gridspec_kw={"height_ratios": [len(p[2]) + 1.5 for p in panels]},
        squeeze=False,
    )
    for ax, (kind, metric, table, note) in zip(axes[:, 0], panels):
        plot_scales(
            table.assign(setting=[setting_label(s) for s in table.setting]),
            metric_label=f"test {metric} (%)",
            guess={"smoke": guesses.get(kind)},
            ax=ax,
            title=f"{kind}, {metric}" + (f"\n{note}" if note else ""),
        )
    reached = 0 if medium is None else medium.groupby(list(KEYS)).ngroups
    fig.suptitle(
        f"{title}\nmedium stopped early after {reached} runs (benchmarks/medium_gpu; no constant guess on "
        "record there)",
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # room for the title
    return fig
