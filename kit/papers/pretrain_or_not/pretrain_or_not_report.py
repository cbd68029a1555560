"""Notebook 01's report: the gap to the transformer as data grows (Figure 1), Table 2, the verdicts, the checks.

Accuracy: mean ± standard error over seeds (:func:`kit.analysis.summarize`). One verdict table (:func:`verdicts`):
runs paired example by example on their shared test set, an interval from the seeds' spread (Welch's t) and the test
set's (:func:`kit.analysis.compare_arms`), Holm's correction across the table, quoted by :func:`table2`.

>>> specs = {"LSTM-2-64": ("lstm", 2, 64), "LSTM-2-64 + MiniLM emb": ("lstm+pretrained", 2, 64)}
>>> table_pairs(specs | {"T": ("transformer", None, None)})
[('LSTM-2-64 + MiniLM emb', 'LSTM-2-64', 'the pretrained table, same depth')]
>>> specs = {"LSTM-2-256": ("lstm", 2, 256), "LSTM-4-256": ("lstm", 4, 256), **{"LSTM-4-256 + MiniLM emb":
...     ("lstm+pretrained", 4, 256), "T": ("transformer", None, None)}}
>>> [pair[:2] for pair in table_pairs(specs)]
[('LSTM-4-256 + MiniLM emb', 'LSTM-4-256'), ('LSTM-4-256', 'LSTM-2-256')]
>>> gap_name("T", "LSTM-2-64", 1000), shrink_name("T", "LSTM-2-64", 250, 1000)
('T - LSTM-2-64, 1,000 examples', '(T - LSTM-2-64) at 250 minus at 1,000 examples (> 0: the gap shrank)')
"""

from __future__ import annotations

import numpy as np

from ...analysis.pictures import arrow, box, canvas
from ...analysis.spread import difference, format_mean_se, summarize
from ...analysis.verdicts import verdict_table
from ..experiment import load_predictions, predictions_path
from . import pretrain_or_not_paper as paper
from .pretrain_or_not_runs import KEYS, transformer_of

#: The verdict table's note on every comparison with the transformer: each model trains with its own recipe.
RECIPES_NOTE = "each model its own recipe (the paper's); the same n training examples"


def accuracy_stats(results):
    """Test accuracy per (model, train_examples) from ``results.csv``: columns ``mean, se, std, seeds``."""
    return summarize(results[results.metric == "test_accuracy"], ["model", "train_examples"])


def gaps(stats, model_specs: dict, train_sizes) -> dict:
    """``{model: {n: transformer - model}}`` (:class:`kit.analysis.Difference`) for every model but the transformer."""
    top = transformer_of(model_specs)
    return {
        m: {n: difference(stats.loc[(top, n)], stats.loc[(m, n)]) for n in train_sizes} for m in model_specs if m != top
    }


def load_correct(out, plan_rows) -> dict:
    """Every planned run's 1/0 per test example: ``{model: {train_examples: {seed: array}}}``.

    Raises:
        FileNotFoundError: a run's file is missing (recorded by an older kit): delete its rows of ``results.csv``, or
            the output folder, and rerun the sweep.
    """
    correct, missing = {}, []
    for r in plan_rows:
        path = predictions_path(out, r, KEYS)
        if not path.exists():
            missing.append(path.name)
            continue
        correct.setdefault(r["model"], {}).setdefault(r["train_examples"], {})[r["seed"]] = load_predictions(
            out, r, KEYS
        )["correct"]
    if missing:
        raise FileNotFoundError(
            f"{len(missing)} run(s) have no saved test predictions (e.g. {missing[0]}) in {out}/predictions: they "
            "were recorded by an older kit. Delete the output folder (or those runs' rows of results.csv) and rerun."
        )
    return correct


def gap_name(top: str, model: str, n: int) -> str:
    """The verdict table's name for the transformer's gap to ``model`` at ``n`` training examples."""
    return f"{top} - {model}, {n:,} examples"


def shrink_name(top: str, model: str, lo: int, hi: int) -> str:
    """The verdict table's name for how much the gap to ``model`` shrank from ``lo`` to ``hi`` examples."""
    return f"({top} - {model}) at {lo:,} minus at {hi:,} examples (> 0: the gap shrank)"


