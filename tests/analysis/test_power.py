"""Seeds from power: the design's detectable difference is the verdict table's, and the seeds it picks find the effect.

The simulation is kit.analysis.calibration's (seed effects on the logit, shared example difficulty), judged by the
verdict's own interval at a table's strictest level.
"""

import math

import numpy as np
import pytest

from kit.analysis.calibration import Design, rates, seed_spread, simulate
from kit.analysis.noise import Noise, parts
from kit.analysis.power import detectable_with, example_variance, seeds_needed

pytestmark = pytest.mark.one_backend


def test_the_detectable_difference_is_the_verdict_tables():
    # two arms of 4 seeds with sds 0.02 and 0.01: Welch's parts and degrees of freedom, then Noise.detectable
    va, vb = 0.02**2 / 4, 0.01**2 / 4
    df = (va + vb) ** 2 / ((va**2 + vb**2) / 3)
    expected = Noise(0.0, va + vb, 3e-5, df).detectable(0.01)
    assert detectable_with(4, 0.02, 0.01, 3e-5, alpha=0.01) == pytest.approx(expected)


def test_more_seeds_detect_less_and_the_test_set_sets_a_floor():
    found = [detectable_with(s, 0.02, 0.02, 4e-5, alpha=0.005) for s in range(2, 40)]
    assert all(a > b for a, b in zip(found, found[1:]))
    floor = Noise(0.0, 0.0, 4e-5, math.inf).detectable(0.005)  # no seeds' part: the test set's alone
    many = detectable_with(2000, 0.02, 0.02, 4e-5, alpha=0.005)
    assert found[-1] > many > floor and many - floor < 0.05 * floor


def test_seeds_needed_grows_as_the_effect_shrinks_and_gives_up_past_the_floor():
    needed = [seeds_needed(e, 0.02, 0.02, 1e-5, alpha=0.005) for e in (0.5, 0.1, 0.06, 0.04)]
    assert needed == sorted(needed) and needed[0] == 2
    floor = Noise(0.0, 0.0, 1e-5, math.inf).detectable(0.005)
    assert seeds_needed(floor * 0.99, 0.02, 0.02, 1e-5, alpha=0.005) is None
    s = needed[-1]
    assert detectable_with(s, 0.02, 0.02, 1e-5, 0.005) <= 0.04 < detectable_with(s - 1, 0.02, 0.02, 1e-5, 0.005)


def test_example_variance_of_paired_and_unpaired_arms():
    assert example_variance(0.8, 0.8, 400, correlation=0.0) == pytest.approx(2 * 0.16 / 400)
    assert example_variance(0.8, 0.8, 400, correlation=1.0) == 0.0
    assert example_variance(0.5, 0.4, 100, 0.0, metric="pearson") == pytest.approx((0.75**2 + 0.84**2) / 100)
    with pytest.raises(ValueError, match="metric"):
        example_variance(0.5, 0.5, 100, metric="f1")
    with pytest.raises(ValueError, match="correlation"):
        example_variance(0.5, 0.5, 100, correlation=1.5)


def test_bad_designs_are_refused():
    with pytest.raises(ValueError, match="2 seeds"):
        detectable_with(1, 0.01, 0.01, 0.0, 0.05)
    with pytest.raises(ValueError, match=">= 0"):
        detectable_with(3, -0.01, 0.01, 0.0, 0.05)


def test_the_seeds_it_picks_find_the_effect_in_simulated_runs():
    # a table of 6 rows (Holm's strictest level 0.05 / 6); arms 300 test examples apart by 7 points, seeds ~3 apart
    shape = dict(examples=300, paired=True, seed_logit=0.25, difficulty=2.5)
    alpha, effect = 0.05 / 6, 0.07
    sd = seed_spread(Design(5, **shape))
    a, b = simulate(Design(8, gap=effect, **shape), 400, np.random.default_rng(0))
    var_examples = float(parts(a.mean(-1), a, b.mean(-1), b, True)[2].mean())  # the test set's part: not the seeds'
    seeds = seeds_needed(effect, sd, sd, var_examples, alpha)
    assert seeds is not None and 4 <= seeds <= 12, seeds
    at = rates(Design(seeds, gap=effect, **shape), 1500, seed=1, alpha=alpha)
    fewer = rates(Design(seeds - 3, gap=effect, **shape), 1500, seed=2, alpha=alpha)
    assert at["found"] >= 0.77, at  # 80% promised, less 3 Monte Carlo errors (~1 point each)
    assert fewer["found"] < 0.8 < at["found"], (fewer, at)  # and not many seeds more than it takes
