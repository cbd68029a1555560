"""Notebook 03's report: phase curves, the strategy tables beside the paper's, its figures, sentences and checks.

The sentences are what the notebook prints, the checks what CI reads (a run's scores come from
:func:`stack_and_finetune_runs.score`).

- :func:`plot_phase_curve` draws train vs dev accuracy per epoch (the rows of
  :func:`stack_and_finetune_runs.curve_rows`) with the end of phase 1 marked.
- :func:`strategy_table` puts mean ± standard error over seeds side by side,
  one column per strategy, with stack-and-finetune's differences to the other two.

>>> primary_metric(type("Task", (), {"is_entity_task": False, "kind": "pairs"})())
'accuracy'
"""

from __future__ import annotations

import gc
from functools import partial

import keras

from ...analysis.baselines import constant_guess
from ...analysis.spread import difference, format_mean_se, summarize
from .stack_and_finetune_sizes import matched_budget

#: The metric each kind of task is compared on (tagging: entity F1 where the tags are entities).
PRIMARY = {"classification": "accuracy", "pairs": "accuracy", "tagging": "token_accuracy"}


def primary_metric(task) -> str:
    """``entity_f1`` for an entity task, else the kind's headline metric (``PRIMARY``).

    Args:
        task: a :class:`~stack_and_finetune_runs.TaskData` (its ``kind`` and ``is_entity_task``).

    Returns:
        The metric's name.
    """
    return "entity_f1" if task.is_entity_task else PRIMARY[task.kind]