def pair_name(a: str, b: str, n: int) -> str:
    """The verdict table's name for ``a - b`` at ``n`` training examples."""
    return f"{a} - {b}, {n:,} examples"


def table_pairs(model_specs: dict) -> list[tuple]:
    """The LSTM comparisons ``[(a, b, note), ...]`` (each ``a - b``): the pretrained table against none, and depth.

    The LSTM with the table faces the plain LSTM of its size where one ran (medium, full: LSTM-4-256), else the last
    plain one (its note then says depth changed too); a deeper plain LSTM faces a shallower one of the same width.
    """
    plain = {(n, k): m for m, (kind, n, k) in model_specs.items() if kind == "lstm"}
    pre, (_, n, k) = next((m, spec) for m, spec in model_specs.items() if spec[0] == "lstm+pretrained")
    if (n, k) in plain:
        out = [(pre, plain[(n, k)], "the pretrained table, same depth")]
    else:
        out = [(pre, list(plain.values())[-1], "the pretrained table and the depth change together")]
    sizes = sorted(plain)
    out += [
        (plain[deep], plain[shallow], "depth, no pretrained table")
        for shallow, deep in zip(sizes, sizes[1:])
        if shallow[1] == deep[1]
    ]
    return out


def _diffs(a: dict, b: dict) -> dict:
    """``{seed: a - b per test example}`` over the seeds both arms ran."""
    return {s: a[s].astype(float) - b[s].astype(float) for s in sorted(set(a) & set(b))}


def budgets(results) -> dict:
    """What each (model, training size) trained: ``{(model, n): {"steps", "epochs"}}``, means over its seeds.

    Empty for results recorded before runs kept ``trained_steps`` and ``trained_epochs``.

    Example:
        >>> import pandas as pd
        >>> rows = [("L", 300, s, m, v) for s in (0, 1) for m, v in (("trained_steps", 10 + s), ("trained_epochs", 2))]
        >>> budgets(pd.DataFrame(rows, columns=["model", "train_examples", "seed", "metric", "value"]))
        {('L', 300): {'epochs': 2.0, 'steps': 10.5}}
    """
    kept = results[results.metric.isin(["trained_steps", "trained_epochs"])]
    means = kept.groupby(["model", "train_examples", "metric"]).value.mean()
    out = {}
    for (model, n, metric), v in means.items():
        out.setdefault((model, int(n)), {})[metric.removeprefix("trained_")] = float(v)
    return out


def verdicts(correct: dict, model_specs: dict, train_sizes, trained: dict | None = None):
    """The notebook's one verdict table (:func:`kit.analysis.verdict_table`, in points, Holm across every row).

    Rows: the transformer minus each other model at every size, and how much each gap shrank from the smallest to the
    largest size (a difference of differences per seed and test example), each model its own recipe; :func:`table_pairs`
    at every size, the LSTMs' budgets from ``trained`` (:func:`budgets`; None: not checked). Each row carries the
    paper's effect (``pretrain_or_not_paper.EFFECTS``). ``train_sizes`` smallest first; print with
    :func:`kit.analysis.show_verdicts`.
    """
    top, (lo, hi), trained = transformer_of(model_specs), (train_sizes[0], train_sizes[-1]), trained or {}
    others = [m for m in model_specs if m != top]
    effect = paper.EFFECTS
    rows = [
        dict(name=gap_name(top, m, n), a=correct[top][n], b=correct[m][n], note=RECIPES_NOTE, recipe=True,
             effect=effect["gap"])
        for m in others
        for n in train_sizes
    ]  # fmt: skip
    if lo != hi:
        rows += [
            dict(
                name=shrink_name(top, m, lo, hi),
                a=_diffs(correct[top][lo], correct[m][lo]),
                b=_diffs(correct[top][hi], correct[m][hi]),
                note=f"per seed and test example; {RECIPES_NOTE}",
                recipe=True,
                effect=effect["shrink"],
            )
            for m in others
        ]
    for a, b, note in table_pairs(model_specs):
        size = "pretrained table" if "pretrained" in note else "depth"
        for n in train_sizes:
            spent = {"budget_a": trained[(a, n)], "budget_b": trained[(b, n)]} if (a, n) in trained else {}
            rows.append(dict(name=pair_name(a, b, n), a=correct[a][n], b=correct[b][n], note=note,
                             effect=effect[size], **spent))  # fmt: skip
    return verdict_table(rows, scale=100)


