"""What a sweep's plan costs on a GPU: a fixed cost per run, a cost per optimizer step, a compile per new program.

``fixed``: building, tracing, reading jax's cached program, scoring, saving; ``per_step``: per *planned* step (early
stopping folded in); ``first``: the first run needing a program (shape, head, phase) compiles it. :func:`fit` finds them
from measured runs (:func:`read_progress`), :func:`plan_cost` adds a plan up; notebooks 01-04 keep theirs as
``<paper>_sizes.MEDIUM_COSTS``, measured with four notebooks on one H200 (``benchmarks/medium_gpu``): :func:`alone`
divides by :data:`CONTENTION`.

>>> lstm = fit([100, 160, 470, 1330], [4.0, 5.0, 9.0, 21.0])
>>> round(lstm.fixed, 1), round(lstm.per_step * 1000, 1)          # seconds a run, milliseconds a step
(2.7, 13.8)
>>> plan = [{"model": "lstm", "steps": 100, "seed": s} for s in range(3)]
>>> c = plan_cost(plan, {"lstm": RunCost(2.0, 0.01, first=8.0)}, kind=lambda r: r["model"])
>>> c.fixed, c.steps, c.first, c.total, c.alone          # alone: at the central contention, 2
(6.0, 3.0, 8.0, 17.0, 8.5)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

#: How much slower a run was with four notebooks sharing one GPU than alone: ``(low, central, high)``. 1: no
#: contention (host-bound); 4: the GPU the bottleneck, shared four ways. The central 2 is what the GPU benchmark's
#: alone step rates say of a transformer's step (benchmarks/medium_gpu/README.md: TLM's stage-1 step ~2.2x); a kind
#: of run may set its own central factor (:attr:`RunCost.contention`: the LSTMs' shared step matched their alone
#: rate, 1x).
CONTENTION = (1.0, 2.0, 4.0)

_PROGRESS = re.compile(r"^\[(\d+)/(\d+) \| ([^|\]]+) \| ETA [^\]]*\] (.*?)(?:: .*)?$")


@dataclass(frozen=True)
class RunCost:
    """The seconds one kind of run costs: ``fixed + per_step * steps``, and ``first`` more for a new program.

    ``contention``: how much slower these seconds were than the run alone (central; the range is :data:`CONTENTION`'s).
    """

    fixed: float
    per_step: float
    first: float = 0.0
    contention: float = CONTENTION[1]

    def seconds(self, steps: float, new: float = 0.0) -> float:
        """A run of ``steps`` planned steps; ``new`` of its programs (a share, 0-1) compiled for it."""
        return self.fixed + self.per_step * steps + self.first * new


@dataclass(frozen=True)
class PlanCost:
    """A plan's seconds, part by part (:func:`plan_cost`); ``alone``: each run's seconds / its kind's ``contention``."""

    runs: int
    steps_planned: int
    fixed: float
    steps: float
    first: float
    alone: float

    @property
    def total(self) -> float:
        """Every part: the plan's seconds."""
        return self.fixed + self.steps + self.first


def fit(steps, seconds, first=None) -> RunCost:
    """``fixed`` and ``per_step`` (least squares, both >= 0) from the runs that compiled nothing, then ``first``.

    ``first``: per run, True where it first needed a program (its excess over the line is ``first``); None: none
    compiled. One distinct step count among the plain runs: ``per_step`` 0, ``fixed`` their mean. ValueError: no plain
    run, or lengths differ.

    Example:
        >>> c = fit([100, 100, 200, 200], [13.0, 3.0, 4.0, 4.0], first=[True, False, False, False])
        >>> round(c.fixed, 2), round(c.per_step, 3), round(c.first, 2)
        (2.0, 0.01, 10.0)
    """
    steps, seconds = np.asarray(steps, dtype=float), np.asarray(seconds, dtype=float)
    new = np.zeros(len(steps), bool) if first is None else np.asarray(first, dtype=bool)
    if not (len(steps) == len(seconds) == len(new)):
        raise ValueError(f"fit got {len(steps)} steps, {len(seconds)} seconds and {len(new)} first flags; one each.")
    plain = ~new
    if not plain.any():
        raise ValueError("fit needs at least one run that compiled nothing (first=False) to set the line.")
    x, y = steps[plain], seconds[plain]
    if len(set(x)) < 2:
        a, b = float(y.mean()), 0.0
    else:
        a, b = np.linalg.lstsq(np.c_[np.ones_like(x), x], y, rcond=None)[0]
        if a < 0 or b < 0:  # one cost explains it all: keep the one that fits
            a, b = (0.0, float(y.sum() / x.sum())) if a < 0 else (float(y.mean()), 0.0)
    excess = seconds[new] - (a + b * steps[new])
    return RunCost(float(a), float(b), float(max(excess.mean(), 0.0)) if new.any() else 0.0)


def _seconds_of(text: str) -> int:
    """``'42s'``, ``'3m05s'``, ``'1h02m'`` (:func:`kit.train.sweep.format_seconds`) as seconds."""
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text.strip())
    if not m or not any(m.groups()):
        raise ValueError(f"not a sweep's duration: {text!r} (expected e.g. '42s', '3m05s', '1h02m').")
    h, mi, s = (int(g) if g else 0 for g in m.groups())
    return 3600 * h + 60 * mi + s


