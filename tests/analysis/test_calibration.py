"""The verdict's calibration in CI: its 95% interval covers the truth, its test holds 5%, and it finds no less often.

Simulated runs (kit.analysis.calibration: seed effects on the logit, shared example difficulty, 300 test examples),
judged by the same code as the verdict table (kit.analysis.noise), fewer draws than benchmarks/verdict_calibration.py
(whose full table is in docs/statistics.md). At 4,000 draws a cell the Monte Carlo error of a rate near 5% is 0.34
points and near 95% the same; the worst cell the benchmark measured (seeds dominating, paired, 5 seeds) finds 4.7%.
"""

import numpy as np
import pytest

from kit.analysis import compare_arms
from kit.analysis.calibration import Design, rates, seed_spread, simulate

pytestmark = pytest.mark.one_backend

NULL_DRAWS = 4000
#: seed sd about 3 points (the issue's), and seeds dominating (about 6 points: where the old bootstrap covered 78%)
SCENARIOS = {"3 points": dict(seed_logit=0.25, difficulty=2.5), "seeds dominate": dict(seed_logit=0.6, difficulty=3.0)}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("paired", [True, False], ids=["paired", "unpaired"])
@pytest.mark.parametrize("seeds", [2, 3, 5])
def test_the_interval_covers_and_the_test_holds_its_level(scenario, paired, seeds):
    r = rates(Design(seeds, paired=paired, **SCENARIOS[scenario]), NULL_DRAWS, seed=seeds)
    assert r["coverage"] >= 0.93, r
    assert r["found"] <= 0.05, r
    assert r["found_mc"] < 0.004  # enough draws for the thresholds to mean something


def test_the_scenario_is_the_one_the_issue_describes():
    assert 0.028 < seed_spread(Design(5, **SCENARIOS["3 points"])) < 0.036
    r = rates(Design(5, gap=0.07, **SCENARIOS["3 points"]), 20)
    assert r["truth"] == pytest.approx(0.07)


def test_a_clear_effect_is_found_no_less_often_than_before():
    # 5 seeds, 300 examples, 7 points apart, seeds ~3 points apart: the same runs judged now and the old way
    r = rates(Design(5, gap=0.07, **SCENARIOS["3 points"]), 400, seed=1, old_resamples=400)
    assert r["found"] >= r["found_old"], r
    assert r["found"] > 0.8 and r["coverage"] >= 0.93


def test_the_detectable_difference_is_found_about_80_percent_of_the_time():
    design = Design(5, **SCENARIOS["3 points"])
    detectable = rates(design, 1000, seed=2)["detectable"]
    at = rates(Design(5, gap=round(detectable, 3), **SCENARIOS["3 points"]), 2000, seed=3)
    assert 0.75 <= at["found"] <= 0.92, at


def test_compare_arms_gives_what_the_simulation_measures():
    # the calibration judges batches with kit.analysis.noise; a table's row is compare_arms on one run
    from kit.analysis.noise import half_width, parts

    design = Design(3, **SCENARIOS["seeds dominate"])
    a, b = simulate(design, 40, np.random.default_rng(4))
    delta, vs, ve, df = parts(a.mean(-1), a, b.mean(-1), b, True)
    h = half_width(vs, ve, df, 0.05)
    for i in range(len(a)):
        c = compare_arms(a[i], b[i])
        assert (c.low, c.high) == pytest.approx((delta[i] - h[i], delta[i] + h[i]))
        assert (c.p < 0.05) == (abs(delta[i]) > h[i])
