"""The freeze scheduler's phase plan: phases, frozen counts, rates, epochs and flags per strategy; argument errors."""

import subprocess
import sys
from pathlib import Path

import pytest

from kit.train import freeze_plan
from kit.train.freeze_plan import STRATEGIES, Phase, check_plan, phase_plan

pytestmark = pytest.mark.one_backend


def _rows(plan):
    return [tuple(p) for p in plan]


def test_gradual_unfreezing_with_three_groups():
    plan = phase_plan(
        "stack_and_finetune", 3, "gradual", phase1_lr=1e-3, phase2_lr=2e-5, phase1_epochs=2, phase2_epochs=5
    )
    assert _rows(plan) == [
        ("phase1", 3, 1e-3, 2, True, False),
        ("phase2.1", 2, 2e-5, 1, False, True),
        ("phase2.2", 1, 2e-5, 1, False, True),
        ("phase2.3", 0, 2e-5, 3, False, True),  # 5 epochs, 2 of them spent unfreezing
    ]
    assert all(isinstance(p, Phase) for p in plan)


def test_gradual_unfreezing_trains_everything_for_at_least_one_epoch():
    plan = phase_plan("stack_and_finetune", 4, "gradual", phase1_epochs=1, phase2_epochs=2)
    assert [p.name for p in plan] == ["phase1", "phase2.1", "phase2.2", "phase2.3", "phase2.4"]
    assert [p.frozen_groups for p in plan] == [4, 3, 2, 1, 0]
    assert [p.epochs for p in plan] == [1, 1, 1, 1, 1]


def test_gradual_with_one_group_is_one_unfreeze():
    plan = phase_plan("stack_and_finetune", 1, "gradual", phase1_epochs=3, phase2_epochs=4)
    assert [(p.name, p.frozen_groups, p.epochs) for p in plan] == [("phase1", 1, 3), ("phase2", 0, 4)]


def test_stack_and_finetune_unfreezes_all_at_once():
    plan = phase_plan("stack_and_finetune", 2, "all", phase1_lr=0.1, phase2_lr=0.01, phase1_epochs=3, phase2_epochs=4)
    assert _rows(plan) == [("phase1", 2, 0.1, 3, True, False), ("phase2", 0, 0.01, 4, False, True)]


@pytest.mark.parametrize("unfreeze", ["all", "gradual"])
def test_single_phase_strategies(unfreeze):
    finetune = phase_plan("finetune_only", 3, unfreeze, phase1_lr=0.1, phase2_lr=0.01, phase2_epochs=4)
    assert _rows(finetune) == [("phase1", 0, 0.01, 4, False, True)]  # phase 1 needs no epochs here
    stack = phase_plan("stack_only", 3, unfreeze, phase1_lr=0.1, phase2_lr=0.01, phase1_epochs=2)
    assert _rows(stack) == [("phase1", 3, 0.1, 2, False, True)]  # phase 2 needs no epochs here


def test_every_strategy_ends_in_a_final_phase_that_trains_something():
    for strategy in STRATEGIES:
        plan = phase_plan(strategy, 2, "gradual", phase1_epochs=1, phase2_epochs=1)
        assert plan[-1].final and plan[-1].epochs >= 1
        assert [p.stops_on_divergence for p in plan].count(True) == (strategy == "stack_and_finetune")


def test_errors():
    with pytest.raises(ValueError, match="Unknown strategy 'stack-and-finetune'.*Did you mean 'stack_and_finetune'"):
        phase_plan("stack-and-finetune", 1, phase1_epochs=1, phase2_epochs=1)
    with pytest.raises(ValueError, match=r"Unknown strategy 'freeze_all': use one of \('finetune_only'") as e:
        check_plan("freeze_all", phase1_epochs=1, phase2_epochs=1)
    assert "Did you mean" not in str(e.value)
    with pytest.raises(ValueError, match="unfreeze must be one of \\('all', 'gradual'\\); got 'sometimes'"):
        phase_plan("stack_and_finetune", 2, "sometimes", phase1_epochs=1, phase2_epochs=1)
    with pytest.raises(ValueError, match="'stack_only' trains a frozen phase: give phase1_epochs >= 1"):
        phase_plan("stack_only", 2, phase1_epochs=0, phase2_epochs=3)
    with pytest.raises(ValueError, match="'stack_and_finetune' trains a frozen phase"):
        phase_plan("stack_and_finetune", 2, phase1_epochs=0, phase2_epochs=3)
    with pytest.raises(ValueError, match="'finetune_only' trains an unfrozen phase: give phase2_epochs >= 1"):
        phase_plan("finetune_only", 2, phase1_epochs=3, phase2_epochs=0)
    with pytest.raises(ValueError, match="'stack_and_finetune' trains an unfrozen phase"):
        phase_plan("stack_and_finetune", 2, phase1_epochs=3, phase2_epochs=0)


def test_the_plan_imports_no_keras():
    """The plan is pure bookkeeping: its module loads on its own without Keras."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('plan', {str(Path(freeze_plan.__file__))!r})\n"
        "plan = importlib.util.module_from_spec(spec); spec.loader.exec_module(plan)\n"
        "assert plan.phase_plan('stack_only', 2, phase1_epochs=1)[0].frozen_groups == 2\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('keras', 'kit')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
