"""Notebook 01's report: the gap to the transformer as data grows (Figure 1), Table 2 and the sentences and checks.

Every number comes from ``results.csv``: accuracy per model and training size as mean ± standard error over seeds
(:func:`kit.analysis.summarize`); a gap is the transformer's mean minus the model's, with the standard error of a
difference (:func:`kit.analysis.difference`).
"""

from __future__ import annotations

import numpy as np

from ...analysis.spread import difference, format_mean_se, summarize
from .pretrain_or_not_runs import transformer_of


def accuracy_stats(results):
    """Test accuracy per (model, train_examples): mean, se, std, seeds.

    Args:
        results: the sweep's results (``results.csv``: the runs' keys, then ``metric, value``); only the
            ``test_accuracy`` rows are read.

    Returns:
        A data frame indexed by ``(model, train_examples)`` with columns ``mean, se, std, seeds``
        (:func:`kit.analysis.summarize`).
    """
    return summarize(results[results.metric == "test_accuracy"], ["model", "train_examples"])


def gaps(stats, model_specs: dict, train_sizes) -> dict:
    """The gap to the transformer of every other model at every training size.

    Args:
        stats: :func:`accuracy_stats`' table.
        model_specs: ``{name: (kind, n_layers, cells)}`` (:func:`.pretrain_or_not_runs.models`).
        train_sizes: the training sizes of the sweep (numbers of examples).

    Returns:
        ``{model: {n: transformer - model}}``, each a :class:`kit.analysis.Difference` (mean, standard error, test),
        for every model but the transformer.
    """
    top = transformer_of(model_specs)
    return {
        m: {n: difference(stats.loc[(top, n)], stats.loc[(m, n)]) for n in train_sizes} for m in model_specs if m != top
    }


def figure1(stats, gap: dict, model_specs: dict, train_sizes, data_name: str):
    """The paper's Figure 1 for this run: accuracy against training examples, and the gap to the transformer.

    Left: test accuracy against training examples per model; right: the gap to the transformer in points. Both on a
    log scale of examples, with standard-error bars.

    Args:
        stats: :func:`accuracy_stats`' table.
        gap: :func:`gaps`' differences.
        model_specs: ``{name: (kind, n_layers, cells)}``, the models to draw.
        train_sizes: the training sizes of the sweep.
        data_name: the data set's name, in the left panel's title.

    Returns:
        The matplotlib figure.
    """
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(12, 4))
    for name in model_specs:
        g = stats.loc[name]
        ax[0].errorbar(g.index, g["mean"], yerr=g["se"].fillna(0), marker="o", capsize=3, label=name)
    for name, d in gap.items():
        ax[1].errorbar(
            train_sizes,
            [d[n].value * 100 for n in train_sizes],
            yerr=[np.nan_to_num(d[n].se) * 100 for n in train_sizes],
            marker="o",
            capsize=3,
            label=name,
        )
    ax[0].set(xscale="log", xlabel="training examples", ylabel="test accuracy", title=f"{data_name}: accuracy vs data")
    ax[1].axhline(0, color="grey", lw=0.8)
    ax[1].set(
        xscale="log",
        xlabel="training examples",
        ylabel=f"gap to {transformer_of(model_specs)} (points)",
        title="the gap (paper's Fig. 1)",
    )
    ax[0].legend(fontsize=8)
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    return fig


def table2(stats, gap: dict, model_specs: dict, params: dict, largest: int):
    """The paper's Table 2 for this run, at the largest size: accuracy, the gap, seeds, parameters (no embeddings).

    Args:
        stats: :func:`accuracy_stats`' table.
        gap: :func:`gaps`' differences.
        model_specs: ``{name: (kind, n_layers, cells)}``, one row each.
        params: ``{name: parameters without the embedding table}``.
        largest: the largest training size, the one the table shows.

    Returns:
        A data frame, one row per model: accuracy (mean ± SE), the gap to the transformer in points ("-" for the
        transformer), seeds, parameters.
    """
    import pandas as pd

    top, names = stats.xs(largest, level="train_examples"), list(model_specs)
    return pd.DataFrame(
        {
            "accuracy": [format_mean_se(top.loc[m, "mean"], top.loc[m, "se"]) for m in names],
            "Δ to transformer (points)": [
                "-" if m not in gap else gap[m][largest].text(100, digits=1).split(" (")[0] for m in names
            ],
            "seeds": [int(top.loc[m, "seeds"]) for m in names],
            "params (no emb.)": [f"{params[m]:,}" for m in names],
        },
        index=list(names),
    )


