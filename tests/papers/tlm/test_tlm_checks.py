"""Notebook 02's exercise checks: right answers pass; the untouched starter and wrong-but-plausible ones do not."""

import time

import pytest

import kit
from kit.checks import Verdict
from kit.papers.tlm import tlm_exercises as ex
from kit.papers.tlm import tlm_runs as runs

pytestmark = pytest.mark.one_backend


def starter(*args, **kwargs):
    """Every starter as it is: its function returns ``...``."""
    return ...


def said(capsys, number, answer, **kw):
    """The check's verdict (a bool) and what it printed."""
    value = ex.check(number, answer, **kw)
    assert isinstance(value, Verdict), f"check returned {value!r}, not a Verdict"
    return bool(value), capsys.readouterr().out


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_the_untouched_starter_is_not_yet(capsys, number):
    value, out = said(capsys, number, starter)
    assert value is False and out.startswith("not yet:") and "returned ..." in out


def test_an_exercise_that_does_not_exist_is_named():
    with pytest.raises(ValueError, match="exercises 1-5"):
        ex.check(6, starter)


def test_check_1(capsys):
    assert said(capsys, 1, lambda passages, k, queries: passages / (k * queries))[0] is True
    assert said(capsys, 1, lambda ids, k, queries: len(set(ids)) / (k * queries))[0] is True  # the ids themselves
    value, out = said(capsys, 1, lambda passages, k, queries: passages / queries)  # K forgotten
    assert value is False and "denominator" in out


def _stage1_accuracy(rho1=None, rho2=0):
    """A stage1_accuracy with the given stream (None: the sizes' rho1)."""

    def stage1_accuracy(setup, pooling, seed=0):
        model = ex.new_tlm(setup, seed, pooling=pooling)
        ex.stage1(setup, model, rho1=setup.Z["rho1"] if rho1 is None else rho1, rho2=rho2, seed=seed)
        return runs.scores(model.classifier(), setup.x["test"], setup.ds.test.y)[0]

    return stage1_accuracy


def test_check_2(capsys):
    far = {"cls": [0.25], "mean": [0.60]}  # one seed, 35 points apart on the test texts: z > 4
    value, out = said(capsys, 2, _stage1_accuracy(), prediction="mean", acc=far)
    assert value is True and "z-test over the 222 test texts" in out
    assert said(capsys, 2, _stage1_accuracy(), prediction="cls", acc=far)[0] is False
    assert said(capsys, 2, _stage1_accuracy(), prediction="same", acc={"cls": [0.25], "mean": [0.30]})[0] is True
    seeds = {"cls": [0.30, 0.31, 0.29], "mean": [0.50, 0.55, 0.52]}
    value, out = said(capsys, 2, _stage1_accuracy(), prediction="mean", acc=seeds)
    assert value is True and "paired t over 3 seeds, df = 2" in out
    value, out = said(capsys, 2, _stage1_accuracy(), prediction="mean")
    assert value is False and 'acc={"cls"' in out
    value, out = said(capsys, 2, _stage1_accuracy(), acc=far)
    assert value is False and "record your prediction" in out
    value, out = said(capsys, 2, _stage1_accuracy(rho2=20))  # the sizes' rho2 kept
    assert value is False and "rho2 = 0" in out
    assert said(capsys, 2, _stage1_accuracy(rho1=0))[0] is False  # the task alone: no interleaved stream

    def pooling_ignored(setup, pooling, seed=0):
        return _stage1_accuracy()(setup, "mean", seed)

    value, out = said(capsys, 2, pooling_ignored)
    assert value is False and "reads" in out


def _cycle_shares(rho1, rho2, normalize_internal=True):
    """The right shares."""
    scale = rho2 + 1 if normalize_internal else 1
    total = (rho2 + 1) / scale + rho1
    return 1 / scale / total, rho2 / scale / total, rho1 / total


def test_check_3(capsys):
    assert said(capsys, 3, _cycle_shares)[0] is True

    def never_normalised(rho1, rho2, normalize_internal=True):
        return _cycle_shares(rho1, rho2, False)

    value, out = said(capsys, 3, never_normalised)
    assert value is False and "normalised" in out
    assert said(capsys, 3, lambda *a, **k: tuple(reversed(_cycle_shares(*a, **k))))[0] is False  # the order


