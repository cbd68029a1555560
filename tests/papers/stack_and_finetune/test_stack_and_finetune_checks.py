"""Notebook 03's exercise checks: a right answer passes; the starter's ``...`` and a plausible wrong answer do not."""

import pytest

from kit.papers.stack_and_finetune import stack_and_finetune_exercises as ex

pytestmark = pytest.mark.one_backend


def run_rule(setup, threshold, patience, seed=0, p1=3, p2=1):
    """A right answer to exercise 1: the kit's run."""
    return tuple(ex._ref_rule(setup, threshold, patience, seed, p1, p2)[:3])


def run_arm(setup, head, strategy, seed=0, p1=2, p2=2):
    """A right answer to exercise 2."""
    return ex._ref_arm(setup, head, strategy, seed, p1, p2)


def run_unfreeze(setup, unfreeze, seed=0, p1=2, p2=2):
    """A right answer to exercise 3."""
    return ex._ref_unfreeze(setup, unfreeze, seed, p1, p2)[0]


def starter(*args, **kw):
    """The untouched starter: its body ends in ``...``."""
    ...


def test_exercise_1_right_starter_and_wrong_answers(capsys):
    assert ex.check(1, run_rule, prediction="negative")
    assert "right: " in capsys.readouterr().out

    assert not ex.check(1, starter, prediction="negative")
    assert "returned None (the starter as it is)" in capsys.readouterr().out

    assert not ex.check(1, run_rule)  # no prediction recorded
    assert "record your prediction" in capsys.readouterr().out

    def ignores_the_rule(setup, threshold, patience, seed=0, p1=3, p2=1):
        return run_rule(setup, 1.0, 2, seed, p1, p2)  # the recipe without the learner's DivergenceStopping

    assert not ex.check(1, ignores_the_rule, prediction="positive")
    assert "pass your DivergenceStopping" in capsys.readouterr().out

    def counts_from_0(setup, threshold, patience, seed=0, p1=3, p2=1):
        ran, kept, acc = run_rule(setup, threshold, patience, seed, p1, p2)
        return ran, kept - 1, acc

    assert not ex.check(1, counts_from_0, prediction="negative")
    assert "count the kept epoch from 1" in capsys.readouterr().out


def test_exercise_1_sees_a_run_that_forgets_the_restored_head():
    def keeps_the_last_head(setup, threshold, patience, seed=0, p1=3, p2=1):
        ran, _, acc = run_rule(setup, threshold, patience, seed, p1, p2)
        return ran, ran, acc

    assert ex._restoring([0.04, 0.08, -0.04]) == pytest.approx(0.04, abs=1e-5)
    assert ex._restoring([-0.2, 0.1]) == pytest.approx(0.0, abs=1e-5)
    assert not ex.check(1, keeps_the_last_head, prediction="negative")


def test_exercise_1_checks_on_a_seed_whose_toy_run_can_restore(monkeypatch):
    # tensorflow's toy gaps at seeds 0, 1 and 3: at seed 0 no patience-1 rule can go back to an earlier head, so a
    # run_rule that keeps the last head passed there (the test above, on tensorflow)
    gaps = {0: [0.167, -0.083, 0.125], 1: [0.0, -0.083, -0.042], 2: [-0.167, 0.083, -0.042]}
    monkeypatch.setattr(ex, "_ref_rule", lambda setup, threshold, patience, seed, p1, p2: (3, 3, 0.5, gaps[seed]))
    seed, lax = ex._restoring_seed(None, seeds=range(3))
    assert seed == 2 and ex._restoring(lax[3]) > 0


def test_exercise_2_right_starter_and_wrong_answers(capsys):
    assert ex.check(2, run_arm, prediction="below")
    assert "right: " in capsys.readouterr().out
    assert not ex.check(2, starter, prediction="above")
    assert "the starter as it is" in capsys.readouterr().out

    def ignores_the_strategy(setup, head, strategy, seed=0, p1=2, p2=2):
        return run_arm(setup, head, "stack_and_finetune", seed, p1, p2)

    assert not ex.check(2, ignores_the_strategy, prediction="below")
    assert "differ from the kit's run" in capsys.readouterr().out

    def another_accuracy(setup, head, strategy, seed=0, p1=2, p2=2):
        return 1.0 - run_arm(setup, head, strategy, seed, p1, p2)

    assert not ex.check(2, another_accuracy, prediction="below")


def test_exercise_3_right_starter_and_wrong_answers(capsys):
    assert ex.check(3, run_unfreeze, prediction="gradual")
    assert "right: " in capsys.readouterr().out
    assert not ex.check(3, starter, prediction="all")
    assert "the starter as it is" in capsys.readouterr().out

    def one_group(setup, unfreeze, seed=0, p1=2, p2=2):
        """Passes the whole backbone as one group: "gradual" then unfreezes it all at once."""
        from kit import config, train
        from kit.papers.stack_and_finetune import stack_and_finetune_runs as runs

        config.set_seed(seed)
        model = runs.build_model(setup.encoder.fresh(), setup.task, runs.rich_head("highway", 2, setup.sizes))
        recipe = ex._recipe(setup, p1, p2, unfreeze=unfreeze, divergence=setup.divergence(),
                            optimizer=lambda lr: train.adamw(lr, setup.sizes["weight_decay"]))  # fmt: skip
        ex._fit(setup, model, [setup.backbone], recipe, "stack_and_finetune")
        return setup.test_accuracy(model)

    assert not ex.check(3, one_group, prediction="gradual")
    assert "differ from the kit's run" in capsys.readouterr().out


def test_an_unknown_exercise_or_a_missing_function_is_named():
    with pytest.raises(ValueError, match="exercises 1, 2 and 3"):
        ex.check(4, run_rule)
    assert not ex.check(1, None, prediction="negative")
