"""The verdict table: a difference is found only when it survives the seeds' and the test set's noise, after Holm."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kit.analysis import Comparison, compare_arms, holm, show_verdicts, verdict, verdict_table, verdict_text
from kit.analysis.verdicts import COLUMNS, FOUND, NEEDS_CONTROL, NOISE

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def exactly(rng, n, k):
    """A 0/1 vector of ``n`` per-example scores with exactly ``k`` ones at random places (accuracy ``k / n``)."""
    x = np.zeros(n)
    x[rng.permutation(n)[:k]] = 1.0
    return x


def bernoulli(rng, accuracy, seeds=3, n=500):
    return {s: (rng.random(n) < accuracy).astype(float) for s in range(seeds)}


def test_two_seeds_at_2_7_standard_errors_inside_the_test_set_noise_are_noise():
    # equal true accuracy; 400 test examples; the seeds' scores: a 0.75, 0.77 and b 0.7125, 0.7325
    rng = np.random.default_rng(3)
    a = {0: exactly(rng, 400, 300), 1: exactly(rng, 400, 308)}
    b = {0: exactly(rng, 400, 285), 1: exactly(rng, 400, 293)}
    c = compare_arms(a, b, "equal accuracy")
    assert c.delta == pytest.approx(0.0375)
    assert c.t == pytest.approx(2.65, abs=0.01) and c.df == pytest.approx(2.0)  # 2.7 standard errors over seeds
    assert c.p_welch > 0.05 and c.p_boot > 0.05 and c.low < 0 < c.high
    assert c.se > c.delta / c.t  # the bootstrap's SE counts the test set too: larger than Welch's
    assert verdict_table([c]).loc[0, "verdict"] == NOISE


def test_seeds_that_agree_do_not_make_a_few_test_examples_a_finding():
    # every seed of b fixes the same 6 of a's errors and breaks 3 of its right answers: +1.5 points on every seed,
    # which Welch's t over seeds finds; 9 test examples out of 200 decide it, which the bootstrap calls noise
    rng = np.random.default_rng(0)
    base = (rng.random(200) < 0.75).astype(float)
    base[:6], base[6:9] = 0.0, 1.0
    a = {s: np.where((rng.random(200) < 0.01) & (np.arange(200) >= 9), 1 - base, base) for s in range(5)}
    b = {s: np.concatenate([np.ones(6), np.zeros(3), x[9:]]) for s, x in a.items()}
    c = compare_arms(a, b)
    assert c.delta == pytest.approx(-0.015)
    assert c.p_welch < 0.05, "the seeds alone call it: the test is then about the test set"
    assert c.p_boot > 0.2 and c.low < 0 < c.high
    assert verdict_table([c]).loc[0, "verdict"] == NOISE


def test_a_clear_effect_is_found():
    rng = np.random.default_rng(1)
    c = compare_arms(bernoulli(rng, 0.9), bernoulli(rng, 0.6), "0.9 vs 0.6")
    assert c.delta == pytest.approx(0.3, abs=0.04) and c.low > 0.2
    assert c.p_welch < 0.001 and c.p_boot < 0.001
    assert c.seeds == (3, 3) and c.examples == (500, 500)
    t = verdict_table([c])
    assert t.loc[0, "verdict"] == FOUND
    flipped = compare_arms(bernoulli(rng, 0.6), bernoulli(rng, 0.9))
    assert flipped.delta < 0 and verdict_table([flipped]).loc[0, "verdict"] == FOUND


def test_welch_is_scipys_over_the_seeds_scores():
    rng = np.random.default_rng(2)
    a, b = bernoulli(rng, 0.8, seeds=4, n=300), bernoulli(rng, 0.75, seeds=3, n=300)
    c = compare_arms(a, b)
    ref = stats.ttest_ind([x.mean() for x in a.values()], [x.mean() for x in b.values()], equal_var=False)
    assert c.t == pytest.approx(ref.statistic) and c.p_welch == pytest.approx(ref.pvalue)
    assert c.df == pytest.approx(ref.df)


def test_each_level_of_the_bootstrap_gives_its_standard_error():
    # test examples only: every seed makes the same predictions; the SE is the binomial one, sqrt(p (1 - p) / n)
    x = exactly(np.random.default_rng(4), 400, 280)
    only_examples = compare_arms(np.stack([x] * 3), np.zeros((3, 400)), resamples=8000)
    assert only_examples.se == pytest.approx(np.sqrt(0.7 * 0.3 / 400), rel=0.05)
    # seeds only: every example of a seed scores the same; the SE is the plug-in one over 3 seeds
    levels = np.array([0.6, 0.7, 0.8])
    only_seeds = compare_arms(np.repeat(levels[:, None], 50, axis=1), np.zeros((3, 50)), resamples=8000)
    assert only_seeds.se == pytest.approx(levels.std() / np.sqrt(3), rel=0.05)


def test_holm_matches_a_hand_computation():
    # sorted: 0.005 x4 = 0.02, 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 = 0.04 -> raised to 0.06 (order kept)
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])  # capped at 1
    np.testing.assert_allclose(holm([0.02]), [0.02])  # one comparison: nothing to correct
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.1, float("nan")])


def row(name, p_welch, p_boot, budget_matched=True):
    return Comparison(name, 0.05, 0.01, 5.0, 4.0, p_welch, 0.03, 0.07, p_boot, (3, 3), (500, 500), True, budget_matched)


def test_holm_in_the_table_turns_a_lone_finding_into_noise_among_many():
    alone = verdict_table([row("marginal", 0.001, 0.02)])
    assert alone.loc[0, "verdict"] == FOUND
    crowd = verdict_table([row("marginal", 0.001, 0.02)] + [row(f"other {i}", 0.5, 0.5) for i in range(4)])
    assert crowd.loc[0, "p_boot_holm"] == pytest.approx(0.1) and crowd.loc[0, "verdict"] == NOISE
    assert (crowd["p_welch_holm"] >= crowd["p_welch"]).all() and (crowd["p_boot_holm"] >= crowd["p_boot"]).all()


def test_a_budget_unmatched_difference_is_not_found():
    rng = np.random.default_rng(5)
    a, b = bernoulli(rng, 0.9), bernoulli(rng, 0.6)
    t = verdict_table(
        [
            ("matched", a, b),
            {"name": "more epochs", "a": a, "b": b, "budget_matched": False, "note": "a trains 2x the epochs"},
            ("unmatched and equal", a, a, {"budget_matched": False}),
        ]
    )
    assert t["verdict"].tolist() == [FOUND, NEEDS_CONTROL, NOISE]
    assert t.loc[1, "note"] == "a trains 2x the epochs"
    assert verdict(0.001, 0.001, budget_matched=False) == NEEDS_CONTROL


def test_the_table_has_every_column_and_prints_whole():
    rng = np.random.default_rng(6)
    long_name = "stack-and-finetune (DenseCNN head) vs finetune-only at the matched budget, CoNLL-2003 entity F1"
    t = verdict_table(
        [
            (long_name, bernoulli(rng, 0.9), bernoulli(rng, 0.6)),
            ("short", {0: [1, 0], 1: [0, 1]}, {0: [1, 0], 1: [0, 1]}),
        ],
        scale=100,
    )
    assert list(t.columns) == list(COLUMNS)
    assert 20 < t.loc[0, "delta"] < 40 and t.loc[0, "low"] < t.loc[0, "delta"] < t.loc[0, "high"]  # in points
    assert t[["seeds_a", "seeds_b", "examples_a", "examples_b"]].values.tolist() == [[3, 3, 500, 500], [2, 2, 2, 2]]
    with pd.option_context("display.max_colwidth", 10, "display.width", 40, "display.max_columns", 3):
        text = verdict_text(t)
    lines = text.splitlines()
    assert len(lines) == 3  # the header and one line per comparison: no wrapping
    assert all(name in lines[0].split() for name in COLUMNS)
    assert long_name in lines[1] and lines[2].startswith("short ")
    assert "..." not in text and "…" not in text


def test_show_verdicts_prints_the_text(capsys):
    t = verdict_table([("x", [[1, 0, 1], [0, 1, 1]], [[0, 0, 1], [0, 1, 0]])], resamples=200)
    show_verdicts(t)
    assert capsys.readouterr().out == verdict_text(t) + "\n"


def test_the_same_seed_gives_the_same_result():
    rng = np.random.default_rng(7)
    a, b = bernoulli(rng, 0.7, n=200), bernoulli(rng, 0.65, n=200)
    first, again, other = compare_arms(a, b, seed=3), compare_arms(a, b, seed=3), compare_arms(a, b, seed=4)
    assert first == again
    assert other.delta == first.delta and other.t == first.t  # only the draws change
    assert (other.low, other.high, other.se) != (first.low, first.high, first.se)
    pd.testing.assert_frame_equal(verdict_table([("x", a, b)], seed=3), verdict_table([("x", a, b)], seed=3))


def test_unpaired_arms_and_different_seed_ids():
    rng = np.random.default_rng(8)
    a = bernoulli(rng, 0.9, n=300)
    b = {10 + s: x for s, x in bernoulli(rng, 0.6, seeds=4, n=450).items()}
    c = compare_arms(a, b, paired=False)
    assert c.examples == (300, 450) and c.seeds == (3, 4) and not c.paired
    assert verdict_table([c]).loc[0, "verdict"] == FOUND


def test_a_score_function_over_predictions():
    rng = np.random.default_rng(9)
    labels = rng.normal(size=150)
    good = labels + rng.normal(scale=0.5, size=(3, 150))
    bad = rng.normal(size=(3, 150))
    pearson = lambda p, y: float(np.corrcoef(p, y)[0, 1])  # noqa: E731
    c = compare_arms(good, bad, labels=labels, score=pearson, resamples=500)
    assert c.delta > 0.5 and c.p_boot < 0.01 and c.p_welch < 0.01
    assert compare_arms(good, good, labels=labels, score=pearson, resamples=200).p_boot == 1.0


@pytest.mark.parametrize(
    "a, b, kwargs, match",
    [
        ({0: [1, 0, 1], 1: [1, 1, 1]}, {0: [1, 0], 1: [0, 1]}, {}, "same test examples; got 3 and 2.*paired=False"),
        ({0: [1, 0, 1]}, {0: [1, 0, 1], 1: [1, 1, 1]}, {}, "arm a has 1 seed.*at least 2 seeds"),
        ({}, {0: [1], 1: [0]}, {}, "arm a has 0 seed"),
        ([1, 0, 1], [[1, 0, 1], [1, 1, 0]], {}, "arm a has 1 seed"),
        ({0: [1, 0, 1], 1: [1, 1]}, {0: [1, 0, 1], 1: [1, 1, 1]}, {}, "arm a's seeds hold \\[2, 3\\] test examples"),
        ({0: [], 1: []}, {0: [], 1: []}, {}, "non-empty"),
        ({0: [1, np.nan], 1: [1, 0]}, {0: [1, 0], 1: [1, 0]}, {}, "NaN"),
        ({0: [1, 0], 1: [1, 0]}, {0: [1, 0], 1: [1, 0]}, {"score": np.mean}, "labels="),
        (np.zeros((2, 3, 2)), np.zeros((2, 3, 2)), {}, "pass score="),
    ],
)
def test_bad_input_is_named_with_its_fix(a, b, kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare_arms(a, b, **kwargs)


def test_bad_tables_are_named():
    with pytest.raises(ValueError, match="no comparisons"):
        verdict_table([])
    with pytest.raises(ValueError, match="name, a, b"):
        verdict_table([("only a name",)])
