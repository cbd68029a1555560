"""Notebook 04's report: its tables beside the paper's, its figure, the sentences it prints and the checks CI reads.

:func:`scores` keeps one metric of the long ``results.csv`` (``experiment, setting, task, seed, metric, value``);
:func:`add_task_mean` adds each run's mean over the tasks (the paper's "avg"); :func:`table` shows mean ± SE over seeds;
:func:`compare` is two settings' difference with its SE and verdict (:func:`kit.analysis.difference`).

>>> import pandas as pd
>>> rows = [("baseline", "single-task", t, s, "test_score", v) for t, s, v in
...         [("sst", 0, 0.40), ("sst", 1, 0.44), ("sts", 0, 0.20), ("sts", 1, 0.30)]]
>>> rows += [("architecture", "multi-BERT", t, s, "test_score", v) for t, s, v in
...          [("sst", 0, 0.42), ("sst", 1, 0.42), ("sts", 0, 0.10), ("sts", 1, 0.14)]]
>>> long = pd.DataFrame(rows, columns=["experiment", "setting", "task", "seed", "metric", "value"])
>>> s = add_task_mean(scores(long), ["sst", "sts"])
>>> [str(v) for v in table(s, ["sst", "sts"]).loc[("architecture", "multi-BERT")]]
['42.0 ± 0.0', '12.0 ± 2.0', '27.0 ± 1.0', '2']
>>> compare(s, ("architecture", "multi-BERT"), ("baseline", "single-task"), "mean").text(100, " points")
'-6.5 ± 3.6 points (within the noise: Welch t = -1.79, df = 1.2, p = 0.298; 2 seeds each)'
"""

from __future__ import annotations

import textwrap

import numpy as np

from ...analysis.baselines import constant_guess
from ...analysis.pictures import COLORS, arrow, box, canvas
from ...analysis.scales import plot_scales, scale_table
from ...analysis.spread import difference, format_mean_se, summarize
from ...analysis.verdicts import verdict_table
from ...metrics.task_scores import task_score
from . import serbertus_paper as paper
from .serbertus_runs import KEYS, ensembles, load_predictions

MEAN = "mean"
#: The baseline setting every ablation is compared with: one encoder per task, trained alone.
BASE = ("baseline", "single-task")


def scores(long, metric: str = "test_score"):
    """Rows ``experiment, setting, task, seed, value`` of one ``metric`` of the long results (``results.csv``)."""
    out = long[long.metric == metric][["experiment", "setting", "task", "seed", "value"]]
    return out.reset_index(drop=True)


def add_task_mean(frame, tasks, label: str = MEAN):
    """``frame`` plus a row ``task=label`` per (experiment, setting, seed) that scored all ``tasks``: their mean."""
    import pandas as pd

    tasks = list(tasks)
    part = frame[frame.task.isin(tasks)]
    g = part.groupby(["experiment", "setting", "seed"], sort=False)
    full = g.task.nunique() == len(tasks)
    means = g.value.mean()[full].reset_index()
    means["task"] = label
    return pd.concat([frame, means[frame.columns]], ignore_index=True)


def table(frame, tasks, index=("experiment", "setting"), scale: float = 100.0, digits: int = 1):
    """Mean ± SE over seeds as text: a row per ``index``, a column per task (then ``mean`` if present), and ``seeds``.

    ``scale`` multiplies the scores (100: points); a missing cell is ``-``.
    """
    import pandas as pd

    index = list(index)
    cols = list(tasks) + ([MEAN] if (frame.task == MEAN).any() else [])
    s = summarize(frame[frame.task.isin(cols)], index + ["task"])
    text = {key: format_mean_se(r["mean"], r["se"], scale, digits) for key, r in s.iterrows()}
    rows = {}
    for key in dict.fromkeys(tuple(k[:-1]) for k in text):
        rows[key if len(key) > 1 else key[0]] = {c: text.get(key + (c,), "-") for c in cols}
        rows[key if len(key) > 1 else key[0]]["seeds"] = int(s.loc[[k for k in text if k[:-1] == key], "seeds"].max())
    out = pd.DataFrame.from_dict(rows, orient="index")
    if len(index) > 1:
        out.index = pd.MultiIndex.from_tuples(out.index, names=index)
    else:
        out.index.name = index[0]
    return out


def summary(frame, setting: tuple, task: str):
    """``summarize`` row (mean, se, std, seeds) of ``(experiment, setting)`` on ``task``; KeyError if unscored."""
    e, s = setting
    part = frame[(frame.experiment == e) & (frame.setting == s) & (frame.task == task)]
    if part.empty:
        raise KeyError(f"No scores for {setting} on task {task!r}.")
    return summarize(part.assign(key=0), "key").iloc[0]


