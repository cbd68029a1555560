"""The cost model of a sweep's plan: its fit, the progress lines it reads, and that a plan's cost adds up.

The medium constants (each paper's ``MEDIUM_COSTS``) are checked against the committed GPU runs in
tests/papers/test_medium_plans.py.
"""

import itertools

import numpy as np
import pytest

from kit.analysis.cost import CONTENTION, PlanCost, RunCost, alone, fit, plan_cost, read_progress

pytestmark = pytest.mark.one_backend


def test_fit_recovers_the_costs_it_was_made_from():
    rng = np.random.default_rng(0)
    steps = rng.integers(50, 1500, 40)
    first = np.arange(40) % 5 == 0
    seconds = 3.0 + 0.02 * steps + 11.0 * first + rng.normal(0, 0.05, 40)
    c = fit(steps, seconds, first)
    assert (c.fixed, c.per_step, c.first) == pytest.approx((3.0, 0.02, 11.0), rel=0.02)


def test_fit_keeps_both_costs_at_or_above_zero():
    assert fit([100, 200, 300], [1.0, 1.0, 1.0]).per_step == pytest.approx(0.0, abs=1e-12)  # flat: all fixed
    c = fit([100, 200, 300], [0.5, 2.5, 4.5])  # the line would cross 0 below zero: all per step
    assert c.fixed == 0.0 and c.per_step == pytest.approx(7.5 / 600)
    assert fit([100, 100], [4.0, 6.0]) == RunCost(5.0, 0.0, 0.0)  # one length: the mean


def test_fit_refuses_what_it_cannot_fit():
    with pytest.raises(ValueError, match="compiled nothing"):
        fit([10, 20], [1.0, 2.0], first=[True, True])
    with pytest.raises(ValueError, match="one each"):
        fit([10, 20], [1.0])


def test_read_progress_reads_what_the_sweep_writes():
    elapsed = ["5s", "1m04s", "1h02m"]  # kit.train.sweep.format_seconds: hours without their seconds
    lines = [f"[{i}/3 | {t} | ETA 1m00s] model=m, seed={i}: accuracy 0.5" for i, t in enumerate(elapsed)]
    runs = read_progress(["plan: 3 runs", *lines, "stopped"])
    assert [r["seconds"] for r in runs] == [5, 59, 3656]
    assert runs[1] == {"model": "m", "seed": "1", "seconds": 59}
    with pytest.raises(ValueError, match="duration"):
        read_progress(["[1/3 | soon | ETA 1m] model=m"])


def _plan():
    return [{"model": m, "size": n, "seed": s, "steps": 10 * n} for m in ("a", "b") for n in (1, 3) for s in (0, 1)]


COSTS = {"a": RunCost(2.0, 0.1, 5.0, contention=1.0), "b": (1.0, 0.2, 8.0)}


def test_a_plans_cost_adds_up_run_by_run():
    plan = _plan()
    c = plan_cost(plan, COSTS, kind=lambda r: r["model"], programs=lambda r: ((r["model"], r["size"]),))
    by_hand, seen = 0.0, set()
    for r in plan:
        cost = COSTS[r["model"]] if isinstance(COSTS[r["model"]], RunCost) else RunCost(*COSTS[r["model"]])
        new = (r["model"], r["size"]) not in seen
        seen.add((r["model"], r["size"]))
        by_hand += cost.seconds(r["steps"], float(new))
    assert c.total == pytest.approx(by_hand) == pytest.approx(c.fixed + c.steps + c.first)
    assert (c.runs, c.steps_planned) == (8, sum(r["steps"] for r in plan))
    assert c.first == pytest.approx(2 * 5.0 + 2 * 8.0)  # one compile per (model, size)
    a_part = sum(COSTS["a"].seconds(r["steps"]) for r in plan if r["model"] == "a") + 2 * 5.0
    assert c.alone == pytest.approx(a_part / 1.0 + (c.total - a_part) / CONTENTION[1])


def test_a_compile_is_paid_once_whatever_the_order():
    plan = _plan()
    kinds = dict(kind=lambda r: r["model"], programs=lambda r: ((r["model"], r["size"]),))
    totals = {round(plan_cost(p, COSTS, **kinds).total, 9) for p in itertools.islice(itertools.permutations(plan), 50)}
    assert len(totals) == 1


def test_a_run_pays_the_share_of_its_programs_that_are_new():
    plan = [{"k": "x", "steps": 0, "phases": ("p1",)}, {"k": "x", "steps": 0, "phases": ("p1", "p2")}]
    c = plan_cost(plan, {"x": RunCost(0.0, 0.0, 10.0)}, kind=lambda r: r["k"], programs=lambda r: r["phases"])
    assert c.first == pytest.approx(10.0 + 5.0)


def test_a_kind_without_a_cost_is_named():
    with pytest.raises(KeyError, match="kind 'c'"):
        plan_cost([{"model": "c", "steps": 1}], COSTS, kind=lambda r: r["model"])


def test_alone_divides_by_each_factor():
    assert alone(120.0) == (120.0, 60.0, 30.0)
    assert PlanCost(1, 10, 1.0, 2.0, 3.0, 3.0).total == 6.0
