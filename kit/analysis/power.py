"""Seeds from power: how many seeds a design needs before its verdict table can find a given difference.

A table row's ``detectable`` (80% power at Holm's ``alpha / m``, :meth:`kit.analysis.noise.Noise.detectable`) follows
before a run from each arm's spread over seeds (a finished run's sd), the seeds per arm, and the test set's part
(:func:`example_variance`). The seeds' part ``(sd_a^2 + sd_b^2) / S`` shrinks with seeds, the test set's does not: where
even many seeds leave it above the effect, only a larger test set can find it (:func:`seeds_needed` returns None).

>>> ve = example_variance(0.80, 0.78, examples=1000, correlation=0.5)
>>> round(detectable_with(5, 0.01, 0.01, ve, alpha=0.05 / 10), 3)
0.056
>>> seeds_needed(0.09, 0.01, 0.01, ve, alpha=0.05 / 10), seeds_needed(0.02, 0.01, 0.01, ve, alpha=0.05 / 10)
(3, None)
"""

from __future__ import annotations

import math

from .noise import POWER, Noise

#: The most seeds :func:`seeds_needed` tries (a design past it is not one a notebook affords).
MOST_SEEDS = 20


def _welch_df(var_a: float, var_b: float, seeds: int) -> float:
    """Welch-Satterthwaite's degrees of freedom of two arms' mean variances, ``seeds`` seeds each."""
    denom = (var_a**2 + var_b**2) / (seeds - 1)
    return (var_a + var_b) ** 2 / denom if denom > 0 else math.inf


def detectable_with(seeds: int, sd_a: float, sd_b: float, var_examples: float, alpha: float, power=POWER) -> float:
    """The smallest difference (scores' unit) a design finds with ``power`` at level ``alpha``, before it runs.

    ``sd_a``, ``sd_b``: each arm's standard deviation over seeds of its test score; ``var_examples``: the test set's
    part (:func:`example_variance`); ``alpha``: a table's strictest, ``0.05 / m``. ValueError: under 2 seeds, or a
    negative spread or variance.

    Example:
        >>> a = detectable_with(3, 0.01, 0.01, 1e-5, alpha=0.005)
        >>> b = detectable_with(6, 0.01, 0.01, 1e-5, alpha=0.005)
        >>> a > b
        True
    """
    if seeds < 2:
        raise ValueError(f"a verdict needs at least 2 seeds per arm; got {seeds}.")
    if min(sd_a, sd_b, var_examples) < 0:
        raise ValueError(f"spreads and variances are >= 0; got sd_a={sd_a}, sd_b={sd_b}, var_examples={var_examples}.")
    va, vb = sd_a**2 / seeds, sd_b**2 / seeds
    return Noise(0.0, va + vb, var_examples, _welch_df(va, vb, seeds)).detectable(alpha, power)


def seeds_needed(effect: float, sd_a: float, sd_b: float, var_examples: float, alpha: float, power=POWER,
                 most: int = MOST_SEEDS) -> int | None:  # fmt: skip
    """The fewest seeds per arm (from 2) that find ``effect`` with ``power`` at ``alpha``; None: none up to ``most``.

    Arguments as :func:`detectable_with`; ``effect``'s size counts, not its sign. None where the test set's (or seeds')
    noise is too large.

    Example:
        >>> seeds_needed(0.05, 0.02, 0.02, 0.0, alpha=0.05), seeds_needed(0.05, 0.02, 0.02, 0.0, alpha=0.005)
        (4, 7)
    """
    for s in range(2, most + 1):
        if detectable_with(s, sd_a, sd_b, var_examples, alpha, power) <= abs(effect):
            return s
    return None


def example_variance(score_a: float, score_b: float, examples: int, correlation: float = 0.5,
                     metric: str = "accuracy") -> float:  # fmt: skip
    """The test set's part of ``a - b``'s variance (scores' unit squared), from the arms' scores: a planning estimate.

    Per-example variance ``p (1 - p)`` for ``metric="accuracy"`` (any mean of 1/0: accuracy, token accuracy, F1 roughly;
    an upper bound, as a seed that flips an example is the seeds' part), ``(1 - r^2)^2`` for ``"pearson"``. Paired arms'
    results correlate by ``correlation`` (0: unpaired or independent errors; near 1: same examples hard for both):
    ``(v_a + v_b - 2 correlation sqrt(v_a v_b)) / examples`` (words for token accuracy, gold entities for entity F1).
    ValueError: unknown metric, under 2 examples, correlation outside [0, 1], score out of range.

    Example:
        >>> round(example_variance(0.9, 0.9, 100, correlation=0.0), 6), example_variance(0.9, 0.9, 100, 1.0)
        (0.0018, 0.0)
    """
    if metric not in ("accuracy", "pearson"):
        raise ValueError(f"metric is 'accuracy' or 'pearson'; got {metric!r}.")
    if examples < 2 or not 0 <= correlation <= 1:
        raise ValueError(f"need at least 2 examples and a correlation in [0, 1]; got {examples} and {correlation}.")
    if not all(-1 <= s <= 1 and (metric == "pearson" or s >= 0) for s in (score_a, score_b)):
        raise ValueError(f"scores out of range for {metric}: {score_a}, {score_b}.")
    one = (lambda p: p * (1 - p)) if metric == "accuracy" else (lambda r: (1 - r * r) ** 2)
    va, vb = one(score_a), one(score_b)
    return max(va + vb - 2 * correlation * math.sqrt(va * vb), 0.0) / examples
