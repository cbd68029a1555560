"""Seeds and spread: means with standard errors, and differences called only when a test at 95% says so.

Reports are ``mean ± standard error`` (sd over seeds / sqrt(seeds)); a difference is judged by **Welch's t-test**,
``t = difference / sqrt(se_a² + se_b²)`` on Welch–Satterthwaite df (2 seeds per arm: df ≈ 2, critical value about 4.3,
not 2), or the paired t-test where settings share seeds and splits. Every verdict names its test, t, df and p; one seed
has no spread to test, and says so.

>>> import pandas as pd
>>> runs = pd.DataFrame({"model": ["a", "a", "b", "b"], "value": [0.80, 0.84, 0.70, 0.72]})
>>> t = summarize(runs, "model")
>>> [round(v, 3) for v in t.loc["a", ["mean", "se"]]], int(t.loc["a", "seeds"])
([0.82, 0.02], 2)
>>> d = difference(t.loc["a"], t.loc["b"])
>>> round(d.value, 3), round(d.se, 3), round(d.t, 2), round(d.df, 1), round(d.p, 3), d.verdict
(0.11, 0.022, 4.92, 1.5, 0.069, 'within the noise')
>>> d.text(scale=100, unit=" points")
'+11.0 ± 2.2 points (within the noise: Welch t = 4.92, df = 1.5, p = 0.069; 2 seeds each)'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as _stats

ALPHA = 0.05  # a difference is called real when its two-sided p-value is below this


def summarize(frame, by, value: str = "value"):
    """Mean, standard deviation, standard error and number of seeds of ``value`` per group ``by`` (one row per seed).

    A DataFrame indexed by group, columns ``mean``, ``se``, ``std``, ``seeds``; a group of one seed has ``se`` NaN,
    ``std`` 0.
    """
    g = frame.groupby(by, sort=False)[value]
    out = g.agg(["mean", "std", "count"]).rename(columns={"count": "seeds"})
    out["std"] = out["std"].fillna(0.0)
    out["se"] = out["std"] / np.sqrt(out["seeds"].clip(lower=1))
    out.loc[out["seeds"] < 2, "se"] = np.nan  # one seed: no spread to show
    return out[["mean", "se", "std", "seeds"]]


@dataclass
class Difference:
    """``a - b`` with its standard error, a t-test and a verdict: "larger", "smaller" or "within the noise".

    ``se``: NaN with one seed (no spread to test); ``seeds``: ``(n_a, n_b)``; ``t``, ``df``, ``p``: the two-sided
    test's, named by ``test`` ("Welch t", "paired t"); called real when ``p < alpha``.
    """

    value: float
    se: float
    seeds: tuple
    t: float = float("nan")
    df: float = float("nan")
    p: float = float("nan")
    test: str = "Welch t"
    alpha: float = ALPHA

    @property
    def verdict(self) -> str:
        """``"larger"``/``"smaller"`` when ``p < alpha``, else ``"within the noise"`` (one seed: says so)."""
        if not np.isfinite(self.se):
            return "one seed: no spread to judge it"
        if not self.p < self.alpha:
            return "within the noise"
        return "larger" if self.value > 0 else "smaller"

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """The ``level`` confidence interval ``(low, high)`` (t quantile at ``df``); NaNs with no spread to test."""
        if not (np.isfinite(self.se) and np.isfinite(self.df)):
            return (float("nan"), float("nan"))
        half = float(_stats.t.ppf(0.5 + level / 2, self.df)) * self.se
        return (self.value - half, self.value + half)

    def test_text(self) -> str:
        """The test, ``'Welch t = 4.92, df = 1.5, p = 0.069'``; ``"no test"`` with one seed; says if no spread."""
        if not np.isfinite(self.se):
            return "no test"
        if self.se == 0:
            return f"{self.test}: no spread (every seed gives the same difference)"
        p = "p < 0.001" if self.p < 0.001 else f"p = {self.p:.3f}"
        return f"{self.test} = {self.t:.2f}, df = {self.df:.1f}, {p}"

    def text(self, scale: float = 1.0, unit: str = "", digits: int = 1) -> str:
        """One line: difference ± se (times ``scale``: 100 for points), verdict, test and seeds.

        E.g. ``'+11.0 ± 2.2 points (within the noise: Welch t = 4.92, df = 1.5, p = 0.069; 2 seeds each)'``.
        """
        se = f" ± {self.se * scale:.{digits}f}" if np.isfinite(self.se) else ""
        seeds = "/".join(str(s) for s in sorted(set(self.seeds)))
        many = "s" if max(self.seeds) > 1 else ""
        pairs = " paired" if self.test == "paired t" else ""
        verdict = self.verdict if not np.isfinite(self.se) else f"{self.verdict}: {self.test_text()}"
        return f"{self.value * scale:+.{digits}f}{se}{unit} ({verdict}; {seeds}{pairs} seed{many} each)"


def _tested(value: float, se: float, df: float, seeds: tuple, test: str, alpha: float) -> Difference:
    if not np.isfinite(se):
        return Difference(value, se, seeds, test=test, alpha=alpha)
    if se == 0:  # no spread at all: the difference is exact (or exactly zero)
        return Difference(value, 0.0, seeds, float("inf") if value else 0.0, df, 0.0 if value else 1.0, test, alpha)
    t = value / se
    p = float(2 * _stats.t.sf(abs(t), df))
    return Difference(value, se, seeds, t, df, p, test, alpha)


def welch(
    mean_a: float, se_a: float, n_a: int, mean_b: float, se_b: float, n_b: int, alpha: float = ALPHA
) -> Difference:
    """Welch's t-test (Welch–Satterthwaite df) of ``a - b`` from each arm's mean, standard error and number of seeds.

    No test (``se`` NaN) where an arm has one seed or no finite standard error; real when ``p < alpha``.

    Example:
        >>> d = welch(0.80, 0.01, 5, 0.70, 0.01, 5)
        >>> round(d.df, 1), d.verdict
        (8.0, 'larger')
    """
    seeds = (int(n_a), int(n_b))
    if min(seeds) < 2 or not (np.isfinite(se_a) and np.isfinite(se_b)):
        return Difference(float(mean_a - mean_b), float("nan"), seeds, alpha=alpha)
    var = se_a**2 + se_b**2
    denom = (se_a**4 / (n_a - 1) if se_a else 0.0) + (se_b**4 / (n_b - 1) if se_b else 0.0)
    df = var**2 / denom if denom > 0 else float(n_a + n_b - 2)
    return _tested(float(mean_a - mean_b), math.sqrt(var), df, seeds, "Welch t", alpha)


def difference(a, b, alpha: float = ALPHA) -> Difference:
    """Welch's t-test (:func:`welch`) of two :func:`summarize` rows (``mean``, ``se``, ``seeds``): ``a - b``."""
    return welch(
        float(a["mean"]), float(a["se"]), int(a["seeds"]), float(b["mean"]), float(b["se"]), int(b["seeds"]), alpha
    )


