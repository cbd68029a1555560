"""Verdicts that count every source of noise, the seeds and the test examples, with Holm across a table.

Each ``a - b`` gets an interval from the seeds' spread (Welch's t) and the test set's (normal),
:mod:`kit.analysis.noise` (covers the truth in >= 95% of simulated draws at 2-5 seeds, docs/statistics.md); ``p``: the
level where it touches 0. :func:`verdict_table` applies :func:`holm`, adds ``detectable`` (80% power at ``alpha / m``)
and a :func:`verdict`. A metric that is not a mean over examples (F1, Pearson's r) takes predictions, ``labels``,
``score``.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a = {s: (rng.random(500) < 0.9).astype(float) for s in range(3)}   # 3 seeds, 500 test examples, ~90% right
>>> b = {s: (rng.random(500) < 0.6).astype(float) for s in range(3)}
>>> c = compare_arms(a, b, "a vs b")
>>> round(c.delta, 2), c.seeds, c.examples, c.low > 0.2, c.p < 0.001
(0.28, (3, 3), (500, 500), True, True)
>>> table = verdict_table([c, ("a vs itself", a, a)])
>>> list(table["verdict"])
['found', 'noise']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

import numpy as np

from .bootstrap import bootstrap_p, two_level_bootstrap
from .noise import GROUPS, POWER, Noise, pseudo_values
from .spread import ALPHA, welch

#: How many draws the diagnostic two-level bootstrap takes when asked (``resamples=RESAMPLES``).
RESAMPLES = 4000
FOUND, NOISE, NEEDS_CONTROL = "found", "noise", "needs a budget-matched control"
RECIPE = "found (recipe comparison)"
FEW_SEEDS, FEW_EXAMPLES = "too few seeds to tell", "too few test examples to tell"
NO_VARIATION = "no variation"
#: Budgets (steps, epochs, ...) further apart than this share of the larger are different budgets.
BUDGET_TOLERANCE = 0.1
#: The columns a person reads first (:func:`kit.analysis.verdict_html` shows them; the rest are folded).
MAIN_COLUMNS = ("comparison", "delta", "low", "high", "p_holm", "detectable", "verdict")
#: Every column of :func:`verdict_table`, in order.
COLUMNS = MAIN_COLUMNS + (
    "effect", "p", "se", "se_seeds", "se_examples", "df_seeds", "seeds_a", "seeds_b", "examples_a", "examples_b",
    "paired", "design", "budget_a", "budget_b", "p_welch", "p_welch_holm", "p_boot", "p_boot_holm", "why", "note",
)  # fmt: skip
#: The columns in the table's unit (multiplied by ``scale``).
SCALED = ("delta", "low", "high", "detectable", "effect", "se", "se_seeds", "se_examples")
_NAN = float("nan")


@dataclass(frozen=True)
class Comparison:
    """``a - b`` tested against the noise of the seeds and of the test examples (before Holm's correction).

    ``delta``: ``score(a) - score(b)``, each the mean over seeds of the whole test set's score; ``se`` is
    ``sqrt(se_seeds^2 + se_examples^2)`` (Welch's over the seeds; the test set's part the seeds do not average away);
    ``low``/``high``: ``delta -/+ sqrt(t^2 se_seeds^2 + z^2 se_examples^2)`` (``t`` at ``df_seeds``) at ``level``;
    ``p``: where that interval touches 0. ``seeds``, ``examples``: ``(a's, b's)``. Diagnostics: ``p_welch`` (the seeds
    alone), ``p_boot`` (two-level bootstrap; NaN unless ``resamples``). ``effect``: the paper's, in the arms' unit (NaN:
    none). ``budget_a``/``budget_b``: what each arm trained (``{"steps": 1200, "epochs": 3}``) or None.
    """

    name: str
    delta: float
    se: float
    low: float
    high: float
    p: float
    se_seeds: float
    se_examples: float
    df_seeds: float
    seeds: tuple
    examples: tuple
    paired: bool = True
    p_welch: float = _NAN
    p_boot: float = _NAN
    effect: float = _NAN
    budget_a: Mapping | None = None
    budget_b: Mapping | None = None
    budget_matched: bool = True
    recipe: bool = False
    note: str = ""
    level: float = 1 - ALPHA

    @property
    def noise(self) -> Noise:
        """The comparison's :class:`~kit.analysis.noise.Noise` (its variance parts)."""
        return Noise(self.delta, self.se_seeds**2, self.se_examples**2, self.df_seeds)

    @property
    def degenerate(self) -> bool:
        """Both arms give the same score on every seed and example: nothing varies, nothing to test."""
        return self.se == 0 and self.delta == 0

    def detectable(self, alpha: float = ALPHA, power: float = POWER) -> float:
        """Smallest difference (arms' unit) found with ``power`` at two-sided ``alpha`` (a table's: ``alpha / m``)."""
        return self.noise.detectable(alpha, power)


@dataclass(frozen=True)
class _Options:
    """:func:`compare_arms`' keyword options beyond the arms and the test set (see its docstring)."""

    level: float = 1 - ALPHA
    resamples: int = 0
    groups: int = GROUPS
    budget_matched: bool = True
    budget_a: Mapping | None = None
    budget_b: Mapping | None = None
    budget_tolerance: float = BUDGET_TOLERANCE
    recipe: bool = False
    effect: float | None = None
    note: str = ""


def _options(options: dict) -> _Options:
    """:func:`compare_arms`' ``**options`` checked, with a clear error for a name it does not know."""
    known = {f.name for f in fields(_Options)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"compare_arms got unknown option(s) {unknown}; it takes {sorted(known)}.")
    return _Options(**options)


def _arm(x, which: str) -> tuple[list, np.ndarray]:
    """``(seed ids, scores stacked (seeds, examples, ...))`` of an arm given as ``{seed: scores}`` or an array."""
    if isinstance(x, Mapping):
        keys = sorted(x, key=str)
        rows = [np.asarray(x[k]) for k in keys]
    elif isinstance(x, (list, tuple)) and len(x) and np.ndim(x[0]) >= 1:
        keys, rows = list(range(len(x))), [np.asarray(r) for r in x]
    else:
        arr = np.asarray(x)
        rows = list(arr) if arr.ndim >= 2 else [arr] if arr.size else []
        keys = list(range(len(rows)))
    if len(rows) < 2:
        raise ValueError(
            f"arm {which} has {len(rows)} seed(s); a verdict needs at least 2 seeds per arm (the spread over seeds "
            "is part of the noise): run more seeds and pass {seed: per-example scores}."
        )
    sizes = sorted({len(r) for r in rows})
    if len(sizes) > 1 or sizes[0] < 2:
        raise ValueError(
            f"arm {which}'s seeds hold {sizes} test examples; every seed must be scored on the same, non-empty "
            "test set of at least 2 examples (one score or prediction per test example: the test set's noise is "
            "part of the verdict)."
        )
    stacked = np.stack(rows)
    if stacked.dtype.kind in "fc" and not np.all(np.isfinite(stacked)):
        raise ValueError(f"arm {which} holds NaN or infinite scores; score every test example.")
    return keys, stacked


def _check_arms(a: np.ndarray, b: np.ndarray, paired: bool, labels, score) -> None:
    """Raise a ValueError naming the problem and its fix where ``a`` and ``b`` cannot be compared as asked."""
    if paired and a.shape[1] != b.shape[1]:
        raise ValueError(
            f"a paired comparison needs both arms scored on the same test examples; got {a.shape[1]} and "
            f"{b.shape[1]}. Score both on the same test set, or pass paired=False if their test sets differ."
        )
    if score is None and (a.ndim != 2 or b.ndim != 2):
        raise ValueError(
            f"per-example scores are one number per seed and test example; got shapes {a.shape} and {b.shape}. "
            "For predictions, pass score=metric(predictions, labels) and labels=..."
        )
    if score is not None and (labels is None or not paired):
        raise ValueError(
            "a score function needs the shared test labels (labels=...) and paired=True: both arms' predictions "
            "are on the same test examples. Otherwise pass per-example scores."
        )
    if labels is not None and len(labels) != a.shape[1]:
        raise ValueError(f"{len(labels)} labels for {a.shape[1]} test examples; pass the test set's labels.")


def _budgets_differ(a: Mapping | None, b: Mapping | None, tolerance: float) -> bool:
    """Whether two arms' budgets (``{"steps": ..., "epochs": ...}``) differ by more than ``tolerance`` anywhere."""
    if a is None and b is None:
        return False
    if a is None or b is None:
        raise ValueError("pass both arms' budgets (budget_a and budget_b), or neither.")
    shared = [k for k in a if k in b]
    if not shared:
        raise ValueError(
            f"budget_a names {sorted(a)} and budget_b {sorted(b)}: nothing to compare; give both the same "
            "quantities (e.g. steps and epochs each arm actually trained)."
        )
    for k in shared:
        x, y = float(a[k]), float(b[k])
        if not (math.isfinite(x) and math.isfinite(y)) or min(x, y) < 0:
            raise ValueError(f"budget {k!r} must be a finite count >= 0; got {a[k]!r} and {b[k]!r}.")
        if abs(x - y) > tolerance * max(x, y):
            return True
    return False


def _seed_scores(x: np.ndarray, labels, score, groups: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each seed's score on the whole test set and its per-example values (scores, or pseudo-values)."""
    if score is None:
        x = x.astype(float)
        return x.mean(axis=1), x
    return pseudo_values(x, labels, score, groups, seed)


def _diagnostic_p_boot(xa, xb, same_seeds: bool, labels, score, resamples: int, seed: int, paired: bool) -> float:
    """The two-level bootstrap's p (NaN where ``resamples`` is 0): a diagnostic beside the verdict."""
    if not resamples:
        return _NAN
    draws = two_level_bootstrap(
        xa, xb, paired=paired, same_seeds=same_seeds, labels=labels, score=score, resamples=resamples, seed=seed
    )
    return bootstrap_p(draws)


def compare_arms(
    a, b, name: str = "a - b", *, paired: bool = True, labels=None, score: Callable | None = None, seed: int = 0,
    **options,
) -> Comparison:  # fmt: skip
    """Test ``a - b`` against the seeds' and the test examples' noise (:mod:`kit.analysis.noise`).

    ``a``, ``b``: per-example scores, ``{seed: scores}`` or ``(seeds, examples)``; with
    ``score(predictions, labels) -> float`` (a metric that is not a mean over examples: F1, Pearson's r), per-example
    predictions and the shared ``labels``. ``paired=False``: arms scored on different test sets. ``seed``: the
    jackknife's and bootstrap's.

    Options: ``effect`` (the paper's, in the arms' unit: a noise row that could not detect it reads "too few seeds/test
    examples to tell"); ``budget_a``/``budget_b`` (what each arm trained, e.g. ``{"steps": 1200, "epochs": 3}``; further
    apart than ``budget_tolerance``, 0.1 of the larger, on a shared quantity: unmatched); ``budget_matched=False``;
    ``recipe=True`` (whole recipes: "found (recipe comparison)", not flagged); ``note``; ``level`` (0.95); ``groups``
    (the jackknife's most, :data:`~kit.analysis.noise.GROUPS`); ``resamples`` (a diagnostic bootstrap's draws).

    Raises:
        ValueError: an arm with under 2 seeds or test examples, seeds scored on different numbers of examples,
            non-finite scores; paired arms on different test sets; ``score`` without ``labels``; one budget without
            the other, or nothing in common.
        TypeError: an option it does not know.

    Example:
        >>> c = compare_arms({0: [1, 1, 0, 1], 1: [1, 0, 1, 1]}, {0: [0, 1, 0, 1], 1: [1, 0, 0, 1]})
        >>> c.delta, c.seeds, c.examples, c.p > 0.05, c.low < 0 < c.high
        (0.25, (2, 2), (4, 4), True, True)
    """
    o = _options(options)
    (keys_a, xa), (keys_b, xb) = _arm(a, "a"), _arm(b, "b")
    labels = None if labels is None else np.asarray(labels)
    _check_arms(xa, xb, paired, labels, score)
    (fa, va), (fb, vb) = (_seed_scores(x, labels, score, o.groups, seed) for x in (xa, xb))
    n = Noise.of(fa, va, fb, vb, paired)
    w = welch(fa.mean(), _se(fa), len(fa), fb.mean(), _se(fb), len(fb))
    p_boot = _diagnostic_p_boot(xa, xb, paired and keys_a == keys_b, labels, score, o.resamples, seed, paired)
    matched = bool(o.budget_matched) and not _budgets_differ(o.budget_a, o.budget_b, o.budget_tolerance)
    low, high = n.interval(o.level)
    return Comparison(
        name, n.delta, n.se, low, high, n.p(), math.sqrt(n.var_seeds), math.sqrt(n.var_examples), n.df_seeds,
        (len(fa), len(fb)), (xa.shape[1], xb.shape[1]), paired, float(w.p) if np.isfinite(w.p) else 1.0, p_boot,
        _NAN if o.effect is None else float(o.effect), o.budget_a, o.budget_b, matched, bool(o.recipe), o.note,
        o.level,
    )  # fmt: skip


def _se(scores: np.ndarray) -> float:
    """The standard error of the mean over seeds."""
    return float(scores.std(ddof=1) / math.sqrt(len(scores)))


def holm(p_values) -> np.ndarray:
    """Holm's step-down correction of p-values, returned in their order (controls any false finding at alpha).

    Sorted ascending, the ``i``-th smallest of ``m`` (from 0) is multiplied by ``m - i``, raised to the largest before
    it and capped at 1. Raises ValueError for a p-value that is NaN or outside [0, 1].

    Example:
        >>> holm([0.01, 0.04, 0.03, 0.005]).round(3).tolist()      # x3, x1 -> 0.06, x2, x4
        [0.03, 0.06, 0.06, 0.02]
    """
    p = np.asarray(p_values, dtype=float).reshape(-1)
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError(f"Holm's correction needs p-values in [0, 1]; got {p.tolist()}.")
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def verdict(
    p_holm: float, alpha: float = ALPHA, *, budget_matched: bool = True, recipe: bool = False,
    detectable: float = _NAN, effect: float = _NAN, seeds_limit: bool = True,
) -> str:  # fmt: skip
    """A row's verdict from its corrected p-value, its budgets and what it could have found.

    ``p_holm`` NaN: nothing varied ("no variation"). ``budget_matched=False``: the arms trained for different budgets;
    ``recipe``: whole recipes (not flagged for budgets). Not found and ``detectable`` above the paper's ``effect``: "too
    few seeds to tell" if ``seeds_limit`` (the seeds' part is most of it), else "too few test examples to tell"; else
    "noise".

    Example:
        >>> verdict(0.01), verdict(0.2), verdict(0.01, budget_matched=False), verdict(0.01, recipe=True)
        ('found', 'noise', 'needs a budget-matched control', 'found (recipe comparison)')
        >>> verdict(0.2, detectable=5.0, effect=3.0), verdict(0.2, detectable=2.0, effect=3.0)
        ('too few seeds to tell', 'noise')
    """
    if not np.isfinite(p_holm):
        return NO_VARIATION
    if p_holm < alpha:
        return RECIPE if recipe else FOUND if budget_matched else NEEDS_CONTROL
    if np.isfinite(effect) and detectable > abs(effect):
        return FEW_SEEDS if seeds_limit else FEW_EXAMPLES
    return NOISE


def _as_comparison(item, options: dict) -> Comparison:
    """A :class:`Comparison` from one, from ``(name, a, b[, {options}])`` or from ``{"name", "a", "b", ...}``."""
    if isinstance(item, Comparison):
        return item
    if isinstance(item, Mapping):
        return compare_arms(**{**options, **item})
    if isinstance(item, (list, tuple)) and len(item) in (3, 4):
        extra = item[3] if len(item) == 4 else {}
        return compare_arms(item[1], item[2], item[0], **{**options, **extra})
    raise ValueError(
        f"verdict_table takes Comparisons, (name, a, b[, options]) tuples or dicts with name, a and b; got "
        f"{type(item).__name__}."
    )


def _budget_text(budget: Mapping | None) -> str:
    """``"1,200 steps, 3 epochs"`` (empty where no budget was given)."""
    if not budget:
        return ""
    return ", ".join(f"{v:,.6g} {k}" if isinstance(v, (int, float)) else f"{v} {k}" for k, v in budget.items())


def _design(r: Comparison) -> str:
    """How the arms' budgets compare: a recipe comparison, different budgets, matched, or not given."""
    if r.recipe:
        return "recipe comparison"
    if not r.budget_matched:
        return "budgets differ"
    return "budget-matched" if r.budget_a is not None else "budgets not given"


def _why(r: Comparison, label: str, detectable: float, alpha_row: float, scale: float) -> str:
    """One sentence: why the row reads as it does."""
    could = f"could find ±{detectable * scale:.3g} (80% power at alpha {alpha_row:.2g})"
    effect = f"{r.effect * scale:+.3g}"
    budgets = f"a trained {_budget_text(r.budget_a)}, b {_budget_text(r.budget_b)}" if r.budget_a else ""
    if label == NO_VARIATION:
        return "both arms score the same on every seed and test example: nothing to test (not counted by Holm)"
    if label in (FEW_SEEDS, FEW_EXAMPLES):
        part = "the seeds' spread" if label == FEW_SEEDS else "the test set's noise"
        return f"{could}; the paper's effect is {effect}; {part} is most of it"
    if label == NEEDS_CONTROL:
        return f"budgets differ ({budgets or 'declared budget_matched=False'}): run a budget-matched control"
    if label == RECIPE:
        return f"whole recipes compared, each with its own budget{f' ({budgets})' if budgets else ''}"
    if label == NOISE:
        alone = f"the interval excludes 0 alone (p {r.p:.2g}), not after Holm's correction; " * (r.p < 1 - r.level)
        paper = f"; the paper's effect {effect} was within reach" if np.isfinite(r.effect) else ""
        return alone + could + paper
    return f"the interval excludes 0 after Holm's correction; {could}"


def _holm_or_nan(p: list[float]) -> np.ndarray:
    """Holm over the finite p-values; NaN where a p is NaN (not tested)."""
    p = np.asarray(p, dtype=float)
    out = np.full(len(p), _NAN)
    ok = np.isfinite(p)
    if ok.any():
        out[ok] = holm(p[ok])
    return out


def _record(r: Comparison, corrected: tuple, alpha: float, alpha_row: float, scale: float) -> dict:
    """One row of the table: the comparison, its corrected p-values ``(p, Welch's, the bootstrap's)`` and verdict."""
    ph, pw, pb = corrected
    mdd = _NAN if r.degenerate else r.detectable(alpha_row)
    limit = r.noise.seeds_limit(alpha_row) if not r.degenerate else True
    label = verdict(
        ph, alpha, budget_matched=r.budget_matched, recipe=r.recipe, detectable=mdd, effect=r.effect, seeds_limit=limit
    )
    return dict(
        comparison=r.name, delta=r.delta, low=r.low, high=r.high, p_holm=ph, detectable=mdd, verdict=label,
        effect=r.effect, p=r.p, se=r.se, se_seeds=r.se_seeds, se_examples=r.se_examples, df_seeds=r.df_seeds,
        seeds_a=r.seeds[0], seeds_b=r.seeds[1], examples_a=r.examples[0], examples_b=r.examples[1], paired=r.paired,
        design=_design(r), budget_a=_budget_text(r.budget_a), budget_b=_budget_text(r.budget_b), p_welch=r.p_welch,
        p_welch_holm=pw, p_boot=r.p_boot, p_boot_holm=pb, why=_why(r, label, mdd, alpha_row, scale), note=r.note,
    )  # fmt: skip


def verdict_table(comparisons, alpha: float = ALPHA, scale: float = 1.0, **options):
    """A notebook's verdict table: every comparison's interval and test, Holm across the table, and its verdict.

    ``comparisons``: :class:`Comparison` objects, ``(name, a, b[, {options}])`` tuples, or dicts of
    :func:`compare_arms`' arguments; ``**options`` are :func:`compare_arms`' for tuples and dicts. ``scale`` multiplies
    :data:`SCALED` (100: accuracy in points). A pandas DataFrame, a row per comparison, columns :data:`COLUMNS`
    (:data:`MAIN_COLUMNS` first; ``detectable``: 80% power at Holm's strictest ``alpha / m``); ``attrs``: ``alpha``,
    ``scale``, ``level``, ``power``, ``tested`` (``m``), ``alpha_row``. Show it with :func:`kit.analysis.show_verdicts`.
    ValueError: no comparisons, or one that :func:`compare_arms` refuses.

    Example:
        >>> t = verdict_table([("x", [[1, 0, 1, 1], [1, 1, 0, 1]], [[0, 0, 1, 0], [1, 0, 0, 0]])])
        >>> t.loc[0, ["comparison", "delta", "seeds_a", "examples_a", "verdict"]].astype(str).tolist()
        ['x', '0.5', '2', '4', 'noise']
    """
    import pandas as pd

    rows = [_as_comparison(c, options) for c in comparisons]
    if not rows:
        raise ValueError("verdict_table got no comparisons; pass at least one (name, a, b).")
    p_holm = _holm_or_nan([_NAN if r.degenerate else r.p for r in rows])
    tested = sum(not r.degenerate for r in rows)
    alpha_row = alpha / max(tested, 1)
    welch_holm, boot_holm = _holm_or_nan([r.p_welch for r in rows]), _holm_or_nan([r.p_boot for r in rows])
    records = [
        _record(r, (ph, pw, pb), alpha, alpha_row, scale) for r, ph, pw, pb in zip(rows, p_holm, welch_holm, boot_holm)
    ]
    frame = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    for c in SCALED:
        frame[c] = frame[c] * scale
    frame.attrs.update(alpha=alpha, scale=scale, level=rows[0].level, power=POWER, tested=tested, alpha_row=alpha_row)
    return frame


def detectable_at(table, seeds: int, examples: int, power: float = POWER):
    """Each row's smallest detectable difference with ``seeds`` seeds per arm and ``examples`` test examples (a Series).

    An estimate, not a measurement: the run's seeds' variance is scaled by its seeds / ``seeds`` (df as two arms of
    ``seeds``), the test set's by examples / ``examples``, at the table's level (``alpha / m``); table's unit, NaN for
    rows with no variation. E.g. what medium's 5 seeds and whole test sets could find, if seeds spread as in this run.

    Example:
        >>> t = verdict_table([("x", [[1, 0, 1, 1] * 50, [1, 1, 0, 1] * 50], [[0, 0, 1, 0] * 50, [1, 0, 0, 0] * 50])])
        >>> bool(detectable_at(t, seeds=8, examples=2000)[0] < t.detectable[0])
        True
    """
    alpha = table.attrs.get("alpha_row", ALPHA)
    run_seeds = (table.seeds_a + table.seeds_b) / 2
    var_seeds = table.se_seeds**2 * run_seeds / seeds
    var_examples = table.se_examples**2 * (table.examples_a + table.examples_b) / 2 / examples
    found = [Noise(0.0, vs, ve, 2 * (seeds - 1)).detectable(alpha, power) for vs, ve in zip(var_seeds, var_examples)]
    return type(table.delta)(found, index=table.index).where(table.verdict != NO_VARIATION)