def _two_stages(score_before_stage2=True, same_weights=True):
    """A two_stages (scoring stage 1 too late, or fine-tuning a fresh model, when asked)."""

    def two_stages(setup, rho1, seed=0, steps=32, epochs=2):
        model = ex.new_tlm(setup, seed)
        ex.stage1(setup, model, rho1, setup.Z["rho2"], seed, steps=steps)
        clf = model.classifier() if same_weights else runs.new_tlm_model(setup.Z, setup.tokens, 2, seed).classifier()
        first = runs.scores(clf, setup.x["test"], setup.ds.test.y)[0]
        recipe = kit.train.FitRecipe(setup.Z["stage2_lr"], epochs=epochs, batch_size=setup.Z["batch_size"])
        kit.train.fit_classifier(clf, (setup.x["train"], setup.ds.train.y), (setup.x["dev"], setup.ds.dev.y), recipe)
        second = runs.scores(clf, setup.x["test"], setup.ds.test.y)[0]
        return (first if score_before_stage2 else second), second

    return two_stages


def test_check_4(capsys):
    ext_gains = {1: [(0.50, 0.55)], float("inf"): [(0.25, 0.60)]}  # one seed: +5 against +35 points
    value, out = said(capsys, 4, _two_stages(), prediction="ext only", results=ext_gains)
    assert value is True and "one seed" in out
    assert said(capsys, 4, _two_stages(), prediction="main", results=ext_gains)[0] is False
    close = {1: [(0.50, 0.55)], float("inf"): [(0.48, 0.54)]}
    assert said(capsys, 4, _two_stages(), prediction="same", results=close)[0] is True
    value, out = said(capsys, 4, _two_stages(), prediction="same")
    assert value is False and "results={rho1" in out
    value, out = said(capsys, 4, _two_stages(same_weights=False))
    assert value is False and "share" in out
    value, out = said(capsys, 4, _two_stages(score_before_stage2=False))
    assert value is False and "before stage 2" in out


def _seconds_per_step(timed_chunk=1, divide=True):
    """A seconds_per_step timing the given chunk (0: from the start, the warm-up included)."""

    def seconds_per_step(model, x, y, masker, n=3, batch_size=32):
        ends = [time.perf_counter()]
        recipe = kit.train.Stage1Recipe(rho1=0, rho2=20, steps=2 * n, batch_size=batch_size, chunks=2)
        kit.train.train_stage1(
            model, (x, y), None, masker, recipe, progress=lambda *_: ends.append(time.perf_counter())
        )
        return (ends[2] - ends[2 - timed_chunk]) / (n * timed_chunk if divide else 1)

    return seconds_per_step


def test_check_5(capsys):
    value, out = said(capsys, 5, _seconds_per_step(), prediction="2x or more", per_step=[0.1, 0.33])
    assert value is True and "3.3x" in out
    assert said(capsys, 5, _seconds_per_step(), prediction="under 2x", per_step=[0.1, 0.33])[0] is False
    assert said(capsys, 5, _seconds_per_step(), prediction="under 2x", per_step=[0.1, 0.15])[0] is True
    value, out = said(capsys, 5, _seconds_per_step(), prediction="under 2x")
    assert value is False and "per_step=" in out
    value, out = said(capsys, 5, _seconds_per_step(divide=False))  # the chunk's seconds, not per step
    assert value is False and "second chunk" in out


def test_check_5_wants_two_chunks(capsys):
    def one_chunk(model, x, y, masker, n=3, batch_size=32):
        start = time.perf_counter()
        recipe = kit.train.Stage1Recipe(rho1=0, rho2=20, steps=n, batch_size=batch_size, chunks=1)
        kit.train.train_stage1(model, (x, y), None, masker, recipe)
        return (time.perf_counter() - start) / n

    value, out = said(capsys, 5, one_chunk)
    assert value is False and "two chunks" in out
