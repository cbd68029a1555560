"""What each paper's medium plan costs on one GPU: its runs priced by :mod:`kit.analysis.cost`.

Each sizes module holds ``MEDIUM_DATA`` (the data's known sizes: the plan is built without loading it), ``MEDIUM_COSTS``
(measured ``(fixed, per step, first)`` seconds, four notebooks sharing one H200, benchmarks/medium_gpu),
``MEDIUM_OUTSIDE`` (cells outside the sweep), ``cost_kind`` and ``cost_programs``.

>>> slow, central, fast = medium_minutes("pretrain_or_not")
>>> fast < central < slow
True
"""

from __future__ import annotations

import importlib
import math

from .. import config
from ..analysis.cost import CONTENTION, PlanCost, alone, plan_cost
from . import sizes as paper_sizes

__all__ = ["medium_cost", "medium_minutes", "medium_plan", "sizes_module"]


class _Sized:
    """A stand-in for a data set of known size: its training split's length and steps per epoch."""

    def __init__(self, train: int):
        self.train = range(train)

    def steps_per_epoch(self, batch_size: int) -> int:
        """``ceil(train / batch_size)``, as ``TaskData.steps_per_epoch``."""
        return math.ceil(len(self.train) / batch_size)


def sizes_module(paper: str):
    """``kit.papers.<paper>.<paper>_sizes``."""
    return importlib.import_module(f"{__package__}.{paper}.{paper}_sizes")


def _runs(paper: str):
    """``kit.papers.<paper>.<paper>_runs`` (imports Keras)."""
    return importlib.import_module(f"{__package__}.{paper}.{paper}_runs")


def _trains(paper: str) -> dict:
    """``{task or data set: training examples}`` of the paper's medium data (``MEDIUM_DATA``)."""
    return {name: d["train"] for name, d in sizes_module(paper).MEDIUM_DATA.items()}


def medium_plan(paper: str, s: dict | None = None) -> list[dict]:
    """The paper's medium plan (as ``experiment.plan()`` lists it), each run with its planned ``steps``; no data loaded.

    The paper's plan function on stand-ins of ``MEDIUM_DATA``'s sizes (``s``: medium); 02: TLM runs, then baseline.
    """
    s = s if s is not None else paper_sizes(paper, "medium")
    runs, n = _runs(paper), _trains(paper)
    if paper == "pretrain_or_not":
        return runs.plan(runs.models(s), config.train_sizes(s["train_sizes"], n[s["dataset"]]), s)
    if paper == "tlm":
        tasks = {name: _Sized(n[name]) for name in s["tasks"]}
        return runs.plan(runs.settings(s), s, tasks) + runs.baseline_plan(s, tasks)
    if paper == "stack_and_finetune":
        tasks = {name: _Sized(n[name]) for name in s["tasks"]}
        models = {name: ["light"] + s["section_heads"][spec["section"]] for name, spec in s["tasks"].items()}
        return runs.plan(models, s, tasks)
    if paper == "serbertus":
        data = {t: {"train": (None, range(n[t]))} for t in s["tasks"]}
        return runs.plan(runs.settings(s, list(s["tasks"])), s, data)
    raise ValueError(f"Unknown paper {paper!r}; the papers are {config.PAPERS}.")


def medium_cost(paper: str, s: dict | None = None) -> tuple[PlanCost, float]:
    """``(the plan's cost, part by part; the other cells' seconds)`` at medium, four notebooks sharing one H200."""
    table = sizes_module(paper)
    plan = medium_plan(paper, s)
    cost = plan_cost(plan, table.MEDIUM_COSTS, table.cost_kind, table.cost_programs)
    return cost, float(sum(table.MEDIUM_OUTSIDE))


def medium_minutes(paper: str, s: dict | None = None) -> tuple:
    """The whole notebook's minutes at medium (runs and other cells), alone on one H200: ``(slow, central, fast)``.

    Slow and fast divide the shared-GPU times by the ends of :data:`kit.analysis.cost.CONTENTION` (1 and 4); central
    divides each run by its kind's ``RunCost.contention`` (1 for LSTMs, 2 for transformers), other cells by 2.
    """
    cost, outside = medium_cost(paper, s)
    slow, central, fast = alone(cost.total + outside)
    return slow / 60, (cost.alone + outside / CONTENTION[1]) / 60, fast / 60
