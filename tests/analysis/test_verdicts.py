"""The verdict table: an interval that counts the seeds and the test set, Holm, what a run could find, and why."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from kit.analysis import (
    Comparison,
    compare_arms,
    holm,
    show_verdicts,
    verdict,
    verdict_html,
    verdict_table,
    verdict_text,
)
from kit.analysis.noise import Noise, parts, pseudo_values
from kit.analysis.verdicts import (
    COLUMNS,
    FEW_EXAMPLES,
    FEW_SEEDS,
    FOUND,
    MAIN_COLUMNS,
    NEEDS_CONTROL,
    NO_VARIATION,
    NOISE,
    RECIPE,
)

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
    assert c.p_welch > 0.05 and c.p > 0.05 and c.low < 0 < c.high
    welch_se = math.hypot(np.std([0.75, 0.77], ddof=1), np.std([0.7125, 0.7325], ddof=1)) / math.sqrt(2)
    assert c.delta / welch_se == pytest.approx(2.65, abs=0.01)  # 2.7 standard errors over the seeds alone
    assert c.se > welch_se  # the test set counts too
    assert verdict_table([c]).loc[0, "verdict"] == NOISE


def test_seeds_that_agree_do_not_make_a_few_test_examples_a_finding():
    # every seed of b fixes the same 6 of a's errors and breaks 3 of its right answers: +1.5 points on every seed,
    # which Welch's t over seeds finds; 9 test examples out of 200 decide it, which the test set's part calls noise
    rng = np.random.default_rng(0)
    base = (rng.random(200) < 0.75).astype(float)
    base[:6], base[6:9] = 0.0, 1.0
    a = {s: np.where((rng.random(200) < 0.01) & (np.arange(200) >= 9), 1 - base, base) for s in range(5)}
    b = {s: np.concatenate([np.ones(6), np.zeros(3), x[9:]]) for s, x in a.items()}
    c = compare_arms(a, b)
    assert c.delta == pytest.approx(-0.015)
    assert c.p_welch < 0.05, "the seeds alone call it: the test is then about the test set"
    assert c.p > 0.2 and c.low < 0 < c.high
    assert c.se_examples > 3 * c.se_seeds
    assert verdict_table([c]).loc[0, "verdict"] == NOISE


def test_a_clear_effect_is_found():
    rng = np.random.default_rng(1)
    c = compare_arms(bernoulli(rng, 0.9), bernoulli(rng, 0.6), "0.9 vs 0.6")
    assert c.delta == pytest.approx(0.3, abs=0.04) and c.low > 0.2 and c.p < 0.001
    assert c.seeds == (3, 3) and c.examples == (500, 500)
    assert verdict_table([c]).loc[0, "verdict"] == FOUND
    flipped = compare_arms(bernoulli(rng, 0.6), bernoulli(rng, 0.9))
    assert flipped.delta < 0 and verdict_table([flipped]).loc[0, "verdict"] == FOUND


def test_welch_over_the_seeds_scores_is_scipys():
    rng = np.random.default_rng(2)
    a, b = bernoulli(rng, 0.8, seeds=4, n=300), bernoulli(rng, 0.75, seeds=3, n=300)
    ref = stats.ttest_ind([x.mean() for x in a.values()], [x.mean() for x in b.values()], equal_var=False)
    assert compare_arms(a, b).p_welch == pytest.approx(ref.pvalue)


def test_each_part_gives_its_standard_error():
    # the test set only: every seed makes the same predictions; the se is the binomial one, sqrt(p (1 - p) / n)
    x = exactly(np.random.default_rng(4), 400, 280)
    only_examples = compare_arms(np.stack([x] * 3), np.zeros((3, 400)))
    assert only_examples.se_seeds == 0 and only_examples.se == pytest.approx(np.sqrt(0.7 * 0.3 / 400), rel=0.01)
    z = stats.norm.ppf(0.975)
    assert only_examples.high - only_examples.delta == pytest.approx(z * only_examples.se)  # the normal's
    # the seeds only: every example of a seed scores the same; the se is Welch's, and so is the interval
    levels = np.array([0.6, 0.7, 0.8])
    only_seeds = compare_arms(np.repeat(levels[:, None], 50, axis=1), np.zeros((3, 50)))
    assert only_seeds.se_examples == 0 and only_seeds.se == pytest.approx(levels.std(ddof=1) / np.sqrt(3))
    assert only_seeds.df_seeds == pytest.approx(2.0)
    assert only_seeds.high - only_seeds.delta == pytest.approx(stats.t.ppf(0.975, 2) * only_seeds.se)
    assert only_seeds.p == pytest.approx(stats.ttest_1samp(levels, 0).pvalue)


@pytest.mark.parametrize("paired", [True, False])
def test_the_variance_matches_the_spread_of_the_difference(paired):
    # a crossed design with known parts (seed, example, flip): over many runs, the estimated variance averages the
    # true variance of delta, which the runs' own spread measures
    rng = np.random.default_rng(11)
    runs, s, n = 3000, 4, 120
    seed_sd, example_sd, flip_sd = 0.06, 0.2, 0.3  # the seeds' part well above the flips': no floor
    ex_a = rng.normal(0, example_sd, (runs, 1, n))
    ex_b = ex_a + rng.normal(0, 0.15, (runs, 1, n)) if paired else rng.normal(0, example_sd, (runs, 1, n))
    a = rng.normal(0, seed_sd, (runs, s, 1)) + ex_a + rng.normal(0, flip_sd, (runs, s, n))
    b = rng.normal(0, seed_sd, (runs, s, 1)) + ex_b + rng.normal(0, flip_sd, (runs, s, n))
    delta, var_seeds, var_examples, _ = parts(a.mean(-1), a, b.mean(-1), b, paired)
    example_part = (0.15**2 if paired else 2 * example_sd**2) / n
    truth = 2 * seed_sd**2 / s + 2 * flip_sd**2 / (s * n) + example_part
    assert delta.var() == pytest.approx(truth, rel=0.08)
    assert (var_seeds + var_examples).mean() == pytest.approx(truth, rel=0.05)
    assert var_examples.mean() == pytest.approx(example_part, rel=0.1)


def test_a_metric_that_is_not_a_mean_goes_through_pseudo_values():
    rng = np.random.default_rng(9)
    labels = rng.integers(0, 2, 150)
    pred_a = np.where(rng.random((3, 150)) < 0.85, labels, 1 - labels)
    pred_b = np.where(rng.random((3, 150)) < 0.75, labels, 1 - labels)
    accuracy = lambda p, y: float(np.mean(p == y))  # noqa: E731
    by_score = compare_arms(pred_a, pred_b, labels=labels, score=accuracy)
    by_example = compare_arms((pred_a == labels).astype(float), (pred_b == labels).astype(float))
    # for a mean, delete-one pseudo-values are the per-example scores: the same verdict either way
    for field in ("delta", "se", "low", "high", "p", "df_seeds"):
        assert getattr(by_score, field) == pytest.approx(getattr(by_example, field)), field
    grouped = compare_arms(pred_a, pred_b, labels=labels, score=accuracy, groups=30)
    assert grouped.se == pytest.approx(by_example.se, rel=0.2)


def test_pearson_is_tested_through_its_pseudo_values():
    rng = np.random.default_rng(9)
    labels = rng.normal(size=150)
    good = labels + rng.normal(scale=0.5, size=(3, 150))
    bad = rng.normal(size=(3, 150))
    pearson = lambda p, y: float(np.corrcoef(p, y)[0, 1])  # noqa: E731
    c = compare_arms(good, bad, labels=labels, score=pearson)
    assert c.delta > 0.5 and c.p < 0.01 and c.p_welch < 0.01
    same = compare_arms(good, good, labels=labels, score=pearson)
    assert same.delta == 0 and same.p == 1.0 and verdict_table([same]).loc[0, "verdict"] == NOISE
    f, ps = pseudo_values(good, labels, pearson)
    assert ps.shape == (3, 150) and np.allclose(ps.mean(1), f, atol=0.02)


def test_holm_matches_a_hand_computation():
    # sorted: 0.005 x4 = 0.02, 0.01 x3 = 0.03, 0.03 x2 = 0.06, 0.04 x1 = 0.04 -> raised to 0.06 (order kept)
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])  # capped at 1
    np.testing.assert_allclose(holm([0.02]), [0.02])  # one comparison: nothing to correct
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.1, float("nan")])


def row(name, p, delta=0.05, se=0.01, **kw):
    low, high = delta - 2 * se, delta + 2 * se
    return Comparison(name, delta, se, low, high, p, se, 0.0, 8.0, (5, 5), (500, 500), **kw)


def test_holm_in_the_table_turns_a_lone_finding_into_noise_among_many():
    alone = verdict_table([row("marginal", 0.02)])
    assert alone.loc[0, "verdict"] == FOUND
    crowd = verdict_table([row("marginal", 0.02)] + [row(f"other {i}", 0.5) for i in range(4)])
    assert crowd.loc[0, "p_holm"] == pytest.approx(0.1) and crowd.loc[0, "verdict"] == NOISE
    assert (crowd["p_holm"] >= crowd["p"]).all()
    assert crowd.attrs["tested"] == 5 and crowd.attrs["alpha_row"] == pytest.approx(0.01)
    # the detectable difference is at Holm's strictest level: larger in the crowd than alone
    assert crowd.loc[0, "detectable"] > alone.loc[0, "detectable"]
    n = Noise(0.05, 0.01**2, 0.0, 8.0)
    assert crowd.loc[0, "detectable"] == pytest.approx(n.detectable(0.01))


def test_the_detectable_difference_is_what_the_design_finds_80_percent_of_the_time():
    # a t-test's textbook power: delta = (t(1 - alpha/2) + t(0.8)) se at df seeds; the noncentral t agrees
    n = Noise(0.0, 0.02**2, 0.0, 8.0)
    mdd = n.detectable(0.05)
    assert mdd == pytest.approx((stats.t.ppf(0.975, 8) + stats.t.ppf(0.8, 8)) * 0.02)
    crit = stats.t.ppf(0.975, 8)
    power = stats.nct.sf(crit, 8, mdd / 0.02) + stats.nct.cdf(-crit, 8, mdd / 0.02)
    assert 0.78 < power < 0.84
    # more seeds, a smaller detectable difference
    rng = np.random.default_rng(5)
    few = compare_arms(bernoulli(rng, 0.8, seeds=3), bernoulli(rng, 0.8, seeds=3))
    many = compare_arms(bernoulli(rng, 0.8, seeds=8), bernoulli(rng, 0.8, seeds=8))
    assert many.detectable() < few.detectable()


def test_a_noise_row_says_whether_the_run_could_have_seen_the_papers_effect():
    rng = np.random.default_rng(6)
    a, b = bernoulli(rng, 0.80, seeds=3, n=300), bernoulli(rng, 0.79, seeds=3, n=300)
    t = verdict_table(
        [("small effect", a, b, {"effect": 0.01}), ("large effect", a, b, {"effect": 0.5}), ("no effect", a, b)],
        scale=100,
    )
    assert t["verdict"].tolist() == [FEW_SEEDS, NOISE, NOISE]
    assert t.loc[0, "effect"] == pytest.approx(1.0) and t.loc[0, "detectable"] > 1.0  # in points
    assert "the paper's effect is +1;" in t.loc[0, "why"] and "within reach" in t.loc[1, "why"]
    # many seeds, few test examples on different test sets: the test set is what limits it
    hard = lambda: rng.choice([0.2, 0.95], 30)  # noqa: E731 - each test example's chance, an easy or a hard one
    p_a, p_b = hard(), hard()
    many_a, many_b = ({s: (rng.random(30) < p).astype(float) for s in range(40)} for p in (p_a, p_b))
    t = verdict_table([("x", many_a, many_b)], effect=0.001, paired=False)
    assert t.loc[0, "verdict"] == FEW_EXAMPLES and t.loc[0, "se_examples"] > 3 * t.loc[0, "se_seeds"]
    assert verdict(0.2, detectable=3.0, effect=-2.0, seeds_limit=False) == FEW_EXAMPLES  # the effect's size counts


def test_budgets_from_what_each_arm_trained():
    rng = np.random.default_rng(5)
    a, b = bernoulli(rng, 0.9), bernoulli(rng, 0.6)
    six = {"epochs": 6, "steps": 600}
    stopped_early = {"epochs": 4, "steps": 400}  # phase 1 stopped early: configured 6 epochs, ran 4
    t = verdict_table(
        [
            ("matched", a, b, {"budget_a": six, "budget_b": {"epochs": 6, "steps": 590}}),
            ("stopped early", a, b, {"budget_a": stopped_early, "budget_b": six}),
            {"name": "declared", "a": a, "b": b, "budget_matched": False, "note": "a trains 2x the epochs"},
            ("recipes", a, b, {"budget_a": stopped_early, "budget_b": six, "recipe": True}),
            ("unmatched and equal", a, a, {"budget_matched": False}),
            ("not given", a, b),
        ]
    )
    assert t["verdict"].tolist() == [FOUND, NEEDS_CONTROL, NEEDS_CONTROL, RECIPE, NOISE, FOUND]
    assert t["design"].tolist() == [
        "budget-matched", "budgets differ", "budgets differ", "recipe comparison", "budgets differ", "budgets not given"
    ]  # fmt: skip
    assert t.loc[1, "budget_a"] == "4 epochs, 400 steps" and "a trained 4 epochs, 400 steps" in t.loc[1, "why"]
    assert t.loc[2, "note"] == "a trains 2x the epochs"
    loose = compare_arms(a, b, budget_a=stopped_early, budget_b=six, budget_tolerance=0.5)
    assert loose.budget_matched


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"budget_a": {"steps": 1}}, ValueError, "both arms' budgets"),
        ({"budget_a": {"steps": 1}, "budget_b": {"epochs": 1}}, ValueError, "nothing to compare"),
        ({"budget_a": {"steps": -1}, "budget_b": {"steps": 1}}, ValueError, "finite count"),
        ({"budget": {"steps": 1}}, TypeError, "unknown option.*'budget'.*budget_a"),
    ],
)
def test_bad_budgets_are_named(options, error, match):
    with pytest.raises(error, match=match):
        compare_arms({0: [1, 0], 1: [0, 1]}, {0: [1, 1], 1: [0, 1]}, **options)


def test_a_row_where_nothing_varies_is_explained_and_not_counted():
    rng = np.random.default_rng(7)
    real = ("real", bernoulli(rng, 0.9), bernoulli(rng, 0.6))
    t = verdict_table([("constant", np.ones((3, 50)), np.ones((3, 50))), real])
    assert t["verdict"].tolist() == [NO_VARIATION, FOUND]
    assert np.isnan(t.loc[0, "p_holm"]) and t.attrs["tested"] == 1
    assert t.loc[1, "p_holm"] == pytest.approx(t.loc[1, "p"])  # Holm over the one row tested
    assert "nothing to test" in t.loc[0, "why"]
    # an exact difference (no spread at all) is found
    exact = compare_arms(np.ones((2, 10)), np.zeros((2, 10)))
    assert exact.se == 0 and exact.p == 0 and verdict_table([exact]).loc[0, "verdict"] == FOUND


def test_the_table_has_every_column_and_its_text_fits_160_characters():
    rng = np.random.default_rng(6)
    long_name = "stack-and-finetune (DenseCNN head) vs finetune-only at the matched budget, CoNLL-2003 entity F1 " * 2
    t = verdict_table(
        [
            (long_name, bernoulli(rng, 0.9), bernoulli(rng, 0.6), {"effect": 0.3}),
            ("short", {0: [1, 0, 1], 1: [0, 1, 1]}, {0: [1, 0, 0], 1: [0, 1, 0]}, {"budget_matched": False}),
            ("<b>escaped</b>", np.ones((2, 3)), np.ones((2, 3))),
        ],
        scale=100,
    )
    assert list(t.columns) == list(COLUMNS) and list(t.columns[: len(MAIN_COLUMNS)]) == list(MAIN_COLUMNS)
    assert 20 < t.loc[0, "delta"] < 40 and t.loc[0, "low"] < t.loc[0, "delta"] < t.loc[0, "high"]  # in points
    assert t[["seeds_a", "seeds_b", "examples_a", "examples_b"]].values.tolist() == [
        [3, 3, 500, 500], [2, 2, 3, 3], [2, 2, 3, 3]
    ]  # fmt: skip
    text = verdict_text(t)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 160
    assert "points" in lines[0] and "Holm over 2 rows" in lines[0]
    assert lines[1].split()[:3] == ["#", "comparison", "difference"] and "detectable" in lines[1]
    assert "paper" in lines[1]  # an effect was given
    assert f"{t.loc[0, 'delta']:+.1f}" in text and f"{t.loc[0, 'delta']:+.3f}" not in text  # points, rounded
    words = iter(text.split())
    assert all(w in words for w in long_name.split())  # wrapped onto the next lines, in order, not cut
    assert "#3 <b>escaped</b>: no variation" in text
    assert "..." not in text and "…" not in text
    whole = verdict_text(t, full=True)
    assert all(name in whole.splitlines()[0].split() for name in COLUMNS)


def test_the_html_shows_the_main_columns_and_folds_the_rest():
    rng = np.random.default_rng(8)
    t = verdict_table([("<i>a</i> - b", bernoulli(rng, 0.9), bernoulli(rng, 0.6))], scale=100)
    page = verdict_html(t)
    shown, folded = page.split("<details>")
    for head in ("comparison", "difference", "95% interval", "p (Holm)", "detectable", "verdict"):
        assert head in shown
    assert "&lt;i&gt;a&lt;/i&gt; - b" in shown and "<i>a</i>" not in page
    assert f"{t.loc[0, 'delta']:+.1f}" in shown
    for column in ("se_seeds", "se_examples", "df_seeds", "p_welch", "why", "note", "design"):
        assert column in folded and column not in shown


def test_show_verdicts_prints_the_text(capsys):
    t = verdict_table([("x", [[1, 0, 1], [0, 1, 1]], [[0, 0, 1], [0, 1, 0]])])
    show_verdicts(t)
    assert capsys.readouterr().out == verdict_text(t) + "\n"


def test_the_same_input_gives_the_same_result():
    rng = np.random.default_rng(7)
    a, b = bernoulli(rng, 0.7, n=200), bernoulli(rng, 0.65, n=200)
    assert compare_arms(a, b) == compare_arms(a, b) == compare_arms(a, b, seed=4)  # per-example scores: no draws
    pd.testing.assert_frame_equal(verdict_table([("x", a, b)]), verdict_table([("x", a, b)]))
    first, again, other = (compare_arms(a, b, resamples=300, seed=s) for s in (3, 3, 4))
    assert first == again and first.p_boot != other.p_boot and first.p == other.p  # the diagnostic's draws only


def test_the_diagnostic_bootstrap_and_welch_are_kept_beside_the_verdict():
    rng = np.random.default_rng(10)
    a, b = bernoulli(rng, 0.9), bernoulli(rng, 0.6)
    t = verdict_table([("x", a, b), ("y", a, a)], resamples=400)
    assert t["p_boot"].notna().all() and (t["p_boot_holm"] >= t["p_boot"]).all()
    assert (t["p_welch_holm"] >= t["p_welch"]).all()
    assert verdict_table([("x", a, b)])["p_boot"].isna().all()  # not asked: not drawn


def test_unpaired_arms_and_different_seed_ids():
    rng = np.random.default_rng(8)
    a = bernoulli(rng, 0.9, n=300)
    b = {10 + s: x for s, x in bernoulli(rng, 0.6, seeds=4, n=450).items()}
    c = compare_arms(a, b, paired=False)
    assert c.examples == (300, 450) and c.seeds == (3, 4) and not c.paired
    assert verdict_table([c]).loc[0, "verdict"] == FOUND


@pytest.mark.parametrize(
    "a, b, kwargs, match",
    [
        ({0: [1, 0, 1], 1: [1, 1, 1]}, {0: [1, 0], 1: [0, 1]}, {}, "same test examples; got 3 and 2.*paired=False"),
        ({0: [1, 0, 1]}, {0: [1, 0, 1], 1: [1, 1, 1]}, {}, "arm a has 1 seed.*at least 2 seeds"),
        ({}, {0: [1], 1: [0]}, {}, "arm a has 0 seed"),
        ([1, 0, 1], [[1, 0, 1], [1, 1, 0]], {}, "arm a has 1 seed"),
        ({0: [1, 0, 1], 1: [1, 1]}, {0: [1, 0, 1], 1: [1, 1, 1]}, {}, "arm a's seeds hold \\[2, 3\\] test examples"),
        ({0: [], 1: []}, {0: [], 1: []}, {}, "at least 2 examples"),
        ({0: [1], 1: [0]}, {0: [1], 1: [0]}, {}, "at least 2 examples"),
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