def paired_difference(a, b, alpha: float = ALPHA) -> Difference:
    """The paired t-test of ``a - b`` where ``a[i]`` and ``b[i]`` share seed ``i`` (same splits, same init).

    ``"paired t"``, df = seeds - 1; no test under 2 seeds. ValueError: ``a`` and ``b`` differ in shape (one value per
    seed each).

    Example:
        >>> d = paired_difference([0.80, 0.83, 0.78, 0.81], [0.79, 0.81, 0.77, 0.80])
        >>> d.text(100, " points")
        '+1.2 ± 0.2 points (larger: paired t = 5.00, df = 3.0, p = 0.015; 4 paired seeds each)'
        >>> paired_difference([0.80, 0.83, 0.78], [0.79, 0.81, 0.77]).verdict       # p = 0.057
        'within the noise'
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        raise ValueError(f"paired_difference needs one value per seed in each arm; got {a.shape} and {b.shape}.")
    diff = a - b
    n = len(diff)
    if n < 2:
        return Difference(float(diff.mean()) if n else float("nan"), float("nan"), (n, n), test="paired t", alpha=alpha)
    se = float(diff.std(ddof=1) / math.sqrt(n))
    return _tested(float(diff.mean()), se, float(n - 1), (n, n), "paired t", alpha)


def format_mean_se(mean: float, se: float, scale: float = 1.0, digits: int = 3) -> str:
    """``'0.812 ± 0.006'`` (both times ``scale``; just the mean where ``se`` is NaN: no spread).

    Example:
        >>> format_mean_se(0.8123, 0.0061), format_mean_se(0.8, float("nan"))
        ('0.812 ± 0.006', '0.800')
    """
    m = f"{mean * scale:.{digits}f}"
    return m + (f" ± {se * scale:.{digits}f}" if np.isfinite(se) else "")