def compare(frame, a: tuple, b: tuple, task: str):
    """``a - b`` on ``task`` (arms ``(experiment, setting)``): a :class:`kit.analysis.spread.Difference`."""
    return difference(summary(frame, a, task), summary(frame, b, task))


def finite(values) -> bool:
    """True when every value is a finite number."""
    return bool(np.isfinite(np.asarray(values, dtype="float64")).all())


# --- the tasks and the models -----------------------------------------------------------------------------------------


def constant_guesses(datasets: dict, kinds: dict) -> dict:
    """``{task: test score of always predicting the training majority}`` (0 for a regression task's Pearson)."""
    return {
        t: constant_guess(ds.train.y, ds.test.y, "pearson" if kinds[t] == "regression" else "accuracy")
        for t, ds in datasets.items()
    }


def task_table(datasets: dict, kinds: dict):
    """One row per task: the paper's task it stands in for, the data set, its kind, sizes, metric, constant guess."""
    import pandas as pd

    guess = constant_guesses(datasets, kinds)
    return pd.DataFrame(
        [
            {
                "task": t,
                "stands in for": paper.TASKS[t],
                "data": ds.name,
                "kind": kinds[t],
                **ds.sizes(),
                "score": "Pearson" if kinds[t] == "regression" else "accuracy",
                "constant guess (test)": round(guess[t], 3),
            }
            for t, ds in datasets.items()
        ]
    ).set_index("task")


def cut_lengths(raw: dict, sequence_length: int) -> str:
    """One line per task: median tokens and the share of texts cut (filling ``sequence_length``), all splits counted."""
    lines = []
    for t, splits in raw.items():
        lengths = np.concatenate([x["padding_mask"].sum(1) for x, _ in splits.values()])
        lines.append(
            f"{t}: median {int(np.median(lengths))} tokens, {np.mean(lengths >= sequence_length):.0%} of "
            f"texts cut at {sequence_length}"
        )
    return "\n".join(lines)


# --- the results ------------------------------------------------------------------------------------------------------


def pick(frame, *settings):
    """The rows of ``frame`` whose ``(experiment, setting)`` is one of ``settings``."""
    return frame[[(e, s) in settings for e, s in zip(frame.experiment, frame.setting)]]


def results(long, tasks) -> tuple:
    """``(test, dev)``: each run's score per task and their mean over the tasks (:func:`add_task_mean`)."""
    return tuple(add_task_mean(scores(long, m), tasks) for m in ("test_score", "dev_score"))


def task_labels(tasks, own=None, slot: str | None = None) -> dict:
    """``{task: its name in tables and figures}``, so a table never calls your file "sst".

    A task keeps its own name; your data (``own``, in ``slot``: ``serbertus_runs.slot_for``) gets its name and the place
    it takes.

    Example:
        >>> task_labels(["sst", "qqp"])
        {'sst': 'sst', 'qqp': 'qqp'}
    """
    labels = {t: t for t in tasks}
    if own is not None:
        labels[slot] = f"{own.name} (in {slot}'s place)"
    return labels


def named(frame, labels: dict):
    """``frame`` with its task columns and index entries renamed by :func:`task_labels`."""
    return frame.rename(columns=labels, index=labels)


def baseline_table(test, dev, tasks, guesses: dict):
    """The baseline's test and dev scores (mean ± SE over seeds) beside each task's constant guess (in points)."""
    import pandas as pd

    out = pd.concat({"test": table(pick(test, BASE), tasks), "dev": table(pick(dev, BASE), tasks)})
    out["constant guess"] = [" / ".join(f"{100 * guesses[t]:.1f}" for t in tasks)] * len(out)
    return out


def _ablation(test, experiment: str, baseline_label: str, task: str):
    import pandas as pd

    part = pd.concat([pick(test, BASE).assign(setting=baseline_label), test[test.experiment == experiment]])
    return table(part[part.task == task].assign(experiment=experiment), [task], index=["setting"])


def _mean_of(long, experiment: str, metric: str):
    m = long[(long.experiment == experiment) & (long.metric == metric)]
    return m.groupby("setting").value.mean().round(3)


