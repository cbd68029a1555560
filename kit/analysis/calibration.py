"""Calibration: arms simulated with a known difference, and how often a verdict covers it and finds it.

Arm ``x``'s seed ``s`` gets example ``e`` right with probability ``sigmoid(mu_x + u_xs + d_e)``,
``u_xs ~ N(0, seed_logit^2)`` per seed and arm, ``d_e ~ N(0, difficulty^2)`` per example (shared when ``paired``); the
truth is ``E[sigmoid(mu_a + u + d)] - E[sigmoid(mu_b + u + d)]``. :func:`rates` measures coverage and ``p < alpha`` of
:mod:`kit.analysis.noise`'s interval (``old_resamples``: also the old two-level bootstrap + Welch verdict).
benchmarks/verdict_calibration.py writes docs/statistics.md; tests/analysis/test_calibration.py checks a smaller draw.

>>> r = rates(Design(seeds=3), draws=200)
>>> r["coverage"] > 0.9, r["found"] < 0.1, r["truth"]
(True, True, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from .bootstrap import bootstrap_p, two_level_bootstrap
from .noise import detectable, half_width, parts
from .spread import ALPHA, welch

_HERMITE = np.polynomial.hermite_e.hermegauss(80)  # nodes and weights for E[f(Z)], Z ~ N(0, 1)


@dataclass(frozen=True)
class Design:
    """One simulated design: its seeds and test examples, and the arms' truth.

    ``paired``: one draw of difficulties for both arms; ``accuracy``: arm b's on the populations; ``gap``: the true
    ``a - b`` (0: the null); ``seed_logit``, ``difficulty``: standard deviations of a seed's effect and an example's
    difficulty on the logit.
    """

    seeds: int
    examples: int = 300
    paired: bool = True
    accuracy: float = 0.75
    gap: float = 0.0
    seed_logit: float = 0.25
    difficulty: float = 2.5


def population_accuracy(mu: float, spread: float) -> float:
    """``E[sigmoid(mu + spread Z)]``, ``Z ~ N(0, 1)`` (Gauss-Hermite quadrature)."""
    nodes, weights = _HERMITE
    return float(weights @ expit(mu + spread * nodes) / math.sqrt(2 * math.pi))


def _logit_for(accuracy: float, spread: float) -> float:
    """The ``mu`` whose population accuracy is ``accuracy``."""
    return brentq(lambda mu: population_accuracy(mu, spread) - accuracy, -30.0, 30.0, xtol=1e-12)


def _logits(design: Design) -> tuple[float, float]:
    """``(mu_a, mu_b)`` of the design (seed and example effects together: one normal of their joint spread)."""
    spread = math.hypot(design.seed_logit, design.difficulty)
    mu_b = _logit_for(design.accuracy, spread)
    mu_a = mu_b if design.gap == 0 else _logit_for(design.accuracy + design.gap, spread)
    return mu_a, mu_b


def simulate(design: Design, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` runs: ``(a, b)``, each arm's 1/0 per seed and test example, ``(draws, seeds, examples)`` floats."""
    mu_a, mu_b = _logits(design)
    s, n = design.seeds, design.examples
    d_a = rng.normal(0.0, design.difficulty, (draws, 1, n))
    d_b = d_a if design.paired else rng.normal(0.0, design.difficulty, (draws, 1, n))
    arms = []
    for mu, d in ((mu_a, d_a), (mu_b, d_b)):
        u = rng.normal(0.0, design.seed_logit, (draws, s, 1))
        arms.append((rng.random((draws, s, n)) < expit(mu + u + d)).astype(float))
    return arms[0], arms[1]


def seed_spread(design: Design, seeds: int = 200, test_sets: int = 20, seed: int = 0) -> float:
    """The standard deviation of one seed's accuracy on one test set (of arm b), averaged over test sets."""
    one = Design(seeds, design.examples, True, design.accuracy, 0.0, design.seed_logit, design.difficulty)
    _, b = simulate(one, test_sets, np.random.default_rng(seed))
    return float(b.mean(-1).std(-1, ddof=1).mean())


def _old_verdict(a: np.ndarray, b: np.ndarray, paired: bool, resamples: int, seed: int, alpha: float) -> tuple:
    """The table's verdict before: ``(low, high, found)`` of the two-level bootstrap with Welch's t."""
    draws = two_level_bootstrap(a, b, paired=paired, same_seeds=paired, resamples=resamples, seed=seed)
    low, high = np.quantile(draws, [alpha / 2, 1 - alpha / 2])
    fa, fb = a.mean(1), b.mean(1)
    se = lambda f: f.std(ddof=1) / math.sqrt(len(f))  # noqa: E731
    w = welch(fa.mean(), se(fa), len(fa), fb.mean(), se(fb), len(fb))
    return low, high, bootstrap_p(draws) < alpha and w.p < alpha


def rates(
    design: Design, draws: int, seed: int = 0, alpha: float = ALPHA, old_resamples: int = 0, chunk: int = 500
) -> dict:
    """How often the verdict's ``1 - alpha`` interval covers the truth and its test finds, over ``draws`` runs.

    ``old_resamples``: bootstrap draws to measure the old verdict on the same runs too (0: not); ``chunk``: runs
    simulated at once. Returns the design's fields, ``truth``, ``coverage``, ``found``, their Monte Carlo errors
    (``*_mc``), the mean ``se`` and ``detectable`` (80% power at ``alpha``); with ``old_resamples``, ``coverage_old``
    and ``found_old``.
    """
    rng = np.random.default_rng(seed)
    mu_a, mu_b = _logits(design)
    spread = math.hypot(design.seed_logit, design.difficulty)
    truth = population_accuracy(mu_a, spread) - population_accuracy(mu_b, spread) if design.gap else 0.0
    sums = dict(coverage=0, found=0, se=0.0, detectable=0.0, coverage_old=0, found_old=0)
    for start in range(0, draws, chunk):
        a, b = simulate(design, min(chunk, draws - start), rng)
        delta, vs, ve, df = parts(a.mean(-1), a, b.mean(-1), b, design.paired)
        h = half_width(vs, ve, df, alpha)
        sums["coverage"] += int(np.sum(np.abs(delta - truth) <= h))
        sums["found"] += int(np.sum(np.abs(delta) > h))
        sums["se"] += float(np.sum(np.sqrt(vs + ve)))
        sums["detectable"] += float(np.sum(detectable(vs, ve, df, alpha)))
        for i in range(len(a) if old_resamples else 0):
            low, high, found = _old_verdict(a[i], b[i], design.paired, old_resamples, start + i, alpha)
            sums["coverage_old"] += int(low <= truth <= high)
            sums["found_old"] += int(found)
    out = dict(asdict(design), draws=draws, truth=truth)
    keys = ("coverage", "found") + (("coverage_old", "found_old") if old_resamples else ())
    for k in keys:
        out[k] = sums[k] / draws
        out[f"{k}_mc"] = math.sqrt(out[k] * (1 - out[k]) / draws)
    out["se"], out["detectable"] = sums["se"] / draws, sums["detectable"] / draws
    return out
