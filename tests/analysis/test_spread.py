"""Verdicts a statistician would sign: Welch's t at 95% over seeds, the paired t, and the paired bootstrap."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kit.analysis import (
    difference,
    paired_bootstrap,
    paired_difference,
    summarize,
    welch,
)

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def arms(a, b):
    runs = pd.DataFrame({"arm": ["a"] * len(a) + ["b"] * len(b), "value": list(a) + list(b)})
    t = summarize(runs, "arm")
    return t.loc["a"], t.loc["b"]


def test_welch_matches_scipy():
    a, b = [0.81, 0.84, 0.80, 0.86], [0.78, 0.79, 0.75]
    d = difference(*arms(a, b))
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert d.t == pytest.approx(ref.statistic) and d.p == pytest.approx(ref.pvalue)
    assert d.df == pytest.approx(ref.df)


def test_two_seeds_at_2_7_standard_errors_is_noise():
    # the old 2-SE rule called this "larger"; with df ≈ 2 the 95% critical t is about 4.3
    d = welch(0.027, 0.007, 2, 0.0, 0.007, 2)
    assert d.value / d.se == pytest.approx(2.73, abs=0.01)
    assert d.verdict == "within the noise" and d.p > 0.05
    assert "Welch t" in d.text(100) and "df = 2.0" in d.text(100) and "p = " in d.text(100)


def test_five_seeds_find_a_clear_difference():
    a = [0.84, 0.85, 0.83, 0.86, 0.84]
    b = [0.80, 0.81, 0.79, 0.80, 0.82]
    d = difference(*arms(a, b))
    assert d.verdict == "larger" and d.p < 0.01
    lo, hi = d.interval()
    assert 0 < lo < d.value < hi
    assert difference(*arms(b, a)).verdict == "smaller"


def test_one_seed_has_no_verdict_and_identical_runs_are_noise():
    d = difference(*arms([0.8], [0.7]))
    assert d.verdict.startswith("one seed")
    same = difference(*arms([0.8, 0.8], [0.8, 0.8]))
    assert same.verdict == "within the noise" and same.value == 0


def test_paired_t_matches_scipy():
    a, b = [0.80, 0.83, 0.78, 0.81, 0.79], [0.79, 0.81, 0.77, 0.80, 0.79]
    d = paired_difference(a, b)
    ref = stats.ttest_rel(a, b)
    assert d.p == pytest.approx(ref.pvalue) and d.df == 4 and d.test == "paired t"
    with pytest.raises(ValueError, match="one value per seed"):
        paired_difference([1, 2], [1, 2, 3])


def test_paired_bootstrap_counts_test_set_noise():
    rng = np.random.default_rng(1)
    truth = rng.random(200) < 0.75
    a = np.stack([truth ^ (rng.random(200) < 0.02) for _ in range(3)]).astype(float)
    # b differs from a on only 3 of 200 examples: seeds agree perfectly, the test set decides
    b = a.copy()
    b[:, :3] = 1 - b[:, :3]
    r = paired_bootstrap(a, b, resamples=500)
    assert r.examples == 200 and r.seeds == 3
    assert r.low <= r.value <= r.high
    assert r.verdict == "within the noise", r.text(100)
    big = paired_bootstrap(np.ones((3, 200)), np.zeros((3, 200)), resamples=200)
    assert big.verdict == "larger" and big.low == 1.0


def test_paired_bootstrap_with_a_score_function():
    rng = np.random.default_rng(0)
    labels = rng.normal(size=150)
    good = labels + rng.normal(scale=0.5, size=(3, 150))
    bad = rng.normal(size=(3, 150))
    pearson = lambda p, y: float(np.corrcoef(p, y)[0, 1])  # noqa: E731
    r = paired_bootstrap(good, bad, labels=labels, score=pearson, resamples=300)
    assert r.verdict == "larger" and r.value > 0.5
    with pytest.raises(ValueError, match="labels"):
        paired_bootstrap(good, bad, score=pearson)
    with pytest.raises(ValueError, match="same test examples"):
        paired_bootstrap(good, bad[:, :10])
