"""Notebooks 01-04's medium plans: their costs reproduce the committed GPU runs, each fits ~10 minutes alone on one
GPU, and each opening prints the minutes the cost model predicts (kit.papers.costs, benchmarks/medium_gpu).

The plans are built with each paper's own plan function (its runs module: Keras) from the data's known sizes.
"""

import importlib.util
import json
import re

import pytest

from kit import notebooks
from kit.papers import costs, sizes
from tests.helpers import ROOT

pytestmark = pytest.mark.one_backend

PAPERS = {"01": "pretrain_or_not", "02": "tlm", "03": "stack_and_finetune", "04": "serbertus"}
#: The longest a medium notebook may be predicted to take alone on one GPU, central estimate (issue 40: ~10 minutes).
MOST_MINUTES = 11.5


def _tooling():
    spec = importlib.util.spec_from_file_location("plan_medium", ROOT / "benchmarks" / "medium_gpu" / "plan_medium.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tooling():
    return _tooling()


@pytest.mark.parametrize("nb", list(PAPERS))
def test_the_stored_costs_reproduce_the_committed_runs(tooling, nb):
    # in-sample: the logged runs the constants were fitted to (benchmarks/medium_gpu/NN_run.log), compiles included
    runs = tooling.predicted(nb)
    assert len(runs) >= 8
    assert runs.predicted.sum() == pytest.approx(runs.seconds.sum(), rel=0.05)  # a plan's total: within 5%
    error = ((runs.predicted - runs.seconds).abs() / runs.seconds).mean()
    assert error < 0.25, f"{nb}: mean error per run {error:.0%}"  # a run: the log's whole seconds, shared GPU


def test_the_fitted_constants_are_the_stored_ones(tooling):
    # each logged kind fitted alone (fit: fixed, per step, first) gives what the stored constants give for its runs
    from kit.analysis.cost import RunCost

    for (nb, kind), c in tooling.refit().items():
        stored = RunCost(*costs.sizes_module(PAPERS[nb]).MEDIUM_COSTS[kind])
        runs = tooling.predicted(nb)
        steps = runs[runs.kind == kind].steps.mean()
        assert c.seconds(steps) == pytest.approx(stored.seconds(steps), rel=0.1), (nb, kind, c, stored)
        if nb == "01":  # fitted alone: every constant as stored
            fitted, kept = (c.fixed, c.per_step, c.first), (stored.fixed, stored.per_step, stored.first)
            assert fitted == pytest.approx(kept, rel=0.01, abs=1e-4)


@pytest.mark.parametrize("paper", list(PAPERS.values()))
def test_every_kind_of_the_medium_plan_has_a_cost(paper):
    table = costs.sizes_module(paper)
    plan = costs.medium_plan(paper)
    assert plan and all(r["steps"] > 0 for r in plan)
    missing = {table.cost_kind(r) for r in plan} - set(table.MEDIUM_COSTS)
    assert not missing, f"{paper}: no MEDIUM_COSTS for {missing}"


def test_the_medium_plans_count_the_logged_steps():
    # the plans of the committed runs, rebuilt from the data's known sizes: the same steps per run as logged
    by = lambda paper, **keys: {  # noqa: E731
        r["steps"] for r in costs.medium_plan(paper) if all(r[k] == v for k, v in keys.items())
    }
    assert by("pretrain_or_not", model="LSTM-2-256", train_examples=8454) == {1330}
    assert by("tlm", experiment="tlm", task="bbc_news") == {1084}
    assert by("stack_and_finetune", task="brown_entities", model="light", strategy="finetune_only") == {375}
    assert by("serbertus", experiment="baseline", task="sst") == {530}
    assert by("serbertus", experiment="baseline", task="qqp") == {500}


@pytest.mark.parametrize("paper", list(PAPERS.values()))
def test_each_medium_plan_fits_about_ten_minutes_alone(paper):
    slow, central, fast = costs.medium_minutes(paper)
    assert fast < central <= slow
    assert central <= MOST_MINUTES, f"{paper}: {central:.1f} minutes alone predicted at medium"


@pytest.mark.parametrize("nb", list(PAPERS))
def test_each_opening_prints_the_predicted_minutes_and_the_seeds(nb):
    path = ROOT / "notebooks" / f"{notebooks.notebook(nb).stem}.ipynb"
    opening = "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])
    slow, central, fast = costs.medium_minutes(PAPERS[nb])
    said = re.search(r"At medium, ~(\d+) min alone on one H100 or H200, predicted \((\d+)-(\d+) min", opening)
    assert said, f"{nb}'s opening gives no predicted medium minutes"
    assert [int(x) for x in said.groups()] == [round(central), round(fast), round(slow)]
    s = sizes(PAPERS[nb], "medium")
    seeds = len(s.get("seeds") or s["lstm_seeds"])
    assert f"**What medium can find** ({seeds} seeds" in opening