def sentences(stats, gap: dict, model_specs: dict, train_sizes, timing, sequence_length: int) -> list[str]:
    """What this run shows, each difference with its standard error and verdict.

    Each gap at the smallest and the largest size and how much it shrank; the pretrained table's effect at both
    ends; the LSTM's speed against the transformer's (the paper: LSTM-2-256 21x as fast as RoBERTa-Base on a CPU).

    Args:
        stats: :func:`accuracy_stats`' table.
        gap: :func:`gaps`' differences.
        model_specs: ``{name: (kind, n_layers, cells)}``.
        train_sizes: the training sizes of the sweep, smallest first.
        timing: :func:`.pretrain_or_not_runs.time_models`' table.
        sequence_length: the timing's sequence length.

    Returns:
        One sentence per line.
    """
    lo, hi = train_sizes[0], train_sizes[-1]
    lines = []
    for m, d in gap.items():
        shrink = difference(
            {"mean": d[lo].value, "se": d[lo].se, "seeds": min(d[lo].seeds)},
            {"mean": d[hi].value, "se": d[hi].se, "seeds": min(d[hi].seeds)},
        )
        lines.append(
            f"{m}: gap to {transformer_of(model_specs)} {d[lo].text(100, ' points')} at {lo:,} examples -> "
            f"{d[hi].text(100, ' points')} at {hi:,}; the gap shrank by {shrink.text(100, ' points')}"
        )
    plain = [m for m, spec in model_specs.items() if spec[0] == "lstm"][-1]
    pre = [m for m, spec in model_specs.items() if spec[0] == "lstm+pretrained"][0]
    for n in (lo, hi):
        lines.append(
            f"pretrained embeddings ({pre} vs {plain}) at {n:,} examples: "
            f"{difference(stats.loc[(pre, n)], stats.loc[(plain, n)]).text(100, ' points')}"
        )
    r = timing[timing.model == "LSTM-2-256"].iloc[0]
    t = timing[~timing.model.str.startswith("LSTM") & (timing.batch_size == r.batch_size)].iloc[0]
    speedup = next(c for c in timing.columns if c.startswith("speed-up vs "))
    lines.append(
        f"inference, batch {r.batch_size} x {sequence_length} on {r.device} ({r.backend}): LSTM-2-256 "
        f"{r.median_ms:.1f} ms, {t.model} {t.median_ms:.1f} ms: the LSTM is {r[speedup]}x as fast "
        "(the paper: LSTM-2-256 21x as fast as RoBERTa-Base on a CPU)"
    )
    return lines


def checks(
    results, stats, gap: dict, plan_rows, model_specs: dict, num_classes: int, largest: int, smallest: int
) -> dict:
    """What CI asserts on every run, about the kit rather than the paper.

    The sweep is complete, the transformer has left chance behind at every size, the LSTMs learn and gain from more
    data (a broken subset or vocabulary fails here). Whether the gap shrinks, the paper's finding, is a sentence with
    its test (:func:`sentences`), not a check: at smoke scale it can go either way.

    Args:
        results: the sweep's results (``results.csv``).
        stats: :func:`accuracy_stats`' table.
        gap: :func:`gaps`' differences.
        plan_rows: the planned runs (:func:`.pretrain_or_not_runs.plan`).
        model_specs: ``{name: (kind, n_layers, cells)}``.
        num_classes: the task's number of classes (chance is ``1 / num_classes``).
        largest: the largest training size.
        smallest: the smallest training size.

    Returns:
        ``{claim: whether it holds}``.
    """
    chance, top = 1 / num_classes, transformer_of(model_specs)
    return {
        "every run measured": int((results.metric == "test_accuracy").sum()) == len(plan_rows),
        "the transformer is >10 points above chance at every size": bool(
            (stats.loc[top]["mean"] > chance + 0.10).all()
        ),
        "the LSTMs learn something at the largest size": bool(
            max(stats.loc[(m, largest), "mean"] for m in gap) > chance + 0.05
        ),
        "the LSTMs score higher at the largest size than at the smallest": all(
            stats.loc[(m, largest), "mean"] > stats.loc[(m, smallest), "mean"] for m in gap
        ),
    }