def _said(table, name: str) -> str:
    """One row of the verdict table in words: its difference and 95% interval in points, its verdict, Holm's p."""
    r = table.set_index("comparison").loc[name]
    could = f"; could find ±{r.detectable:.1f}" if r.verdict == "noise" or r.verdict.startswith("too few") else ""
    return (
        f"{r.delta:+.1f} points, 95% interval [{r.low:+.1f}, {r.high:+.1f}] ({r.verdict}; Holm-corrected p "
        f"{_p(r.p_holm)}{could})"
    )


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


#: Each model family's colour in the figures (one colour per family at every scale).
FAMILY_COLORS = {"lstm": "tab:blue", "lstm+pretrained": "tab:green", "transformer": "tab:red"}
#: What the figures call each family.
FAMILY_NAMES = {"lstm": "LSTM from scratch", "lstm+pretrained": "LSTM + pretrained table", "transformer": "transformer"}


def _size_axis(ax, sizes) -> None:
    """A log axis of training examples with the sizes used as its only, plain tick labels ("1,000", not 10^3)."""
    sizes = sorted(sizes)
    ax.set_xscale("log")
    ax.set_xticks(sizes, [f"{n:,}" for n in sizes])
    ax.minorticks_off()
    ax.set_xlim(sizes[0] / 1.5, sizes[-1] * 1.5)
    ax.set_xlabel("training examples (log scale)")


def _model_colors(model_specs: dict) -> dict:
    """``{model: colour}``: the family's colour; a second model of a family gets the next shade of the palette."""
    out, seen = {}, {}
    for name, (kind, *_) in model_specs.items():
        k = seen[kind] = seen.get(kind, -1) + 1
        out[name] = FAMILY_COLORS[kind] if k == 0 else f"C{4 + k}"
    return out


def figure1(stats, gap: dict, model_specs: dict, train_sizes, data_name: str, guess: float | None = None):
    """The paper's Figure 1 for this run: accuracy against training examples, and the gap to the transformer.

    Left: test accuracy (%) per model, with the constant ``guess`` (dashed; None: none); right: the transformer's lead
    over each model in points, in its colour. Log scale of examples, ticks at the sizes run, standard-error bars.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    colors = _model_colors(model_specs)
    for name in model_specs:
        g = stats.loc[name]
        ax[0].errorbar(g.index, 100 * g["mean"], yerr=100 * g["se"].fillna(0), marker="o", capsize=3, label=name,
                       color=colors[name])  # fmt: skip
    if guess is not None:
        ax[0].axhline(100 * guess, ls="--", lw=1, color="grey", label=f"constant guess ({100 * guess:.1f}%)")
    for name, d in gap.items():
        ax[1].errorbar(train_sizes, [d[n].value * 100 for n in train_sizes], color=colors[name], marker="o",
                       yerr=[np.nan_to_num(d[n].se) * 100 for n in train_sizes], capsize=3)  # fmt: skip
    ax[1].axhline(0, color="grey", lw=0.8)
    for a in ax:
        _size_axis(a, train_sizes)
    ax[0].set(ylabel="test accuracy (%)", title=f"{data_name}: accuracy vs data (mean ± SE over seeds)")
    ax[1].set(ylabel="transformer minus the LSTM (points)", title="the gap, in the LSTM's colour (the paper's Fig. 1)")
    fig.legend(*ax[0].get_legend_handles_labels(), loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig


def _scale_panel(ax, results, model_specs: dict, seeds: int) -> None:
    """One scale's test accuracy (%) against training examples, a line per model; "k seeds" where fewer ran."""
    acc = accuracy_stats(results)
    colors = _model_colors(model_specs)
    for name in (m for m in model_specs if m in acc.index.get_level_values("model")):
        g = acc.loc[name]
        ax.errorbar(g.index, 100 * g["mean"], yerr=100 * g["se"].fillna(0), marker="o", capsize=3, label=name,
                    color=colors[name])  # fmt: skip
        for n, row in g[g.seeds < seeds].iterrows():
            k = int(row.seeds)
            ax.annotate(f"{k} run" if k == 1 else f"{k} seeds", (n, 100 * row["mean"]), xytext=(6, -3),
                        textcoords="offset points", fontsize=7, color=colors[name])  # fmt: skip
    _size_axis(ax, acc.index.get_level_values("train_examples").unique())