def phase1_story(curve) -> str:
    """One sentence on where phase 1 of a stack-and-finetune curve stopped and why.

    Args:
        curve: the run's rows of :func:`stack_and_finetune_runs.curve_rows` (a list or a DataFrame).

    Returns:
        The sentence: phase 1's epochs, its last train and dev scores, and the reason it stopped or that it
        reached its epoch cap; ``"no phase 1 (finetune-only)"`` without one.
    """
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
    """Train vs dev ``metric`` per epoch over both phases; phase 1 shaded, its end marked.

    Args:
        ax: the matplotlib axes to draw on.
        curve: one run's rows of :func:`stack_and_finetune_runs.curve_rows` (a list or a DataFrame).
        title: the panel's title.
        metric: the metric's name, for the labels (train: the running mean with dropout on).

    Returns:
        ``ax``.
    """
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

    finetune-only is the ``light`` model's row of the same task (the paper's light head); stack-only and
    stack-and-finetune are the rich head's (and the rich head's own finetune-only row, where it was run, gets a
    column too). The last columns are stack-and-finetune minus finetune-only (light head) and minus stack-only,
    each with its standard error and Welch's t-test (:func:`kit.analysis.difference`). Where the light head also
    ran finetune-only for as many epochs as both phases (``finetune_only_matched``), it gets a column and a
    difference of its own: the comparison at an equal number of epochs.

    Args:
        results: long rows ``task, model, strategy, seed, metric, value``.
        metric: the metric compared.
        light: the model name of the light head.
        scale: the factor the scores are shown at: 100 gives points.
        digits: the digits shown after the point.

    Returns:
        A DataFrame indexed by ``task, head``, ``"-"`` where a run is missing.

    Raises:
        ValueError: no rich-head rows have ``metric``.
    """
    import pandas as pd

    rows = results[results.metric == metric]
    stats = summarize(rows, ["task", "model", "strategy"])
    get = lambda *k: stats.loc[k] if k in stats.index else None  # noqa: E731
    fmt = lambda st: "-" if st is None else format_mean_se(st["mean"], st["se"], scale, digits)  # noqa: E731
    diff = lambda a, b: "-" if a is None or b is None else difference(a, b).text(scale, "", digits)  # noqa: E731
    out = []
    for task, model in rows[rows.model != light][["task", "model"]].drop_duplicates().itertuples(index=False):
        ft, so, sf = (
            get(task, light, "finetune_only"),
            get(task, model, "stack_only"),
            get(task, model, "stack_and_finetune"),
        )
        matched = get(task, light, "finetune_only_matched")
        row = {"task": task, "head": model, "finetune-only (light head)": fmt(ft)}
        if matched is not None:
            row["finetune-only, same epochs as S&F"] = fmt(matched)
        if get(task, model, "finetune_only") is not None:
            row["finetune-only (this head)"] = fmt(get(task, model, "finetune_only"))
        row.update({"stack-only": fmt(so), "stack-and-finetune": fmt(sf), "S&F - finetune-only": diff(sf, ft)})
        if matched is not None:
            row["S&F - finetune-only (same epochs)"] = diff(sf, matched)
        row["S&F - stack-only"] = diff(sf, so)
        out.append(row)
    if not out:
        raise ValueError(f"No rich-head rows with metric {metric!r} in the results.")
    return pd.DataFrame(out).set_index(["task", "head"]).fillna("-")


def agreement(d, direction: int) -> str:
    """How a :class:`kit.analysis.Difference` stands to the paper's direction.

    Args:
        d: our difference ``a - b``.
        direction: the paper's: +1 (``a`` better) or -1 (worse).

    Returns:
        ``"same direction, found"`` or ``"opposite direction, found"`` where the t-test finds a difference, else
        ``"within the noise (the paper's sign)"`` or ``"within the noise (the opposite sign)"``.

    Example:
        >>> from kit.analysis import welch
        >>> agreement(welch(0.05, 0.005, 5, 0.0, 0.005, 5), +1), agreement(welch(-0.05, 0.005, 5, 0.0, 0.005, 5), +1)
        ('same direction, found', 'opposite direction, found')
        >>> agreement(welch(0.01, 0.02, 3, 0.0, 0.02, 3), -1)
        'within the noise (the opposite sign)'
    """
    sign = 1 if d.value > 0 else -1 if d.value < 0 else 0
    if d.verdict in ("larger", "smaller"):
        return "same direction, found" if sign == direction else "opposite direction, found"
    return "within the noise (" + ("the paper's sign" if sign == direction else "the opposite sign") + ")"


def paper_comparison(results, paper, task_of: dict, scale: float = 100.0, digits: int = 1):
    """The paper's reported differences beside ours.

    Ours is ``a - b`` over seeds with its standard error and Welch's t-test, or "not run" when a side is missing;
    the last column says whether ours goes the paper's way (:func:`agreement`).

    Args:
        results: long rows ``task, model, strategy, seed, metric, value``.
        paper: rows with ``experiment, section, metric, a, b, paper, says`` and ``direction`` (+1 or -1), where
            ``a`` and ``b`` are ``(model, strategy)`` and ``paper`` the paper's ``a - b`` in points (None where it
            gives only a direction): ``stack_and_finetune_paper.COMPARISONS``.
        task_of: ``{section: our task}``.
        scale: the factor our differences are shown at: 100 gives points.
        digits: the digits shown after the point.

    Returns:
        A DataFrame, one row per row of ``paper``.
    """
    import pandas as pd

    stats = summarize(results, ["task", "model", "strategy", "metric"])
    out = []
    for r in paper.to_dict("records") if hasattr(paper, "to_dict") else paper:
        task = task_of.get(r["section"])
        ka, kb = (task, *r["a"], r["metric"]), (task, *r["b"], r["metric"])
        d = difference(stats.loc[ka], stats.loc[kb]) if ka in stats.index and kb in stats.index else None
        known = r["paper"] is not None and not pd.isna(r["paper"])
        out.append(
            {
                "experiment": r["experiment"],
                "comparison": f"{'/'.join(r['a'])} - {'/'.join(r['b'])}",
                "metric": r["metric"],
                "paper says": r["says"],
                "paper (points)": f"{r['paper']:+.2f}" if known else "(direction only)",
                "our task": task,
                "ours (points)": "not run" if d is None else d.text(scale, "", digits),
                "ours vs the paper": "not run" if d is None else agreement(d, r["direction"]),
            }
        )
    return pd.DataFrame(out)


# --- the notebook's tables, figures, sentences and checks -------------------------------------------------------


def data_table(data: dict, specs: dict):
    """One row per task: its section, split sizes, number of labels and (entity tasks) test entities.

    Args:
        data: ``{task name: TextDataset}``.
        specs: ``{task name: spec}`` (its ``section``).

    Returns:
        A DataFrame indexed by task.
    """
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
    """One line per encoded task: kind, sequence length, labels, and how many sentences the length cut.

    Args:
        tasks: ``{task name: TaskData}``.
        specs: ``{task name: spec}`` (its ``sequence_length``).

    Returns:
        The lines, joined by newlines.
    """
    lines = []
    for name, task in tasks.items():
        cut = {k.split("_")[0]: v for k, v in task.info.items() if k.endswith("_truncated")}
        lines.append(
            f"{name:<24} {task.kind:<15} length {specs[name]['sequence_length']:>3}  labels "
            f"{task.num_labels:>3}" + (f"  sentences cut by the length: {cut}" if cut else "")
        )
    return "\n".join(lines)


def head_sizes(experiment):
    """Parameters of every (task, head) model beside the encoder's.

    Args:
        experiment: the notebook's :class:`~stack_and_finetune_runs.Experiment`; builds each model once.

    Returns:
        A DataFrame indexed by ``task, head``: head parameters and encoder parameters, with thousands separators.
    """
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
    """How much the [CLS] state and the mean token state vary across ``n`` dev texts of ``task``.

    A light head can only learn from a state that varies.

    Args:
        backbone: the encoder.
        task: the encoded task; its first ``n`` dev examples are read.
        n: how many dev texts.

    Returns:
        ``([CLS] spread, mean-token spread)``: the std per dimension, averaged.
    """
    x = {k: v[:n] for k, v in task.x["dev"].items()}
    seq = keras.ops.convert_to_numpy(backbone(x)["sequence_output"])
    m = x["padding_mask"][..., None]
    return float(seq[:, 0].std(0).mean()), float(((seq * m).sum(1) / m.sum(1)).std(0).mean())


def phase1_figure(curves, first_seed: int) -> tuple:
    """Train vs dev accuracy per epoch of every stack-and-finetune run of ``first_seed``, phase 1 shaded.

    Args:
        curves: the per-epoch curves (``Experiment.curves()``).
        first_seed: the seed whose runs are drawn.

    Returns:
        ``(figure, one sentence per panel on where phase 1 stopped)`` (:func:`phase1_story`).
    """
    import matplotlib.pyplot as plt

    sf = curves[(curves.strategy == "stack_and_finetune") & (curves.seed == first_seed)]
    panels = list(sf.groupby(["task", "model"], sort=False))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 3.4), squeeze=False)
    stories = []
    for ax, ((task_name, model_name), g) in zip(axes[0], panels):
        plot_phase_curve(ax, g, title=f"{task_name}\n{model_name}")
        stories.append(f"{task_name} / {model_name}: {phase1_story(g)}")
    fig.tight_layout()
    return fig, stories


def wide(results):
    """One row per run, one column per metric.

    Args:
        results: long rows ``task, model, strategy, seed, metric, value``.

    Returns:
        A DataFrame with ``task, model, strategy, seed`` and the metrics as columns.
    """
    return results.pivot_table(
        index=["task", "model", "strategy", "seed"], columns="metric", values="value"
    ).reset_index()


def phase1_stops(runs_wide):
    """Per task and head: the stack-and-finetune runs, their phase-1 and phase-2 epochs, phase 1's early stops.

    Args:
        runs_wide: one row per run (:func:`wide`).

    Returns:
        A DataFrame indexed by ``task, model``: ``seeds`` (how many runs), ``phase1_epochs`` (mean),
        ``stopped_by_the_rule`` (how many phase 1s the divergence rule stopped), ``phase2_epochs`` (mean).
    """
    ph = runs_wide[runs_wide.strategy == "stack_and_finetune"]
    return ph.groupby(["task", "model"]).agg(
        seeds=("seed", "count"),
        phase1_epochs=("phase1_epochs", "mean"),
        stopped_by_the_rule=("phase1_stopped_early", "sum"),
        phase2_epochs=("phase2_epochs", "mean"),
    )


def section_metrics(section: str, task) -> list:
    """The metrics a section's tables show.

    Args:
        section: ``"tagging"``, ``"classification"`` or ``"pairs"``.
        task: the section's task (:class:`~stack_and_finetune_runs.TaskData`).

    Returns:
        Tagging: entity F1 (entity tasks) and token accuracy; classification: accuracy and macro-F1; pairs: accuracy.
    """
    if section == "tagging":
        return (["entity_f1"] if task.is_entity_task else []) + ["token_accuracy"]
    return ["accuracy", "macro_f1"] if section == "classification" else ["accuracy"]


def strategies_figure(results, primary: dict):
    """One bar chart per task: each (head, strategy)'s test score on the task's primary metric, ± one SE.

    Args:
        results: long rows ``task, model, strategy, seed, metric, value``.
        primary: ``{task: its primary metric}``.

    Returns:
        The matplotlib figure.
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(primary), figsize=(3.4 * len(primary), 3.4), squeeze=False)
    for ax, (name, metric) in zip(axes[0], primary.items()):
        st = summarize(results[(results.task == name) & (results.metric == metric)], ["model", "strategy"])
        labels = [f"{m}\n{s.replace('_and_', '&').replace('_only', '')}" for m, s in st.index]
        ax.bar(
            range(len(st)),
            100 * st["mean"],
            yerr=100 * st["se"].fillna(0),
            capsize=3,
            color=["C0" if s == "finetune_only" else "C1" if s == "stack_only" else "C2" for _, s in st.index],
        )
        ax.set_xticks(range(len(st)), labels, fontsize=7, rotation=60)
        ax.set(title=name, ylabel=f"test {metric} (%)", ylim=(max(0, 100 * st["mean"].min() - 15), None))
    fig.tight_layout()
    return fig


