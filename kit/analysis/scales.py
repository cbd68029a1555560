"""This run beside the committed medium-scale run: one figure per notebook, and what medium has not reached yet.

Medium runs: ``benchmarks/medium_gpu/<NN>_results.csv`` (a sweep's long format; how and on which GPU: that README).
:func:`plot_scales` shows each scale's mean ± SE over seeds per setting, and "not run at medium"/"not run at smoke", so
a learner sees which findings were checked at which scale.

>>> import pandas as pd
>>> smoke = pd.DataFrame({"model": ["a", "a", "b", "b"], "seed": [0, 1, 0, 1], "metric": "acc",
...                       "value": [0.5, 0.7, 0.75, 0.95]})
>>> table = scale_table(smoke, smoke[smoke.model == "a"], keys=["model"], metric="acc")
>>> table[["setting", "smoke_mean", "smoke_seeds", "medium_seeds"]].values.tolist()
[['a', 0.6, 2, 2], ['b', 0.85, 2, 0]]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .spread import summarize

#: Where the committed medium-scale results are, from the repository's root.
MEDIUM_DIR = Path("benchmarks") / "medium_gpu"
#: The marker and colour of each scale in :func:`plot_scales`.
STYLE = {"smoke": ("o", "tab:blue"), "medium": ("s", "tab:orange")}
#: How far above (smoke) and below (medium) its row each scale's point sits, in rows.
OFFSET = 0.18
#: The share of the x axis left free at the left for the "not run at ..." notes, and at the right for the seed counts.
GUTTER, ROOM = 0.3, 0.13


def medium_results(notebook: str, root: Path | None = None):
    """``benchmarks/medium_gpu/<NN>_results.csv`` of a notebook (``"01"`` or ``"01_pretrain_or_not"``) as a DataFrame.

    ``root``: the repository's (default: this kit's clone). None where there is none (an installed kit, or a notebook
    never run at medium).
    """
    import pandas as pd

    path = (root or Path(__file__).resolve().parents[2]) / MEDIUM_DIR / f"{str(notebook)[:2]}_results.csv"
    return pd.read_csv(path) if path.exists() else None


def _summary(long, keys: list[str], metric: str):
    """Per setting (``keys``): mean, standard error and seeds of ``metric`` in a long results frame."""
    rows = long[long["metric"] == metric] if long is not None else None
    if rows is None or rows.empty:
        return None
    rows = rows.assign(value=rows["value"].astype(float))
    return summarize(rows, [k for k in keys])


def _by_setting(summary) -> dict:
    """``{setting text: summary row}``; the setting's keys joined by " | "."""
    if summary is None:
        return {}
    return {" | ".join(map(str, k if isinstance(k, tuple) else (k,))): row for k, row in summary.iterrows()}


def scale_table(smoke, medium, keys, metric: str):
    """One row per setting of either scale: its mean, standard error and seeds at both (0 seeds: not run there).

    ``smoke``, ``medium`` (or None): long results (the ``keys``, ``seed``, ``metric``, ``value``). Settings match by
    their keys' values as text: rename one frame first where the scales name one differently (``LSTM-2-64`` vs
    ``LSTM-2-256``). Columns ``setting`` (keys joined by " | "), ``{smoke,medium}_{mean,se,seeds}``; this run's settings
    in order, then medium's others. ValueError: this run lacks ``metric``.
    """
    import pandas as pd

    small = _by_setting(_summary(smoke, list(keys), metric))
    if not small:
        raise ValueError(f"this run's results have no metric {metric!r}")
    large = _by_setting(_summary(medium, list(keys), metric))
    rows = []
    for setting in [*small, *(k for k in large if k not in small)]:
        row = {"setting": setting}
        for name, found in (("smoke", small.get(setting)), ("medium", large.get(setting))):
            row[f"{name}_mean"] = found["mean"] if found is not None else np.nan
            row[f"{name}_se"] = found["se"] if found is not None else np.nan
            row[f"{name}_seeds"] = int(found["seeds"]) if found is not None else 0
        rows.append(row)
    return pd.DataFrame(rows)


def plot_scales(table, *, metric_label: str, scale: float = 100.0, guess=None, title: str = "", ax=None, runs=()):
    """Draw :func:`scale_table`'s rows on (returned) axes: each scale's mean ± SE, "not run at <scale>" where none.

    A left gutter holds the "not run" notes, right room the seed counts; scales sit ``OFFSET`` above/below their row.
    ``scale``: 100 for points; ``guess``: a number or ``{"smoke": x, "medium": y}`` (dashed lines); ``title``: say where
    the medium run comes from (device, seeds, runs reached); ``ax``: default a new figure; ``runs``: medium
    ``(setting, value)`` pairs, a cross each.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.5 * len(table) + 1.6))
    y = np.arange(len(table))[::-1]
    guesses = guess if isinstance(guess, dict) else ({"smoke": guess} if guess is not None else {})
    guesses = {name: value for name, value in guesses.items() if value is not None}
    for name, offset in (("smoke", OFFSET), ("medium", -OFFSET)):
        marker, color = STYLE[name]
        mean, se = table[f"{name}_mean"] * scale, table[f"{name}_se"].fillna(0) * scale
        ax.errorbar(mean, y + offset, xerr=se, fmt=marker, color=color, capsize=3, label=f"{name} (mean ± SE)")
        for yi, n in zip(y + offset, table[f"{name}_seeds"]):
            if n:  # in the room at the right edge, right of every point
                ax.text(0.995, yi, f"{n} seed{'s' if n > 1 else ''}", transform=ax.get_yaxis_transform(), fontsize=7,
                        color=color, ha="right", va="center")  # fmt: skip
            else:  # in the gutter at the left edge, left of every point
                ax.text(0.005, yi, f"not run at {name}", transform=ax.get_yaxis_transform(), fontsize=7, color=color,
                        va="center")  # fmt: skip
    rows = dict(zip(table["setting"], y))
    for i, (setting, value) in enumerate(runs):
        ax.plot(value * scale, rows[setting] - OFFSET, "x", color=STYLE["medium"][1],
                label="a medium run" if i == 0 else None)  # fmt: skip
    for name, value in guesses.items():
        ax.axvline(value * scale, ls="--", lw=1, color=STYLE[name][1], label=f"constant guess ({name})")
    _leave_room(ax, table, scale, [*guesses.values(), *(value for _, value in runs)])
    ax.set_yticks(y, table["setting"])
    ax.set_ylim(-0.6, len(table) - 0.4)
    ax.set_xlabel(metric_label)
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)  # beside the axes, off the data
    return ax


def _leave_room(ax, table, scale: float, more) -> None:
    """Set the x range: a gutter left of every point and line for the "not run" notes, room right for the seeds."""
    low = [(table[f"{n}_mean"] - table[f"{n}_se"].fillna(0)) * scale for n in STYLE]
    high = [(table[f"{n}_mean"] + table[f"{n}_se"].fillna(0)) * scale for n in STYLE]
    values = [v for col in low + high for v in col.dropna()] + [v * scale for v in more]
    if not values:
        return
    left, right = min(values), max(values)
    span = max(right - left, 1e-9)
    gutter = GUTTER if any((table[f"{n}_seeds"] == 0).any() for n in STYLE) else 0.04  # notes to write, or none
    width = span / (1 - gutter - ROOM)
    ax.set_xlim(left - gutter * width, right + ROOM * width)