def ablation_tables(test, long, task: str) -> dict:
    """``{"smart", "llrd", "mlm"}`` tables of test scores on the ablation ``task``, the baseline as each one's zero row.

    SMART's adds ``R_s`` (the final SMART term) and the train - test gap (:func:`gaps`); MLM's adds the MLM loss at the
    start and end of further pretraining.
    """
    smart = (
        _ablation(test, "smart", "lambda_s=0", task)
        .join(_mean_of(long, "smart", "smart_loss").rename("smart_loss (R_s)"))
        .join(gaps(long, task).rename("train - test (points)"))
    )
    mlm = (
        _ablation(test, "mlm", "mlm_steps=0", task)
        .join(_mean_of(long, "mlm", "mlm_loss_first").rename("MLM loss, first chunk"))
        .join(_mean_of(long, "mlm", "mlm_loss_last").rename("MLM loss, last chunk"))
    )
    return {"smart": smart, "llrd": _ablation(test, "llrd", "decay=1", task), "mlm": mlm}


def gaps(long, task: str):
    """Mean train - test score over seeds (points) on ``task`` per SMART setting and baseline (empty if none logged)."""
    import pandas as pd

    rows = long[
        (long.task == task)
        & long.metric.isin(["train_score", "test_score"])
        & ((long.experiment == "smart") | ((long.experiment == BASE[0]) & (long.setting == BASE[1])))
    ]
    wide = rows.pivot_table(index=["experiment", "setting", "seed"], columns="metric", values="value").reset_index()
    wide["setting"] = np.where(wide.experiment == "smart", wide.setting, "lambda_s=0")
    if "train_score" not in wide:
        return pd.Series(dtype="float64")
    return (100 * (wide.train_score - wide.test_score)).groupby(wide.setting).mean().round(1)


def architectures(test, long, first_seed: int) -> tuple:
    """``(scores, {setting: parameters as trained})`` of the baseline, multitask architectures and combined model.

    The baseline's three encoders are triple-BERT (``"triple-BERT (= baseline)"``): its size sums ``first_seed``'s
    single-task runs' parameters.
    """
    import pandas as pd

    arch = pd.concat(
        [
            pick(test, BASE).assign(experiment="architecture", setting="triple-BERT (= baseline)"),
            test[test.experiment.isin(["architecture", "combined"])],
        ]
    )
    params = long[(long.metric == "params") & (long.experiment.isin(["architecture", "combined"]))]
    size = params.groupby("setting").value.first().to_dict()
    size["triple-BERT (= baseline)"] = sum(
        long[(long.experiment == "baseline") & (long.metric == "params") & (long.seed == first_seed)].value
    )
    return arch, size


def architecture_table(arch, size: dict, tasks):
    """The paper's Table 6 for this run: each architecture's scores and its parameters as trained."""
    out = table(arch, tasks, index=["setting"])
    out["parameters (as trained)"] = [f"{size[s] / 1e6:.1f}M" for s in out.index]
    return out


def ensemble_table(test, ens, tasks):
    """The paper's Table 7 for this run: dev-gated ensemble (mean members, candidates) beside best single by dev."""
    out = table(test[test.experiment == "ensemble"], tasks, index=["setting"])
    out["members / candidates"] = " | ".join(
        f"{t}: {ens[ens.task == t].members.mean():.1f} / {ens[ens.task == t].candidates.mean():.0f}" for t in tasks
    )
    return out


def _smart_panel(ax, test, dev, task: str, shown: str, guess) -> None:
    """SMART's lambda_s sweep on ``task``: test and dev mean ± SE over seeds, the constant guess dashed."""
    import pandas as pd

    for frame, split in ((test, "test"), (dev, "dev")):  # not `label`: that names the task
        sm = pd.concat([pick(frame, BASE).assign(setting="lambda_s=0"), frame[frame.experiment == "smart"]])
        s = summarize(sm[sm.task == task], "setting")
        lam = [float(x.split("=")[1]) for x in s.index]
        ax.errorbar(lam, 100 * s["mean"], yerr=100 * s["se"].fillna(0), marker="o", capsize=3, label=f"{split} (± SE)")
    if guess is not None:
        ax.axhline(100 * guess, ls="--", lw=1, color="gray", label="constant guess")
    ax.set(xscale="symlog", xlabel="SMART weight lambda_s (0 = the baseline)", ylabel="score (points)")
    ax.set_xticks(lam, [f"{x:g}" for x in lam])
    ax.set_title(textwrap.fill(f"SMART on {shown} (the paper's Figure 4)", 60), fontsize=10)  # long names: 2 lines
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)  # under the axes, off the data