def read_progress(lines: Iterable[str]) -> list[dict]:
    """Each finished run in a sweep's progress lines (a notebook's output): its keys (strings), ``seconds``, in order.

    Lines are :meth:`kit.train.Sweep.pending`'s ``[i/N | elapsed | ETA eta] key=value, ...: metrics`` (others skipped);
    seconds are differences of whole-second elapsed times, good to about a second.

    Example:
        >>> read_progress(["[1/3 | 5s | ETA 10s] model=a, seed=1: test_accuracy 0.6", "other",
        ...                "[2/3 | 1m02s | ETA 5s] model=a, seed=2: test_accuracy 0.6"])
        [{'model': 'a', 'seed': '1', 'seconds': 5}, {'model': 'a', 'seed': '2', 'seconds': 57}]
    """
    out, before = [], 0
    for line in lines:
        m = _PROGRESS.match(line.strip())
        if not m:
            continue
        elapsed = _seconds_of(m.group(3))
        keys = dict(kv.split("=", 1) for kv in m.group(4).split(", ") if "=" in kv)
        out.append({**keys, "seconds": elapsed - before})
        before = elapsed
    return out


def plan_cost(plan, costs: dict, kind: Callable, programs: Callable | None = None) -> PlanCost:
    """A plan's seconds: every run's fixed cost and steps, and a compile for each program first needed.

    ``plan``: runs with planned ``steps``; ``costs``: ``{kind: RunCost}`` or ``(fixed, per_step, first[, contention])``;
    ``kind(run)``: a key of ``costs`` (KeyError names a run without); ``programs(run)``: hashables it needs (shape,
    head, phase), paying ``first`` times the share new (None: one per kind).
    """
    programs = programs or (lambda run: (kind(run),))
    seen: set = set()
    fixed = steps = first = solo = 0.0
    planned = runs = 0
    for run in plan:
        k = kind(run)
        if k not in costs:
            raise KeyError(f"no cost for runs of kind {k!r} (run {run}); the costs name {sorted(map(str, costs))}.")
        c = costs[k] if isinstance(costs[k], RunCost) else RunCost(*costs[k])
        needed = tuple(programs(run))
        new = [p for p in needed if p not in seen]
        seen.update(needed)
        share = len(new) / len(needed) if needed else 0.0
        fixed, steps, first = fixed + c.fixed, steps + c.per_step * run["steps"], first + c.first * share
        solo += c.seconds(run["steps"], share) / c.contention
        planned, runs = planned + int(run["steps"]), runs + 1
    return PlanCost(runs, planned, fixed, steps, first, solo)


def alone(seconds: float, contention=CONTENTION) -> tuple:
    """Seconds measured with four notebooks sharing the GPU as alone: ``seconds / c`` per ``c`` in ``contention``.

    Default :data:`CONTENTION`: ``(slowest, central, fastest)`` alone.

    Example:
        >>> alone(1200.0)
        (1200.0, 600.0, 300.0)
    """
    return tuple(seconds / c for c in contention)
