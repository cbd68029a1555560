"""The paired bootstrap: does a difference between two settings survive the noise of the test set as well as the seeds?

It resamples the test examples (one draw for both settings, so they stay paired; Efron & Tibshirani 1993, Koehn 2004)
and the seeds; the 2.5th-97.5th percentiles of ``score(a) - score(b)`` are a 95% interval. Too narrow at a course's 2-5
seeds (S seeds keep (S - 1) / S of their variance): it covers the truth in about 84-90% of draws (docs/statistics.md),
so :func:`kit.analysis.verdict_table` uses :mod:`kit.analysis.noise` and takes only its diagnostic ``p_boot`` from here.
Rows of ``a``, ``b``: seeds, of per-example scores (1/0) or predictions with ``labels`` and ``score``.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a = (rng.random((3, 400)) < 0.80).astype(float)      # 3 seeds, 400 test examples, ~80% right
>>> b = (rng.random((3, 400)) < 0.70).astype(float)
>>> r = paired_bootstrap(a, b)
>>> r.verdict, r.low > 0
('larger', True)
>>> paired_bootstrap(a, a).verdict
'within the noise'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .spread import ALPHA

_CELLS = 2_000_000  # the most example weights one chunk of draws holds (16 MB)


@dataclass
class Bootstrap:
    """``a - b`` with a bootstrap interval over test examples and seeds, and its verdict.

    ``value`` on every example and seed; ``low``/``high``: the ``(1 - level) / 2`` quantiles of the resampled
    differences; ``p``: twice the share on the far side of 0 (1 when all are 0); ``seeds``: the larger arm's.
    """

    value: float
    low: float
    high: float
    p: float
    examples: int
    seeds: int
    level: float = 0.95

    @property
    def verdict(self) -> str:
        """``"larger"``/``"smaller"`` when the interval excludes 0 (``p < 1 - level``), else ``"within the noise"``."""
        if self.p < 1 - self.level:
            return "larger" if self.value > 0 else "smaller"
        return "within the noise"

    def text(self, scale: float = 1.0, unit: str = "", digits: int = 1) -> str:
        """The difference, its interval, verdict and test as one line; ``scale`` multiplies the values (100: points).

        E.g. the module example's ``r.text(100, " points")``: '+6.2 points, 95% interval [+1.5, +10.9] (larger: paired
        bootstrap over 400 test examples × 3 seeds, p = 0.020)'.
        """
        p = "p < 0.001" if self.p < 0.001 else f"p = {self.p:.3f}"
        return (
            f"{self.value * scale:+.{digits}f}{unit}, {self.level:.0%} interval "
            f"[{self.low * scale:+.{digits}f}, {self.high * scale:+.{digits}f}] ({self.verdict}: paired bootstrap "
            f"over {self.examples} test examples × {self.seeds} seeds, {p})"
        )


def _score_rows(pred, labels, score, rows, cols):
    if score is None:
        return pred[np.ix_(rows, cols)].mean()
    return float(np.mean([score(pred[r][cols], labels[cols]) for r in rows]))


def paired_bootstrap(
    a, b, labels=None, score=None, resamples: int = 1000, seed: int = 0, level: float = 1 - ALPHA
) -> Bootstrap:
    """Paired bootstrap of ``score(a) - score(b)``, resampling test examples (shared by both) and seeds.

    ``a``, ``b``: ``(seeds, examples)`` per-example scores (their mean is the score; 1-D: one seed), or predictions with
    ``score(predictions, labels) -> float`` and ``labels``. Equal numbers of rows share seeds (one draw for both).
    ValueError: different numbers of test examples, or ``score`` without ``labels``.
    """
    a, b = np.asarray(a), np.asarray(b)
    a = a[None] if a.ndim == 1 else a
    b = b[None] if b.ndim == 1 else b
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"paired_bootstrap compares two settings on the same test examples; got {a.shape[1]} and "
            f"{b.shape[1]} examples."
        )
    if score is not None and labels is None:
        raise ValueError("paired_bootstrap with a score function needs the test labels (labels=...).")
    labels = None if labels is None else np.asarray(labels)
    n = a.shape[1]
    paired_seeds = a.shape[0] == b.shape[0]
    rng = np.random.default_rng(seed)
    all_a, all_b = np.arange(a.shape[0]), np.arange(b.shape[0])
    value = _score_rows(a, labels, score, all_a, np.arange(n)) - _score_rows(b, labels, score, all_b, np.arange(n))
    diffs = np.empty(resamples)
    for i in range(resamples):
        cols = rng.integers(0, n, n)
        rows_a = rng.integers(0, a.shape[0], a.shape[0])
        rows_b = rows_a if paired_seeds else rng.integers(0, b.shape[0], b.shape[0])
        diffs[i] = _score_rows(a, labels, score, rows_a, cols) - _score_rows(b, labels, score, rows_b, cols)
    tail = (1 - level) / 2
    low, high = np.quantile(diffs, [tail, 1 - tail])
    p = min(1.0, 2 * min(np.mean(diffs <= 0), np.mean(diffs >= 0)))
    if np.all(diffs == 0):
        p = 1.0
    return Bootstrap(float(value), float(low), float(high), float(p), n, int(max(a.shape[0], b.shape[0])), level)


def _counts(rng: np.random.Generator, draws: int, n: int) -> np.ndarray:
    """``(draws, n)``: how often each of ``n`` items is picked in each of ``draws`` draws of ``n`` with replacement."""
    picks = rng.integers(0, n, (draws, n)) + n * np.arange(draws)[:, None]
    return np.bincount(picks.ravel(), minlength=draws * n).reshape(draws, n).astype(float)


def _bootstrap_means(a, b, paired: bool, same_seeds: bool, resamples: int, rng) -> np.ndarray:
    """The two-level bootstrap's ``delta*`` of per-example scores, vectorised in chunks of draws."""
    (sa, na), (sb, nb) = a.shape, b.shape
    chunk, out = max(1, _CELLS // max(na, nb)), []
    for start in range(0, resamples, chunk):
        m = min(chunk, resamples - start)
        wa = _counts(rng, m, na)
        wb = wa if paired else _counts(rng, m, nb)
        ca = _counts(rng, m, sa)
        cb = ca if same_seeds else _counts(rng, m, sb)
        out.append(((wa @ a.T) * ca).sum(1) / (sa * na) - ((wb @ b.T) * cb).sum(1) / (sb * nb))
    return np.concatenate(out)


def _drawn_score(pred, rows, cols, y, score) -> float:
    """The mean over the drawn seeds ``rows`` of ``score`` on the drawn examples ``cols``."""
    seeds, times = np.unique(rows, return_counts=True)
    return sum(k * float(score(pred[s][cols], y)) for s, k in zip(seeds, times)) / len(rows)


def _bootstrap_scores(a, b, labels, score, same_seeds: bool, resamples: int, rng) -> np.ndarray:
    """The two-level bootstrap's ``delta*`` of a metric recomputed on every draw (examples shared by both arms)."""
    n, out = a.shape[1], np.empty(resamples)
    for i in range(resamples):
        cols = rng.integers(0, n, n)
        rows_a = rng.integers(0, len(a), len(a))
        rows_b = rows_a if same_seeds else rng.integers(0, len(b), len(b))
        y = labels[cols]
        out[i] = _drawn_score(a, rows_a, cols, y, score) - _drawn_score(b, rows_b, cols, y, score)
    return out


def two_level_bootstrap(a, b, *, paired=True, same_seeds=False, labels=None, score=None, resamples=1000, seed=0):
    """``(resamples,)`` differences ``delta*`` of the two-level (pigeonhole) bootstrap: seeds (blocks) x examples.

    Each draw takes whole seeds and, independently, test examples with replacement; ``paired`` arms share the examples'
    draw, ``same_seeds`` arms the seeds'. ``a``, ``b``, ``labels``, ``score`` as in :func:`paired_bootstrap`. The
    table's diagnostic ``p_boot`` is :func:`bootstrap_p` of these (it decides nothing: too narrow at 2-5 seeds).

    Example:
        >>> d = two_level_bootstrap(np.ones((2, 5)), np.zeros((2, 5)), resamples=10)
        >>> d.tolist() == [1.0] * 10, bootstrap_p(d)
        (True, 0.18181818181818182)
    """
    rng = np.random.default_rng(seed)
    if score is None:
        return _bootstrap_means(np.asarray(a, float), np.asarray(b, float), paired, same_seeds, resamples, rng)
    return _bootstrap_scores(np.asarray(a), np.asarray(b), np.asarray(labels), score, same_seeds, resamples, rng)


def bootstrap_p(deltas: np.ndarray) -> float:
    """Two-sided p: twice the share of ``deltas`` beyond 0, as ``(1 + k) / (draws + 1)``; 1 when all are 0."""
    if np.all(deltas == 0):
        return 1.0
    far = min(np.count_nonzero(deltas <= 0), np.count_nonzero(deltas >= 0))
    return float(min(1.0, 2 * (1 + far) / (len(deltas) + 1)))