def constant_guesses(data: dict, tasks: dict) -> dict:
    """``{task: the constant guess on its primary metric}``, learned from the training split, scored on test.

    Args:
        data: ``{task name: TextDataset}``.
        tasks: ``{task name: TaskData}``, for the primary metric.

    Returns:
        Per task the most frequent tag's token accuracy, or the most frequent class's accuracy; 0 for entity F1
        (a constant "outside" tag finds no entity).
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


def _said(stats, task: str, a: tuple, b: tuple, metric: str) -> str:
    """The difference ``a - b`` on ``task`` and ``metric`` in points, with its Welch t-test, or ``not run``.

    Args:
        stats: :func:`kit.analysis.summarize`'s frame, indexed by ``task, model, strategy, metric``.
        task: the task's name.
        a: ``(model, strategy)`` of the first run.
        b: ``(model, strategy)`` of the run it is compared with.
        metric: the metric compared.

    Returns:
        :class:`kit.analysis.Difference`'s text, or ``"not run"`` when either run is missing.
    """
    ka, kb = (task, *a, metric), (task, *b, metric)
    return (
        difference(stats.loc[ka], stats.loc[kb]).text(100, " points")
        if ka in stats.index and kb in stats.index
        else "not run"
    )


def _budget_line(primary: dict, sizes: dict, both: list) -> str:
    """The sentence on the epochs each strategy trains, and on which tasks finetune-only also ran the same total.

    Args:
        primary: ``{task: its primary metric}``.
        sizes: the scale's sizes (``phase1_epochs``, ``phase2_epochs``).
        both: the tasks with the matched-budget finetune-only runs.

    Returns:
        One sentence.
    """
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
    """The task's finetune-only score (and at the matched budget, and the constant guess, where known).

    Args:
        stats: :func:`kit.analysis.summarize`'s frame, indexed by ``task, model, strategy, metric``.
        name: the task.
        metric: its primary metric.
        sizes: the scale's sizes (``phase1_epochs``, ``phase2_epochs``).
        guesses: ``{task: the constant guess}`` or None.

    Returns:
        One line.
    """
    p1, p2 = sizes["phase1_epochs"], sizes["phase2_epochs"]
    ft = stats.loc[(name, "light", "finetune_only", metric)]
    line = f"{name} ({metric}): finetune-only {format_mean_se(ft['mean'], ft['se'], 100, 1)}"
    if (name, "light", "finetune_only_matched", metric) in stats.index:
        fm = stats.loc[(name, "light", "finetune_only_matched", metric)]
        line += f", at {p1 + p2} epochs {format_mean_se(fm['mean'], fm['se'], 100, 1)}"
    if guesses and name in guesses:
        line += f"; a constant guess {100 * guesses[name]:.1f}"
    return line


def _rich_head_lines(stats, name: str, metric: str, heads: list, section: str, matched: bool) -> list[str]:
    """Each rich head's stack-and-finetune against finetune-only and stack-only, then the rich heads against each other.

    With ``matched``, stack-and-finetune is also set against finetune-only at the same number of epochs.

    Args:
        stats: :func:`kit.analysis.summarize`'s frame, indexed by ``task, model, strategy, metric``.
        name: the task.
        metric: its primary metric.
        heads: the task's models, the light head first.
        section: the task's section (``classification`` adds the ensemble).
        matched: whether the task ran finetune-only at the matched budget.

    Returns:
        The lines, each indented by two spaces.
    """
    lines = []
    for m in heads[1:] + (["ensemble"] if section == "classification" else []):
        sf = (m, "stack_and_finetune")
        lines.append(
            f"  {m}: stack-and-finetune vs finetune-only {_said(stats, name, sf, ('light', 'finetune_only'), metric)}"
        )
        if matched:
            lines.append(
                f"  {m}: stack-and-finetune vs finetune-only at the same epochs "
                f"{_said(stats, name, sf, ('light', 'finetune_only_matched'), metric)}"
            )
        lines.append(f"  {m}: stack-and-finetune vs stack-only {_said(stats, name, sf, (m, 'stack_only'), metric)}")
    rich = heads[1:]
    if len(rich) == 2:
        a, b = rich[1], rich[0]
        lines.append(
            f"  {a} vs {b}, both stack-and-finetune: "
            f"{_said(stats, name, (a, 'stack_and_finetune'), (b, 'stack_and_finetune'), metric)}"
        )
    return lines


def _run_lines(results, runs_wide, sizes: dict) -> list[str]:
    """How many phase 1s the divergence rule stopped, and the mean seconds per run of each strategy.

    Args:
        results: long rows ``task, model, strategy, seed, metric, value``.
        runs_wide: one row per run (:func:`wide`).
        sizes: the scale's sizes (``phase1_epochs``).

    Returns:
        Two lines.
    """
    sf = runs_wide[runs_wide.strategy == "stack_and_finetune"]
    stops = (
        f"phase 1 was stopped by the divergence rule in {int(sf.phase1_stopped_early.sum())} of {len(sf)} "
        f"stack-and-finetune runs; the others reached the {sizes['phase1_epochs']}-epoch cap"
    )
    secs = summarize(results[results.metric == "seconds"], "strategy")["mean"]
    return [stops, f"mean seconds per run: { {k: round(v, 1) for k, v in secs.items()} }"]


def sentences(
    results, runs_wide, primary: dict, models: dict, specs: dict, sizes: dict, guesses: dict | None = None
) -> list[str]:
    """Every comparison the notebook states, from this run.

    The budgets; each rich head's stack-and-finetune against finetune-only (at its own and at an equal number of
    epochs) and stack-only, with Welch's t-test; the two rich heads against each other; phase-1 stops; seconds per
    run.

    Args:
        results: long rows ``task, model, strategy, seed, metric, value``.
        runs_wide: one row per run (:func:`wide`).
        primary: ``{task: its primary metric}``.
        models: ``{task: [model names]}``, the light head first.
        specs: ``{task name: spec}`` (its ``section``).
        sizes: the scale's sizes (the epochs, ``matched_budget``).
        guesses: ``{task: the constant guess}`` (:func:`constant_guesses`), or None.

    Returns:
        The sentences, one per line.
    """
    stats = summarize(results, ["task", "model", "strategy", "metric"])
    both = [name for name in primary if matched_budget(sizes, name)]
    lines = [_budget_line(primary, sizes, both)]
    for name, metric in primary.items():
        lines.append(_finetune_only_line(stats, name, metric, sizes, guesses))
        lines += _rich_head_lines(stats, name, metric, models[name], specs[name]["section"], name in both)
    return lines + _run_lines(results, runs_wide, sizes)


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


def checks(runs_wide, plan_rows, sections: dict, tasks: dict, data: dict, out, min_seeds: int = 3) -> dict:
    """What CI asserts on every run, as ``{claim: bool}``.

    Every run is there; the freeze scheduler did what it promises in every run; the tasks are learned well above
    their constant guess; the files exist.

    Args:
        runs_wide: one row per run (:func:`wide`).
        plan_rows: the planned runs (:func:`stack_and_finetune_runs.plan`).
        sections: ``{section: [task names]}`` (:func:`stack_and_finetune_runs.by_section`).
        tasks: ``{task name: TaskData}``.
        data: ``{task name: TextDataset}``, for the constant guesses.
        out: the run's folder (a ``Path``), where the figures and tables are looked for.
        min_seeds: the fewest seeds each task, head and strategy must have.

    Returns:
        ``{claim: bool}``, the POS claim last where a POS task runs (medium, full).
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
    } | (
        {
            "POS: finetune-only beats the most frequent tag by > 20 points":  # where a POS task runs (medium, full)
            all(bool(of("token_accuracy", task=n, strategy="finetune_only").mean() > guess[n] + 0.2) for n in pos)
        }
        if pos
        else {}
    )