def _architecture_panel(ax, arch, size: dict, tasks, guess) -> None:
    """Grouped bars from zero: each architecture's test score per task and their mean (± SE, seeds as dots)."""
    groups = [*tasks, MEAN]
    settings = list(dict.fromkeys(arch.setting))
    width = 0.8 / len(settings)
    for j, setting in enumerate(settings):
        x = np.arange(len(groups)) + (j - (len(settings) - 1) / 2) * width
        mine = arch[arch.setting == setting]
        s = summarize(mine, "task").reindex(groups)
        ax.bar(x, 100 * s["mean"], width, yerr=100 * s["se"].fillna(0), capsize=2, alpha=0.8,
               label=f"{setting}, {size[setting] / 1e6:.1f}M parameters")  # fmt: skip
        for xi, t in zip(x, groups):
            ax.plot([xi] * int((mine.task == t).sum()), 100 * mine[mine.task == t].value, ".", color="k", ms=3)
    if guess is not None:
        chance = [guess[t] for t in tasks] + [float(np.mean([guess[t] for t in tasks]))]
        for i, g in enumerate(chance):
            ax.hlines(100 * g, i - 0.45, i + 0.45, colors="k", linestyles="--", lw=1,
                      label="constant guess" if i == 0 else None)  # fmt: skip
    ax.set_xticks(np.arange(len(groups)), groups)
    ax.set(ylim=(0, 100), xlabel="task (mean: of the three)", ylabel="test score (points: accuracy or Pearson x 100)")
    ax.set_title("architectures: size against score\n(the paper's Table 6)", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)


def figure(test, dev, arch: tuple, long, task: str, label: str | None = None, guess=None, tasks=None):
    """Three panels: SMART's lambda_s sweep, the architectures' scores and sizes, the MLM loss of further pretraining.

    The paper's Figure 4, Table 6 and Figure 5's mechanism. ``label`` names ``task`` (your data); ``guess``:
    ``{task: constant guess}`` (dashed); ``tasks``: the architecture panel's (default: the scores', their mean last).
    """
    shown, (arch, size) = label or task, arch
    import matplotlib.pyplot as plt

    tasks = list(tasks or [t for t in dict.fromkeys(arch.task) if t != MEAN])
    fig, ax = plt.subplots(1, 3, figsize=(16, 5.6), gridspec_kw={"width_ratios": [1, 1.4, 1]})
    _smart_panel(ax[0], test, dev, task, shown, None if guess is None else guess.get(task))
    _architecture_panel(ax[1], arch, size, tasks, guess)
    curve = long[(long.experiment == "mlm") & long.metric.str.startswith("mlm_loss_step")]
    for (setting, seed), g in curve.groupby(["setting", "seed"]):
        g = g.assign(step=g.metric.str.replace("mlm_loss_step", "").astype(int)).sort_values("step")
        ax[2].plot(g.step, g.value, marker=".", label=f"{setting}, seed {seed}")
    ax[2].set(xlabel="further-pretraining step", ylabel="MLM loss (nats per masked token)")
    title = f"further MLM pretraining on {shown} (a fresh head; the paper's Figure 5)"
    ax[2].set_title(textwrap.fill(title, 60), fontsize=10)
    ax[2].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    fig.tight_layout()
    return fig


# --- what this run shows ---------------------------------------------------------------------------------------------


def comparison_plan(sizes: dict, tasks) -> list[tuple]:
    """The verdict table's comparisons in order: ``(name, arm a, arm b, task, paper key, budget matched, note)``.

    Ablations (SMART, layer decay, further MLM) against the baseline on the ablation task; per task multi-BERT against
    triple-BERT (the baseline), each CerBERTus ``k``, joint triple-BERT and combined against multi-BERT where they run,
    and the dev-gated ensemble against the best single by dev. An arm is ``(experiment, setting)``; the key names
    :data:`serbertus_paper.SAYS`' entry (None: no claim of the paper).
    """
    a, multi = sizes["ablation_task"], ("architecture", "multi-BERT")
    out = [
        (f"SMART lambda_s={x:g} vs none", ("smart", f"lambda_s={x:g}"), BASE, a, "smart", True, "")
        for x in sizes["smart_lambdas"]
    ]
    out += [
        (f"layer decay {d:g} vs none", ("llrd", f"decay={d:g}"), BASE, a, "llrd", True, "")
        for d in sizes["llrd_decays"]
    ]
    out += [
        (
            f"{n} MLM steps first vs none",
            ("mlm", f"mlm_steps={n}"),
            BASE,
            a,
            "mlm",
            False,
            f"{n} extra MLM steps; no control with {n} more fine-tuning steps",
        )
        for n in sizes["mlm_steps"]
    ]
    others = [(("architecture", f"CerBERTus k={k}"), "cerbertus") for k in sizes["cerbertus_k"]]
    others += [(("architecture", "triple-BERT (joint)"), None)] if sizes["joint_triple"] else []
    if sizes["combined"]:
        c = sizes["combined"]
        others.append((("combined", f"CerBERTus k={c['k']} + SMART {c['lambda_s']:g} + decay {c['decay']:g}"), None))
    ensemble = ("ensemble", "dev-gated"), ("ensemble", "best single model (by dev)")
    for t in tasks:
        out.append(("multi-BERT vs triple-BERT", multi, BASE, t, "multi", True, ""))
        out += [(f"{x[1]} vs multi-BERT", x, multi, t, key, True, "") for x, key in others]
        out.append(
            (
                "dev-gated ensemble vs best single model (by dev)",
                *ensemble,
                t,
                "ensemble",
                True,
                "members chosen on dev",
            )
        )
    return out


