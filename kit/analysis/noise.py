"""The two sources of noise in a difference of scores, the seeds and the test examples, and an interval for both.

Seeds and examples are crossed (Owen 2007; docs/statistics.md derives it all). Per arm, from its ``(seeds, examples)``
scores ``x``: ``W`` = var(seed scores) / ``S`` (Welch's, ``S - 1`` df), floored at ``I`` = residual mean square /
``(S N)`` (the flips); ``E`` = var over examples of the per-example difference / ``N``, less each ``I`` (the test set's
part, which more seeds never average away; floored at 0; unpaired arms: each arm's alone, added).
``var_seeds = max(W_a, I_a) + max(W_b, I_b)`` (Welch-Satterthwaite ``df_seeds``), ``var_examples = E``. Each part gets
its own critical value (Banerjee 1961, conservative):

    half(alpha) = sqrt(t(1 - alpha/2, df_seeds)^2 var_seeds + z(1 - alpha/2)^2 var_examples),

the interval ``delta ± half(alpha)``, ``p`` the ``alpha`` where it touches 0; detectable: ``half(alpha)`` + the same mix
at ``power``. A metric that is not a mean (F1, Pearson's r) goes through jackknife pseudo-values
(:func:`pseudo_values`). Functions take leading batch dimensions (simulated draws).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a = (rng.random((3, 400)) < 0.8).astype(float)   # 3 seeds, 400 test examples
>>> b = (rng.random((3, 400)) < 0.7).astype(float)
>>> n = Noise.of(a.mean(1), a, b.mean(1), b)
>>> round(n.delta, 3), round(n.se, 3), round(n.p(), 3), [round(v, 3) for v in n.interval()]
(0.062, 0.022, 0.055, [-0.002, 0.127])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy.optimize import brentq

#: The chance a detectable difference is found (the smallest detectable difference's power).
POWER = 0.8
#: The most groups of test examples the jackknife of a metric that is not a mean deletes one at a time.
GROUPS = 200
_SMALLEST_P = 1e-16


def residual_ms(x: np.ndarray) -> np.ndarray:
    """The residual mean square of ``(..., seeds, examples)`` after removing seed and example means."""
    s, n = x.shape[-2:]
    r = x - x.mean(-1, keepdims=True) - x.mean(-2, keepdims=True) + x.mean((-2, -1), keepdims=True)
    return (r**2).sum((-2, -1)) / ((s - 1) * (n - 1))


def parts(fa, xa, fb, xb, paired: bool) -> tuple:
    """``(delta, var_seeds, var_examples, df_seeds)`` of ``a - b``: the module's decomposition, batched.

    ``fa``, ``fb``: ``(..., S)`` seed scores (each seed's metric on the whole test set); ``xa``, ``xb``: ``(..., S, N)``
    per-example scores or pseudo-values; ``paired``: same test examples, same order. ``df_seeds`` is ``inf`` where seed
    scores do not vary.
    """
    fa, fb, xa, xb = (np.asarray(v, dtype=float) for v in (fa, fb, xa, xb))
    (sa, na), (sb, nb) = xa.shape[-2:], xb.shape[-2:]
    # a variance below rounding's (of the largest score, squared) is 0: arms that do not vary give exactly 0
    size = max(np.abs(v).max(initial=0.0) for v in (fa, fb, xa, xb))
    exact = lambda v: np.where(v > (1e3 * np.finfo(float).eps * size) ** 2, v, 0.0)  # noqa: E731
    wa, wb = exact(fa.var(-1, ddof=1) / sa), exact(fb.var(-1, ddof=1) / sb)
    ia, ib = exact(residual_ms(xa) / (sa * na)), exact(residual_ms(xb) / (sb * nb))
    ca, cb = xa.mean(-2), xb.mean(-2)
    if paired:
        e = (ca - cb).var(-1, ddof=1) / na - ia - ib
    else:
        e = ca.var(-1, ddof=1) / na - ia + cb.var(-1, ddof=1) / nb - ib
    e = exact(e)
    wa, wb = np.maximum(wa, ia), np.maximum(wb, ib)
    denom = wa**2 / (sa - 1) + wb**2 / (sb - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(denom > 0, (wa + wb) ** 2 / np.where(denom > 0, denom, 1.0), np.inf)
    var_examples = np.maximum(e, 0.0)
    return fa.mean(-1) - fb.mean(-1), wa + wb, var_examples, df


def half_width(var_seeds, var_examples, df_seeds, alpha):
    """``half(alpha)``: the two-sided ``1 - alpha`` interval's half-width (batched)."""
    q = 1 - np.asarray(alpha, dtype=float) / 2
    return _quantile_mix(var_seeds, var_examples, df_seeds, q)


def detectable(var_seeds, var_examples, df_seeds, alpha, power: float = POWER):
    """The smallest difference found with chance ``power`` by the two-sided test at ``alpha`` (batched).

    ``half(alpha)`` plus the ``power`` quantile of the estimate's error (normal theory, each part its own critical
    value).
    """
    return half_width(var_seeds, var_examples, df_seeds, alpha) + _quantile_mix(
        var_seeds, var_examples, df_seeds, power
    )


def _quantile_mix(var_seeds, var_examples, df_seeds, q):
    """``sqrt(t(q, df)^2 var_seeds + z(q)^2 var_examples)``."""
    t = special.stdtrit(np.asarray(df_seeds, dtype=float), q)
    z = special.ndtri(q)
    return np.sqrt(t**2 * np.asarray(var_seeds) + z**2 * np.asarray(var_examples))


@dataclass(frozen=True)
class Noise:
    """``a - b`` and the two parts of its variance (the module's decomposition) for one comparison.

    ``var_seeds``: Welch's ``W`` per arm, floored at its flips' part (``S - 1`` df each); ``var_examples``: the test
    set's part the seeds do not average away; ``df_seeds``: Welch-Satterthwaite's.
    """

    delta: float
    var_seeds: float
    var_examples: float
    df_seeds: float

    @classmethod
    def of(cls, fa, xa, fb, xb, paired: bool = True) -> Noise:
        """One comparison's decomposition: :func:`parts` on ``(S,)`` seed scores and ``(S, N)`` per-example values."""
        return cls(*(float(v) for v in parts(fa, xa, fb, xb, paired)))

    @property
    def se(self) -> float:
        """The standard error of ``delta``: ``sqrt(var_seeds + var_examples)``."""
        return math.sqrt(self.var_seeds + self.var_examples)

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """The ``level`` interval ``delta ± half(1 - level)``."""
        h = float(half_width(self.var_seeds, self.var_examples, self.df_seeds, 1 - level))
        return self.delta - h, self.delta + h

    def p(self) -> float:
        """The two-sided p-value: the ``alpha`` whose interval has 0 on its edge (1 when ``delta`` is 0)."""
        d, vs, ve = abs(self.delta), self.var_seeds, self.var_examples
        if d == 0:
            return 1.0
        if vs + ve == 0:
            return 0.0
        if vs == 0:
            return float(2 * special.ndtr(-d / math.sqrt(ve)))
        if ve == 0:
            return float(2 * special.stdtr(self.df_seeds, -d / math.sqrt(vs)))

        def gap(log_alpha: float) -> float:
            return float(half_width(vs, ve, self.df_seeds, 10.0**log_alpha)) - d

        low = math.log10(_SMALLEST_P)
        if gap(low) <= 0:
            return _SMALLEST_P
        return float(10.0 ** brentq(gap, low, 0.0, xtol=1e-12))

    def detectable(self, alpha: float, power: float = POWER) -> float:
        """The smallest difference found with chance ``power`` at level ``alpha`` (:func:`detectable`)."""
        return float(detectable(self.var_seeds, self.var_examples, self.df_seeds, alpha, power))

    def seeds_limit(self, alpha: float) -> bool:
        """Whether the seeds' part is most of ``half(alpha)`` (more seeds, not more test examples, would narrow it)."""
        t = special.stdtrit(self.df_seeds, 1 - alpha / 2)
        return bool(t**2 * self.var_seeds >= special.ndtri(1 - alpha / 2) ** 2 * self.var_examples)


def pseudo_values(pred: np.ndarray, labels: np.ndarray, score, groups: int = GROUPS, seed: int = 0) -> tuple:
    """``(seed scores (S,), pseudo-values (S, G))``: each seed's jackknife pseudo-values over groups of examples.

    ``G = min(N, groups)`` random groups (delete-one when ``N <= groups``; same ``seed``, same groups for both arms);
    pseudo-value ``G f_s - (G - 1) f_s(without g)``: their spread / ``G`` is the test set's variance of ``f_s``, so
    :func:`parts` reads them as per-example scores with ``N = G``. ``pred``: ``(seeds, examples, ...)``; ``labels``:
    ``(examples, ...)``.

    Example:
        >>> y = np.array([0.0, 1.0, 2.0, 3.0])
        >>> f, ps = pseudo_values(np.array([[0.0, 1.0, 2.0, 4.0]]), y, lambda p, t: float(np.mean(p == t)))
        >>> f.tolist(), sorted(ps[0].round(6).tolist())   # a mean's pseudo-values are its per-example scores
        ([0.75], [0.0, 1.0, 1.0, 1.0])
    """
    n = len(labels)
    g = min(n, groups)
    order = np.random.default_rng(seed).permutation(n)
    members = np.array_split(order, g)
    keep = [np.setdiff1d(order, m, assume_unique=True) for m in members]
    keep = [np.sort(k) for k in keep]
    full = np.array([float(score(p, labels)) for p in pred])
    out = np.empty((len(pred), g))
    for s, p in enumerate(pred):
        for j, k in enumerate(keep):
            out[s, j] = g * full[s] - (g - 1) * float(score(p[k], labels[k]))
    return full, out