def scales_figure(panels: list[dict]):
    """This run beside the committed medium run: accuracy against training examples, one panel per run.

    The scales train different sizes (smoke: 250 and 1,000 sentences; medium: 300 to 8,454) and LSTM widths, so each
    panel has its own axis and models; a family keeps its colour. Each of ``panels``: ``results`` (a ``results.csv``
    frame; :func:`kit.analysis.medium_results` for medium), ``specs`` (:func:`.pretrain_or_not_runs.models`), ``guess``
    (constant guess, dashed), ``seeds`` (planned; fewer are written beside the point), ``title`` (the run's source).
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.4), sharey=True, squeeze=False)
    for ax, p in zip(axes[0], panels):
        _scale_panel(ax, p["results"], p["specs"], p["seeds"])
        ax.axhline(100 * p["guess"], ls="--", lw=1, color="grey", label=f"constant guess ({100 * p['guess']:.1f}%)")
        ax.set_title(p["title"], fontsize=9)
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.2), fontsize=8, frameon=False)  # under the panel
    axes[0][0].set_ylabel("test accuracy (%)")
    fig.tight_layout()
    return fig


def table2(stats, table, model_specs: dict, params: dict, largest: int):
    """The paper's Table 2 for this run, at the largest size: accuracy, the gap, seeds, parameters (no embeddings).

    One row per model: accuracy (mean ± SE over seeds), the gap to the transformer in points with :func:`verdicts`' 95%
    interval and verdict ("-" for the transformer), seeds, ``params`` (``{name: count}``, without the embedding table).
    """
    import pandas as pd

    top, names = stats.xs(largest, level="train_examples"), list(model_specs)
    best, rows = transformer_of(model_specs), table.set_index("comparison")

    def gap(m):
        r = rows.loc[gap_name(best, m, largest)]
        return f"{r.delta:+.1f} [{r.low:+.1f}, {r.high:+.1f}] ({r.verdict})"

    return pd.DataFrame(
        {
            "accuracy": [format_mean_se(top.loc[m, "mean"], top.loc[m, "se"]) for m in names],
            "Δ to transformer (points)": ["-" if m == best else gap(m) for m in names],
            "seeds": [int(top.loc[m, "seeds"]) for m in names],
            "params (no emb.)": [f"{params[m]:,}" for m in names],
        },
        index=list(names),
    )


def sentences(table, model_specs: dict, train_sizes, timing, sequence_length: int) -> list[str]:
    """What this run shows, each difference as the verdict ``table`` says it (95% interval, verdict, Holm's p).

    Each gap at the smallest and largest size and how much it shrank; :func:`table_pairs` at both ends; the LSTM's speed
    against the transformer's (``timing``; the paper: LSTM-2-256 21x as fast as RoBERTa-Base on a CPU). One per line.
    """
    top, (lo, hi) = transformer_of(model_specs), (train_sizes[0], train_sizes[-1])
    lines = []
    for m in model_specs:
        if m == top:
            continue
        line = f"{m}: gap to {top} {_said(table, gap_name(top, m, lo))} at {lo:,} examples"
        if lo != hi:
            line += (
                f" -> {_said(table, gap_name(top, m, hi))} at {hi:,}; the gap shrank by "
                f"{_said(table, shrink_name(top, m, lo, hi))}"
            )
        lines.append(line)
    for a, b, note in table_pairs(model_specs):
        for n in dict.fromkeys((lo, hi)):
            lines.append(f"{a} - {b} ({note}) at {n:,} examples: {_said(table, pair_name(a, b, n))}")
    r = timing[timing.model == "LSTM-2-256"].iloc[0]
    t = timing[~timing.model.str.startswith("LSTM") & (timing.batch_size == r.batch_size)].iloc[0]
    speedup = next(c for c in timing.columns if c.startswith("speed-up vs "))
    lines.append(
        f"inference, batch {r.batch_size} x {sequence_length} on {r.device} ({r.backend}): LSTM-2-256 "
        f"{r.median_ms:.1f} ms, {t.model} {t.median_ms:.1f} ms: the LSTM is {r[speedup]}x as fast "
        "(the paper: LSTM-2-256 21x as fast as RoBERTa-Base on a CPU; one timing each, no test)"
    )
    return lines


def checks(results, stats, gap: dict, plan_rows, model_specs: dict, num_classes: int, correct) -> dict:
    """What CI asserts on every run, about the kit rather than the paper: ``{claim: whether it holds}``.

    The sweep is complete, each run's saved 1/0 per test example gives its test accuracy, the transformer is >10 points
    above chance (``1 / num_classes``) at every size, the LSTMs learn and gain from more data (smallest to largest
    planned size, the LSTMs' mean: one LSTM's gain over a 4x range at smoke, 2 and 10 points in the published run, is
    not tested against its seeds' noise).
    Whether the gap shrinks, the paper's finding, is a verdict row, not a check: at smoke it can go either way.
    """
    chance, top = 1 / num_classes, transformer_of(model_specs)
    sizes = [r["train_examples"] for r in plan_rows]
    smallest, largest = min(sizes), max(sizes)
    acc = results[results.metric == "test_accuracy"].set_index(["model", "train_examples", "seed"]).value
    return {
        "every run measured": int((results.metric == "test_accuracy").sum()) == len(plan_rows),
        "every run's saved test predictions give its test accuracy": all(
            abs(
                float(correct[r["model"]][r["train_examples"]][r["seed"]].mean())
                - acc.loc[tuple(r[k] for k in acc.index.names)]
            )
            < 1e-6
            for r in plan_rows
        ),
        "the transformer is >10 points above chance at every size": bool(
            (stats.loc[top]["mean"] > chance + 0.10).all()
        ),
        "the LSTMs learn something at the largest size": bool(
            max(stats.loc[(m, largest), "mean"] for m in gap) > chance + 0.05
        ),
        "the LSTMs score higher at the largest size than at the smallest (their mean)": bool(
            np.mean([stats.loc[(m, largest), "mean"] - stats.loc[(m, smallest), "mean"] for m in gap]) > 0
        ),
    }


# --- the "how it works" pictures (one call each in the notebook) ------------------------------------------------


def draw_bilstm(words=("the", "film", "is", "fun")):
    """The BiLSTM classifier's data flow over ``words`` (one column each): one layer of LSTM-n-k (the kit stacks ``n``).

    Example:
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> draw_bilstm(["a", "fine", "film"]).axes[0].get_title()[:9]
        'LSTM-n-k:'
    """
    xs, blue, green = [0.6 + 1.6 * i for i in range(len(words))], "#3b78b0", "#3a8a3a"
    right = xs[-1] + 1.0
    title = "LSTM-n-k: tokens → embedding → forward and backward LSTM → concat → max → dense → classes"
    fig, ax = canvas((9, 3.8), (-1.7, right + 3.2), (-0.4, 4.8), title)
    for t, (word, x) in enumerate(zip(words, xs), start=1):
        box(ax, x, 0, f"{word}\n(id)")
        box(ax, x, 1, f"embedding $x_{t}$", "#fde0c5")
        box(ax, x, 2, "LSTM →", "#cfe3f5")
        box(ax, x, 3, "← LSTM", "#d5ecd4")
        box(ax, x, 4, f"$[\\vec h_{t};\\overleftarrow{{h}}_{t}]$", "#eeeeee")
        for y0, y1, color in ((0, 1, "0.3"), (1, 2, "0.3"), (3, 4, green)):
            arrow(ax, (x, y0), (x, y1), color=color, shrinkA=11, shrinkB=11)
        arrow(ax, (x - 0.55, 1.2), (x - 0.55, 2.8), color="0.6", shrinkA=0, shrinkB=0)  # the input reaches both
        arrow(ax, (x + 0.55, 2.2), (x + 0.55, 3.8), color=blue, shrinkA=0, shrinkB=0)  # the forward state goes up
        ax.plot([x, x], [4.25, 4.55], color="0.3", lw=1)
        if t < len(words):
            arrow(ax, (x, 2), (xs[t], 2), color=blue, shrinkA=11, shrinkB=11)
            arrow(ax, (xs[t], 3), (x, 3), color=green, shrinkA=11, shrinkB=11)
    ax.plot([xs[0], right], [4.55, 4.55], color="0.3", lw=1)
    arrow(ax, (right, 4.55), (right + 0.6, 4.1), shrinkA=0, shrinkB=0)
    top = [(4, "max over time\n(2k values)", "#f5e6a8"), (2.6, "dense\n$W_d\\,\\cdot + b_d$", "#f3c9d4")]
    for y, label, color in [*top, (1.2, "softmax\n$p$(class)", "white")]:
        box(ax, right + 1.4, y, label, color)
    arrow(ax, (right + 1.4, 4), (right + 1.4, 2.6), shrinkA=11, shrinkB=11)
    arrow(ax, (right + 1.4, 2.6), (right + 1.4, 1.2), shrinkA=11, shrinkB=11)
    ax.text(right + 1.6, 1.9, "logits", fontsize=8)
    ax.text(-1.65, 2, "forward:\n$h_t, c_t$\nleft → right", fontsize=8, va="center", color=blue)
    ax.text(-1.65, 3, "backward:\nright → left", fontsize=8, va="center", color=green)
    return fig


COLOR = "#cfe3f5"  # the LSTM's input, in the token-table picture


def draw_token_table(vocabulary: int = 30522, d: int = 384, encoder: str = "MiniLM", token: int = 3):
    """The "+ pretrained" input: a token's row of the frozen table, the trained projection, the LSTM's input.

    ``vocabulary`` x ``d``: the table's rows (the tokenizer's vocabulary) and width (the encoder's hidden size).
    """
    from matplotlib.patches import Rectangle

    title = f"LSTM-n-k + pretrained: {encoder}'s {vocabulary:,} x {d} table (d = {d}) projected to the LSTM's width m"
    fig, ax = canvas((9, 2.8), (0, 10.4), (-0.8, 3.0), title)
    row = "#f0a040"
    shapes = [((1.0, 0.1), 1.2, 2.6, "#dddddd"), ((1.0, 1.55), 1.2, 0.18, row), ((3.2, 1.55), 1.6, 0.18, row)]
    for xy, w, h, color in [*shapes, ((5.5, 0.6), 1.0, 2.1, "#f3c9d4"), ((7.2, 1.55), 0.8, 0.18, COLOR)]:
        ax.add_patch(Rectangle(xy, w, h, fc=color, ec="0.3"))  # the table, its row, the row laid flat, W_p, e_t
    ax.text(1.6, -0.1, "token table $E$\n$V \\times d$, frozen", ha="center", va="top", fontsize=9)
    ax.text(0.05, 1.64, f"token id\n$x_t$ = {token}", va="center", fontsize=9)
    ax.text(4.0, 1.95, "$E[x_t]$, $d$ values", ha="center", fontsize=9)
    ax.text(6.0, 1.64, "$W_p$\n$d \\times m$\n$+\\,b_p$", ha="center", va="center", fontsize=9)
    ax.text(6.0, 0.2, "projection, trained", ha="center", fontsize=9)
    ax.text(7.6, 1.95, "$e_t$, $m$ values", ha="center", fontsize=9)
    ax.text(9.4, 1.64, "BiLSTM\ninput", ha="center", va="center", fontsize=9, bbox={"boxstyle": "round", "fc": COLOR})
    for x0, x1 in [(0.75, 1.0), (2.2, 3.2), (4.8, 5.5), (6.5, 7.2), (8.0, 8.9)]:
        arrow(ax, (x0, 1.64), (x1, 1.64), color="black", shrinkA=0, shrinkB=0)
    return fig