def per_example(kind: str, y, predictions) -> np.ndarray:
    """1/0 per test example: is the prediction right (accuracy's terms: argmax, or P >= 0.5 for a binary task)?

    ``kind``: ``"classification"`` or ``"binary"`` (regression has no per-example terms); ``predictions`` unrounded.

    Example:
        >>> per_example("binary", [1, 0, 1], [0.9, 0.7, 0.2]).tolist()
        [1.0, 0.0, 0.0]
    """
    y, p = np.asarray(y).reshape(-1), np.asarray(predictions, dtype="float64")
    if kind == "classification":
        return (p.argmax(-1) == y).astype(float)
    return ((p.reshape(len(y), -1)[:, 0] >= 0.5).astype(int) == y.astype(int)).astype(float)


def _arms(plan_rows, out, data: dict, kinds: dict) -> dict:
    """``{(experiment, setting): {task: {seed: test predictions}}}`` of every planned run and both ensembles."""
    arms = {}
    for r in plan_rows:
        for t, p in load_predictions(out, r)["test"].items():
            arms.setdefault((r["experiment"], r["setting"]), {}).setdefault(t, {})[r["seed"]] = p
    ens = ensembles(plan_rows, out, data, kinds, keep_predictions=True)
    columns = {"dev-gated": "test_predictions", "best single model (by dev)": "best_single_test_predictions"}
    for setting, column in columns.items():
        for r in ens.itertuples():
            arms.setdefault(("ensemble", setting), {}).setdefault(r.task, {})[r.seed] = getattr(r, column)
    return arms


def budgets(long) -> dict:
    """What each arm trained: ``{(experiment, setting, task): {"steps", "epochs"}}``, means over seeds.

    ``trained_steps`` include further MLM steps; a multitask run's are on its own row (``task`` joined by ``+``). Empty
    for runs recorded before runs kept them.

    Example:
        >>> import pandas as pd
        >>> long = pd.DataFrame([("smart", "lambda_s=1", "sst", s, "trained_steps", 20.0 + s) for s in (0, 1)],
        ...                     columns=["experiment", "setting", "task", "seed", "metric", "value"])
        >>> budgets(long)
        {('smart', 'lambda_s=1', 'sst'): {'steps': 20.5}}
    """
    kept = long[long.metric.isin(["trained_steps", "trained_epochs"])]
    out = {}
    for (e, s, t, m), v in kept.groupby(["experiment", "setting", "task", "metric"]).value.mean().items():
        out.setdefault((e, s, t), {})[m.removeprefix("trained_")] = float(v)
    return out


def _budget_of(trained: dict, arm: tuple, task: str, tasks) -> dict | None:
    """An arm's budget on ``task``: its single-task run's, else its multitask run's (``a+b+c``)."""
    return trained.get((*arm, task)) or trained.get((*arm, "+".join(tasks)))


def _effect(key, task: str, arm: tuple):
    """The paper's effect for a comparison on ``task`` (None where it gives only a direction, or none)."""
    value = paper.EFFECTS.get(key, {}).get(task) if key else None
    if key == "llrd" and arm[1] != "decay=0.95":
        value = None  # Table 4's +0.7 is decay 0.95's
    return value


