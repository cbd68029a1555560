"""Seeds and spread: means with standard errors, and differences called only when they beat the noise.

A notebook that compares two settings runs several seeds of each and reports
``mean ± standard error`` (the standard deviation over seeds / sqrt(seeds)). A
difference of two means has the standard error sqrt(se_a² + se_b²); the kit
calls a difference real only when it is more than ``z`` (2) standard errors,
and "within the noise" otherwise. With one seed there is no spread to show, and
the verdict says so.

>>> import pandas as pd
>>> runs = pd.DataFrame({"model": ["a", "a", "b", "b"], "value": [0.80, 0.84, 0.70, 0.72]})
>>> t = summarize(runs, "model")
>>> [round(v, 3) for v in t.loc["a", ["mean", "se"]]], int(t.loc["a", "seeds"])
([0.82, 0.02], 2)
>>> d = difference(t.loc["a"], t.loc["b"])
>>> round(d.value, 3), round(d.se, 3), d.verdict
(0.11, 0.022, 'larger')
>>> d.text(scale=100, unit=" points")
'+11.0 ± 2.2 points (larger, 2 seeds each)'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def summarize(frame, by, value: str = "value"):
    """Mean, standard deviation, standard error and number of seeds of ``value`` per group ``by``."""
    g = frame.groupby(by, sort=False)[value]
    out = g.agg(["mean", "std", "count"]).rename(columns={"count": "seeds"})
    out["std"] = out["std"].fillna(0.0)
    out["se"] = out["std"] / np.sqrt(out["seeds"].clip(lower=1))
    out.loc[out["seeds"] < 2, "se"] = np.nan  # one seed: no spread to show
    return out[["mean", "se", "std", "seeds"]]


@dataclass
class Difference:
    """``a - b`` with its standard error and a verdict: "larger", "smaller" or "within the noise"."""

    value: float
    se: float
    seeds: tuple
    z: float = 2.0

    @property
    def verdict(self) -> str:
        if not np.isfinite(self.se):
            return "one seed: no spread to judge it"
        if self.value > self.z * self.se:
            return "larger"
        if self.value < -self.z * self.se:
            return "smaller"
        return "within the noise"

    def text(self, scale: float = 1.0, unit: str = "", digits: int = 1) -> str:
        se = f" ± {self.se * scale:.{digits}f}" if np.isfinite(self.se) else ""
        seeds = "/".join(str(s) for s in sorted(set(self.seeds)))
        return f"{self.value * scale:+.{digits}f}{se}{unit} ({self.verdict}, {seeds} seed{'s' if max(self.seeds) > 1 else ''} each)"


def difference(a, b, z: float = 2.0) -> Difference:
    """The difference of two :func:`summarize` rows (``mean``, ``se``, ``seeds``)."""
    se = math.sqrt(float(a["se"]) ** 2 + float(b["se"]) ** 2) if np.isfinite(a["se"]) and np.isfinite(b["se"]) \
        else float("nan")
    return Difference(float(a["mean"]) - float(b["mean"]), se, (int(a["seeds"]), int(b["seeds"])), z)


def format_mean_se(mean: float, se: float, scale: float = 1.0, digits: int = 3) -> str:
    """``'0.812 ± 0.006'`` (just the mean when there is no spread).

    >>> format_mean_se(0.8123, 0.0061), format_mean_se(0.8, float("nan"))
    ('0.812 ± 0.006', '0.800')
    """
    m = f"{mean * scale:.{digits}f}"
    return m + (f" ± {se * scale:.{digits}f}" if np.isfinite(se) else "")
