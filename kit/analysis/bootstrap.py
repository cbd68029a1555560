"""The paired bootstrap: does a difference between two settings survive the noise of the test set as well as the seeds?

Welch's t over seeds (:func:`kit.analysis.difference`) counts how much a score moves
from seed to seed, but every seed is scored on the *same* few hundred test
examples: a different draw of test examples could move both settings. The
paired bootstrap (Efron & Tibshirani 1993; Koehn 2004 for NLP) resamples the
test examples with replacement — the same draw for both settings, so they stay
paired — and the seeds too, and recomputes ``score(a) - score(b)`` each time.
The 2.5th and 97.5th percentiles are a 95% interval; the difference is called
real when that interval excludes 0 (two-sided p < 0.05).

``a`` and ``b`` hold one row per seed: either per-example scores (1/0 for a
correct/incorrect prediction; the score is their mean) or predictions, with
``labels`` and a ``score(predictions, labels)`` function (e.g. Pearson's r).

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


@dataclass
class Bootstrap:
    """``a - b`` with a bootstrap interval over test examples and seeds, and its verdict.

    Attributes:
        value: ``score(a) - score(b)`` on every test example and seed.
        low: the interval's lower end (the ``(1 - level) / 2`` quantile of the resampled differences).
        high: the interval's upper end.
        p: the two-sided p-value: twice the share of resampled differences on the far side of 0 (1 when all are 0).
        examples: how many test examples.
        seeds: how many seeds (the larger arm's).
        level: the interval's confidence level.
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
        """The difference, its interval, its verdict and the test as one line of text.

        Args:
            scale: multiplies every value (100: accuracy in points).
            unit: written after the difference, e.g. ``" points"``.
            digits: decimals shown.

        Returns:
            The module example's ``r.text(100, " points")``: ``'+6.2 points, 95% interval [+1.5, +10.9] (larger:
            paired bootstrap over 400 test examples × 3 seeds, p = 0.020)'``.
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

    Row ``i`` of ``a`` and of ``b`` share seed ``i`` when both have the same number of rows; seeds are then drawn
    once for both.

    Args:
        a: ``(seeds, examples)`` per-example scores (their mean is the score), or ``(seeds, examples, ...)``
            predictions when ``score`` is given; a 1-D array is one seed.
        b: the other setting's, on the same test examples.
        labels: the test labels ``score`` compares the predictions with.
        score: ``score(predictions, labels) -> float`` (e.g. Pearson's r); None: the mean of the per-example scores.
        resamples: how many bootstrap draws.
        seed: the seed of the draws.
        level: the interval's confidence level (``1 - ALPHA``: 95%).

    Returns:
        The difference, its interval and p-value, and its verdict.

    Raises:
        ValueError: ``a`` and ``b`` have different numbers of test examples, or ``score`` comes without ``labels``.
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