def verdicts(plan_rows, out, data: dict, kinds: dict, sizes: dict, labels: dict | None = None, trained=None):
    """The notebook's verdict table (:func:`kit.analysis.verdict_table`) over :func:`comparison_plan`, in points.

    Arms are the saved test predictions per seed: accuracy as 1/0 per example (:func:`per_example`), Pearson via
    per-example pseudo-values; beside the paper's effect (``serbertus_paper.EFFECTS``) and, from ``trained``
    (:func:`budgets`), both arms' budgets; the ensemble comparison is a recipe one. Holm's correction spans the table.
    Rows are named ``"<comparison> (<task>)"``.

    Raises:
        FileNotFoundError: a planned run's predictions are gone (``serbertus_runs.load_predictions``).
    """
    arms, items, tasks, trained = _arms(plan_rows, out, data, kinds), [], list(data), trained or {}
    for name, x, y, t, key, matched, note in comparison_plan(sizes, tasks):
        item = {"name": f"{name} ({(labels or {}).get(t, t)})", "note": note, "effect": _effect(key, t, x)}
        spent_a, spent_b = _budget_of(trained, x, t, tasks), _budget_of(trained, y, t, tasks)
        if x[0] == "ensemble":
            item["recipe"] = True
        elif spent_a and spent_b:
            item.update(budget_a=spent_a, budget_b=spent_b)
        else:
            item["budget_matched"] = matched
        a, b, yt = arms[x][t], arms[y][t], data[t]["test"][1]
        if kinds[t] == "regression":
            kind = kinds[t]
            item.update(a=a, b=b, labels=yt, score=lambda p, y_true, kind=kind: task_score(kind, y_true, p))
        else:
            item.update(
                a={s: per_example(kinds[t], yt, p) for s, p in a.items()},
                b={s: per_example(kinds[t], yt, p) for s, p in b.items()},
            )
        items.append(item)
    return verdict_table(items, scale=100.0)


def sentences(table, test, sizes: dict, tasks, guesses: dict, labels: dict | None = None) -> list[str]:
    """A sentence per verdict row (the paper's claim in brackets), then each baseline's test score beside its guess."""
    shown = lambda t: (labels or {}).get(t, t)  # noqa: E731 - a task's name on screen (task_labels)
    lines = []
    for r, c in zip(table.itertuples(), comparison_plan(sizes, tasks)):
        said = f" [paper: {paper.SAYS[c[4]]}]" if c[4] else ""
        lines.append(
            f"{r.comparison}: {r.delta:+.1f} points, 95% interval [{r.low:+.1f}, {r.high:+.1f}]: {r.verdict} "
            f"(Holm-corrected p {r.p_holm:.3f}; could find ±{r.detectable:.1f}){said}"
        )
    for t in tasks:
        s = summary(test, BASE, t)
        lines.append(
            f"{shown(t)}: the baseline scores {format_mean_se(s['mean'], s['se'], 100, 1)} on test; "
            f"a constant guess {100 * guesses[t]:.1f}"
        )
    return lines


#: The files notebook 04 writes to its output folder (:func:`checks` asserts they exist).
_FILES = (
    "results.csv",
    "table_baseline.csv",
    "table_smart.csv",
    "table_llrd.csv",
    "table_mlm.csv",
    "table6_architectures.csv",
    "table7_ensemble.csv",
    "ensembles.csv",
    "verdicts.csv",
    "serbertus_results.png",
)


def checks(long, test, plan_rows, done: set, sizes: dict, guesses: dict, tasks, out) -> dict:
    """What CI asserts on every run, as ``{claim: bool}``.

    Each can fail on a broken kit: a model that does not learn, a layer decay or SMART term that changes nothing,
    further pretraining that does not lower the MLM loss. ``done``: the measured runs, as tuples of their :data:`KEYS`
    as strings.
    """
    trained = long[long.experiment != "ensemble"]
    seeds = trained[trained.metric == "test_score"].groupby(["experiment", "setting", "task"]).seed.nunique()
    mlm = long[long.experiment == "mlm"].pivot_table(index=["setting", "seed"], columns="metric", values="value")
    a = sizes["ablation_task"]

    def per_seed(setting):
        part = test[(test.experiment == setting[0]) & (test.setting == setting[1]) & (test.task == a)]
        return part.sort_values("seed").value.to_numpy()

    def margin(t):  # 10 points of accuracy; a Pearson correlation of 0.3
        return 0.3 if guesses[t] == 0.0 else 0.10

    base = per_seed(BASE)
    return {
        "every planned run measured": all(tuple(str(r[k]) for k in KEYS) in done for r in plan_rows),
        "every setting has at least 3 seeds": bool(seeds.min() >= 3),
        "every baseline beats its constant guess (10 points of accuracy, Pearson 0.3)": all(
            summary(test, BASE, t)["mean"] >= guesses[t] + margin(t) for t in tasks
        ),
        "layer decay changed the test scores (it is applied)": all(
            not np.allclose(per_seed(("llrd", f"decay={d:g}")), base) for d in sizes["llrd_decays"]
        ),
        "SMART changed the test scores (its term is in the loss)": all(
            not np.allclose(per_seed(("smart", f"lambda_s={x:g}")), base) for x in sizes["smart_lambdas"]
        ),
        "further MLM pretraining lowered the MLM loss in every run": bool(
            (mlm["mlm_loss_last"] < mlm["mlm_loss_first"]).all()
        ),
        "every score is a finite number": finite(test.value),
        "tables and figures written": all((out / f).exists() for f in _FILES),
    }


# --- the "how it works" pictures (one call each in the notebook) ------------------------------------------------


def draw_sharing(layers: int = 3, k: int = 2, tasks=("SST", "QQP", "STS")):
    """Which of ``layers`` layers the tasks share in multi-BERT, CerBERTus ``k`` and triple-BERT: one panel each.

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> [ax.get_title() for ax in draw_sharing(layers=2, k=1).axes]
        ['multi-BERT (k = 0)', 'CerBERTus k = 1', 'triple-BERT']
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    rows = ["embeddings", *(f"layer {i}" for i in range(layers)), "pooler", "head"]
    modes = {"multi-BERT (k = 0)": layers + 2, f"CerBERTus k = {k}": layers + 1 - k, "triple-BERT": 0}  # rows shared
    n = len(tasks)
    fig, axes = plt.subplots(1, 3, figsize=(10, 0.53 * len(rows) + 0.6), sharey=True)
    for ax, (mode, shared) in zip(axes, modes.items()):
        for r, name in enumerate(rows):
            if r < shared:  # one box across the tasks: shared weights
                ax.add_patch(Rectangle((0.05, r + 0.1), n - 0.1, 0.8, fc=COLORS["shared"], ec="gray"))
                ax.text(n / 2, r + 0.5, f"{name} (shared)", ha="center", va="center", fontsize=8)
            else:  # one box per task: its own copy
                for t, task in enumerate(tasks):
                    ax.add_patch(Rectangle((t + 0.05, r + 0.1), 0.9, 0.8, fc=COLORS["head"], ec="gray"))
                    ax.text(t + 0.5, r + 0.5, f"{task}\n{name}", ha="center", va="center", fontsize=6.5)
        ax.set(xlim=(0, n), ylim=(0, len(rows)), title=mode, xticks=[], yticks=[])
        ax.set_xlabel("input at the bottom, outputs at the top", fontsize=8)
    handles = [
        Rectangle((0, 0), 1, 1, fc=COLORS["shared"], ec="gray"),
        Rectangle((0, 0), 1, 1, fc=COLORS["head"], ec="gray"),
    ]
    fig.legend(
        handles=handles,
        labels=[f"shared by the {n} tasks", "one copy per task"],
        loc="lower center",
        ncol=2,
        frameon=False,
        bbox_to_anchor=(0.5, 0.0),
    )
    fig.tight_layout(rect=(0, 0.08, 1, 1))  # room for the legend
    return fig


def draw_smart():
    """SMART's two forward passes, clean and perturbed, and the divergence between them (a matplotlib figure)."""
    boxes = {  # name: (x, y, half width, label); top row: clean, bottom row: perturbed
        "x": (0.4, 1.0, 0.35, "tokens x"),
        "emb": (1.75, 1.0, 0.6, "embeddings\ne = emb(x)"),
        "enc1": (4.9, 1.8, 0.4, "encoder"),
        "head1": (6.1, 1.8, 0.3, "head"),
        "p": (7.75, 1.8, 0.9, "p = softmax f(e)"),
        "noise": (3.3, 0.2, 0.75, "e + δ\nδ: N(0, σ²), ascent"),
        "enc2": (4.9, 0.2, 0.4, "encoder"),
        "head2": (6.1, 0.2, 0.3, "head"),
        "q": (7.75, 0.2, 0.9, "q = softmax f(e + δ)"),
        "kl": (9.85, 1.0, 0.6, "R_s = KL(sg(q)‖p)\n+ KL(sg(p)‖q)"),
    }
    fig, ax = canvas(
        (10, 2.6),
        (-0.1, 10.7),
        (-0.2, 2.4),
        "SMART: a clean pass (top) and a pass with noise on the embeddings (bottom)",
    )
    drawn = {
        name: box(ax, x, y, label, COLORS["noise"] if name in ("noise", "kl") else COLORS["shared"])
        for name, (x, y, _w, label) in boxes.items()
    }
    for a, b in [
        ("x", "emb"),
        ("emb", "enc1"),
        ("enc1", "head1"),
        ("head1", "p"),
        ("emb", "noise"),
        ("noise", "enc2"),
        ("enc2", "head2"),
        ("head2", "q"),
        ("p", "kl"),
        ("q", "kl"),
    ]:
        arrow(ax, drawn[a], drawn[b], color="gray")
    ax.text(5.5, 1.0, "the same encoder and head (same weights)", ha="center", fontsize=8, style="italic", color="gray")
    ax.text(9.85, 2.2, "loss = L + lambda_s · R_s", ha="center", fontsize=9)
    return fig


def draw_layer_rates(layers: int = 12, decays=(0.95, 0.8)):
    """Each layer's learning rate over the base rate under layer-wise decay, a bar group per xi (BERT-base: 12)."""
    import matplotlib.pyplot as plt

    groups = ["emb"] + [str(i) for i in range(layers)] + ["head"]
    fig, ax = plt.subplots(figsize=(9, 2.8))
    width = 0.8 / len(decays)
    for j, xi in enumerate(decays):
        rates = [xi**layers] + [xi ** (layers - 1 - i) for i in range(layers)] + [1.0]  # eta_i / eta
        ax.bar(np.arange(len(groups)) + (j - (len(decays) - 1) / 2) * width, rates, width=width, label=f"xi = {xi}")
    ax.set_xticks(range(len(groups)), groups)
    ax.set(
        xlabel="group (emb = embeddings, 0 = the layer nearest the input)", ylabel="rate / base rate eta", ylim=(0, 1.1)
    )
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title("Layer-wise decay: each layer learns at xi times the rate of the one above", fontsize=10)
    fig.tight_layout()
    return fig


# --- this run beside the committed medium run --------------------------------------------------------------------


def options_text(options: dict) -> str:
    """A data set's options (``kit.data.load``'s) as a person reads them, ``""`` for none.

    Example:
        >>> options_text({"target": "5class", "negatives": "mixed"}), options_text({})
        ('target=5class, negatives=mixed', '')
    """
    return ", ".join(f"{key}={value}" for key, value in options.items())


def _guess(guesses: dict, tasks: list, task: str, every: str):
    """A panel's constant guess: the task's, or the tasks' mean for the multitask row; None where one is missing."""
    if task != every:
        return guesses.get(task)
    values = [guesses.get(t) for t in tasks]
    return None if None in values else float(np.mean(values))


def scales_figure(ours, medium, guesses: dict, about: dict, medium_tasks: dict, planned: int, kinds: dict):
    """This run beside the committed medium run: a panel per task (``about``, in order) and one for the multitask mean.

    ``ours``: this run's long results without the ensembles; ``medium``: :func:`kit.analysis.medium_results` of notebook
    04, or None; ``guesses``: ``{"smoke"|"medium": {task: guess}}`` (a task without one gets no line); ``medium_tasks``:
    the medium scale's ``tasks``; ``planned``: the runs the medium run planned that day (seeds included).
    """
    import matplotlib.pyplot as plt

    keys, tasks = ["experiment", "setting", "task"], list(about)
    medium = medium if medium is not None else ours.iloc[:0]
    every = "+".join(tasks)  # the multitask runs' summary row: the mean of the tasks
    panels = {t: scale_table(ours[ours.task == t], medium[medium.task == t], keys, "test_score") for t in tasks}
    panels[every] = scale_table(ours[ours.task == every], medium[medium.task == every], keys, "test_mean")
    fig, axes = plt.subplots(
        len(panels),
        1,
        figsize=(10, 0.45 * sum(map(len, panels.values())) + 1.8 * len(panels)),
        gridspec_kw={"height_ratios": [len(t) + 2 for t in panels.values()]},
        squeeze=False,
    )
    for ax, (t, table) in zip(axes[:, 0], panels.items()):
        spec = medium_tasks.get(t)
        if t == every:
            title, unit = "the multitask runs, mean of the three tasks", "mean of the 3 (points)"
        else:
            unit = "Pearson × 100" if kinds.get(t) == "regression" else "accuracy (%)"
            options = f" ({options_text(spec['options'])})" if spec and spec["options"] else ""
            title = about[t] + (f"; at medium: {spec['dataset']}{options}" if spec else "")
        guess = {scale: _guess(g, tasks, t, every) for scale, g in guesses.items()}
        label = [": ".join(s.split(" | ")[:2]) for s in table.setting]  # experiment: setting (the panel is the task)
        plot_scales(table.assign(setting=label), metric_label=f"test {unit}", ax=ax, guess=guess, title=title)
    reached = int((medium.metric == "seconds").sum())  # one "seconds" row per finished run
    fig.suptitle(
        f"This run beside medium (one H200, jax, 2026-11-26; the earlier recipe: weight decay 0.01, head dropout"
        f" 0.1):\n"
        f"medium stopped early, after {reached} of its {planned} planned runs",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # room for the title
    return fig
