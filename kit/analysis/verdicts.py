"""Verdicts that count every source of noise: the seeds and the test examples together, Holm across a table.

Welch's t over seeds (:func:`kit.analysis.welch`) counts how much a score moves from seed to seed, but every seed
is scored on the *same* few hundred test examples: another draw of test examples could move both settings. A
verdict here needs two tests to agree:

- **a two-level bootstrap** over both sources of noise. Each of ``resamples`` draws takes the seeds with
  replacement (whole seeds, as blocks) and, independently, the test examples with replacement, and recomputes
  ``delta* = mean over the drawn seeds s of [mean over the drawn examples e of score(s, e)]`` for each arm. Where
  both arms were scored on the same test examples (``paired``), one draw of examples serves both; where they share
  their seed ids, one draw of seeds serves both. Because every seed is scored on the same examples (seeds and
  examples are crossed, not nested), this is Owen's (2007) "pigeonhole" bootstrap: its variance is mildly
  conservative. ``se`` is the standard deviation of the ``delta*``, the interval their percentiles, and
  ``p = min(1, 2 (1 + #{delta* on the far side of 0}) / (resamples + 1))``.
- **Welch's t** over the seeds' scores (``t``, ``df``, ``p_welch``): with 2-3 seeds the bootstrap's draw of seeds
  is coarse, and Welch's t-distribution charges the small number of seeds properly.

:func:`verdict_table` corrects each test's p-values for the number of comparisons in the table (Holm's step-down,
:func:`holm`) and calls a difference ``"found"`` only when both corrected p-values are below ``alpha``; a
comparison whose arms had different budgets (steps, epochs, data) without a budget-matched control is at most
``"needs a budget-matched control"``.

Per-example scores: for a metric that is a mean over test examples (accuracy: 1/0 per example; token accuracy
per sentence only when sentences are equally long) pass the per-example scores, ``(seeds, examples)`` or
``{seed: scores}``. For one that is not (F1, Pearson's r), pass the per-example predictions with ``labels`` and
``score(predictions, labels) -> float``: the bootstrap then recomputes the metric on every draw (a Python loop,
slower).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> a = {s: (rng.random(500) < 0.9).astype(float) for s in range(3)}   # 3 seeds, 500 test examples, ~90% right
>>> b = {s: (rng.random(500) < 0.6).astype(float) for s in range(3)}
>>> c = compare_arms(a, b, "a vs b")
>>> round(c.delta, 2), c.seeds, c.examples, c.p_boot < 0.01, c.p_welch < 0.01
(0.28, (3, 3), (500, 500), True, True)
>>> table = verdict_table([c, ("a vs itself", a, a)])
>>> list(table["verdict"])
['found', 'noise']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from .spread import ALPHA, welch

#: How many bootstrap draws a comparison takes: its smallest p-value is 2 / (RESAMPLES + 1), small enough for Holm.
RESAMPLES = 4000
FOUND, NOISE, NEEDS_CONTROL = "found", "noise", "needs a budget-matched control"
#: The columns of :func:`verdict_table`, in order.
COLUMNS = (
    "comparison", "delta", "se", "t", "df", "low", "high", "p_welch", "p_welch_holm", "p_boot", "p_boot_holm",
    "seeds_a", "seeds_b", "examples_a", "examples_b", "verdict", "note",
)  # fmt: skip
_P_COLUMNS = ("p_welch", "p_welch_holm", "p_boot", "p_boot_holm")
_CELLS = 2_000_000  # the most example weights one chunk of draws holds (16 MB)


@dataclass(frozen=True)
class Comparison:
    """``a - b`` tested against the noise of the seeds and of the test examples (before Holm's correction).

    Attributes:
        name: the comparison, as the table shows it.
        delta: ``score(a) - score(b)``, each arm's score the mean over its seeds of the score on the whole test set.
        se: the standard deviation of the bootstrap's differences (seeds and test examples together).
        t: Welch's t over the seeds' scores (counts the seeds only).
        df: its Welch-Satterthwaite degrees of freedom.
        p_welch: Welch's two-sided p-value.
        low: the bootstrap's percentile interval, lower end.
        high: its upper end.
        p_boot: the bootstrap's two-sided p-value.
        seeds: ``(seeds of a, seeds of b)``.
        examples: ``(test examples of a, of b)``.
        paired: whether both arms were scored on the same test examples (one draw of examples serves both).
        budget_matched: False where the arms had different budgets and no budget-matched control.
        note: free text for the table's last column.
        level: the interval's confidence level.
    """

    name: str
    delta: float
    se: float
    t: float
    df: float
    p_welch: float
    low: float
    high: float
    p_boot: float
    seeds: tuple
    examples: tuple
    paired: bool = True
    budget_matched: bool = True
    note: str = ""
    level: float = 1 - ALPHA


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
    if len(sizes) > 1 or not sizes[0]:
        raise ValueError(
            f"arm {which}'s seeds hold {sizes} test examples; every seed must be scored on the same, non-empty "
            "test set (one score or prediction per test example)."
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


def _counts(rng: np.random.Generator, draws: int, n: int) -> np.ndarray:
    """``(draws, n)``: how often each of ``n`` items is picked in each of ``draws`` draws of ``n`` with replacement."""
    picks = rng.integers(0, n, (draws, n)) + n * np.arange(draws)[:, None]
    return np.bincount(picks.ravel(), minlength=draws * n).reshape(draws, n).astype(float)


def _bootstrap_means(a, b, paired: bool, same_seeds: bool, resamples: int, rng) -> np.ndarray:
    """The two-level bootstrap's ``delta*`` of per-example scores, vectorised in chunks of draws."""
    (sa, na), (sb, nb) = a.shape, b.shape
    chunk, out = max(1, _CELLS // max(na, nb)), []
    for start in range(0, resamples, chunk):
        m = min(chunk, resamples - start)
        wa = _counts(rng, m, na)
        wb = wa if paired else _counts(rng, m, nb)
        ca = _counts(rng, m, sa)
        cb = ca if same_seeds else _counts(rng, m, sb)
        out.append(((wa @ a.T) * ca).sum(1) / (sa * na) - ((wb @ b.T) * cb).sum(1) / (sb * nb))
    return np.concatenate(out)


def _drawn_score(pred, rows, cols, y, score: Callable) -> float:
    """The mean over the drawn seeds ``rows`` of ``score`` on the drawn examples ``cols``."""
    seeds, times = np.unique(rows, return_counts=True)
    return sum(k * float(score(pred[s][cols], y)) for s, k in zip(seeds, times)) / len(rows)


def _bootstrap_scores(a, b, labels, score: Callable, same_seeds: bool, resamples: int, rng) -> np.ndarray:
    """The two-level bootstrap's ``delta*`` of a metric recomputed on every draw (examples shared by both arms)."""
    n, out = a.shape[1], np.empty(resamples)
    for i in range(resamples):
        cols = rng.integers(0, n, n)
        rows_a = rng.integers(0, len(a), len(a))
        rows_b = rows_a if same_seeds else rng.integers(0, len(b), len(b))
        y = labels[cols]
        out[i] = _drawn_score(a, rows_a, cols, y, score) - _drawn_score(b, rows_b, cols, y, score)
    return out


def _bootstrap(a, b, paired: bool, same_seeds: bool, labels, score, resamples: int, seed: int) -> np.ndarray:
    """The two-level bootstrap's ``resamples`` differences ``delta*``, drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    if score is None:
        return _bootstrap_means(a.astype(float), b.astype(float), paired, same_seeds, resamples, rng)
    return _bootstrap_scores(a, b, labels, score, same_seeds, resamples, rng)


def _two_sided_p(deltas: np.ndarray) -> float:
    """Twice the share of draws on the far side of 0, counted as ``(1 + k) / (draws + 1)``; 1 when all are 0."""
    if np.all(deltas == 0):
        return 1.0
    far = min(np.count_nonzero(deltas <= 0), np.count_nonzero(deltas >= 0))
    return float(min(1.0, 2 * (1 + far) / (len(deltas) + 1)))


def _se(scores: np.ndarray) -> float:
    """The standard error of the mean over seeds."""
    return float(scores.std(ddof=1) / math.sqrt(len(scores)))


def _seed_scores(x: np.ndarray, labels, score) -> np.ndarray:
    """Each seed's score on the whole test set."""
    return x.mean(axis=1) if score is None else np.array([float(score(r, labels)) for r in x])


def compare_arms(
    a,
    b,
    name: str = "a - b",
    *,
    paired: bool = True,
    labels=None,
    score: Callable | None = None,
    budget_matched: bool = True,
    note: str = "",
    resamples: int = RESAMPLES,
    seed: int = 0,
    level: float = 1 - ALPHA,
) -> Comparison:
    """Test ``a - b`` against the seeds' and the test examples' noise: a two-level bootstrap and Welch's t.

    Args:
        a: one arm's per-example scores, ``{seed: scores}`` (one per test example) or ``(seeds, examples)``; with
            ``score``, its per-example predictions, ``{seed: predictions}`` or ``(seeds, examples, ...)``.
        b: the arm it is compared with, in the same form. Arms with the same seed ids share one draw of seeds.
        name: the comparison's name in the table.
        paired: both arms were scored on the same test examples, in the same order (one draw of examples serves
            both); False for arms scored on different test sets.
        labels: the test labels ``score`` compares predictions with.
        score: ``score(predictions, labels) -> float`` for a metric that is not a mean over examples (F1,
            Pearson's r); None: the score is the mean of the per-example scores.
        budget_matched: False where the arms had different budgets (steps, epochs, data) and no control at an
            equal budget: the table then never calls the difference found.
        note: free text for the table.
        resamples: the bootstrap's draws.
        seed: the draws' seed (the same seed gives the same result).
        level: the interval's confidence level.

    Returns:
        The :class:`Comparison` (its p-values before the table's Holm correction).

    Raises:
        ValueError: an arm with fewer than 2 seeds, no test examples, seeds scored on different numbers of test
            examples or non-finite scores; paired arms with different test sets; ``score`` without ``labels``.

    Example:
        >>> c = compare_arms({0: [1, 1, 0, 1], 1: [1, 0, 1, 1]}, {0: [0, 1, 0, 1], 1: [1, 0, 0, 1]}, resamples=500)
        >>> c.delta, c.seeds, c.examples, c.p_boot > 0.05
        (0.25, (2, 2), (4, 4), True)
    """
    (keys_a, xa), (keys_b, xb) = _arm(a, "a"), _arm(b, "b")
    labels = None if labels is None else np.asarray(labels)
    _check_arms(xa, xb, paired, labels, score)
    sa, sb = _seed_scores(xa, labels, score), _seed_scores(xb, labels, score)
    w = welch(sa.mean(), _se(sa), len(sa), sb.mean(), _se(sb), len(sb))
    deltas = _bootstrap(xa, xb, paired, paired and keys_a == keys_b, labels, score, resamples, seed)
    low, high = np.quantile(deltas, [(1 - level) / 2, (1 + level) / 2])
    return Comparison(
        name, float(w.value), float(deltas.std(ddof=1)), float(w.t), float(w.df), float(w.p), float(low),
        float(high), _two_sided_p(deltas), (len(sa), len(sb)), (xa.shape[1], xb.shape[1]), paired,
        bool(budget_matched), note, level,
    )  # fmt: skip


def holm(p_values) -> np.ndarray:
    """Holm's step-down correction of a family of p-values (controls the chance of any false finding at alpha).

    Sorted ascending, the ``i``-th smallest of ``m`` p-values (``i`` from 0) is multiplied by ``m - i``; each
    adjusted value is then raised to the largest before it (so the order is kept) and capped at 1.

    Args:
        p_values: the family's p-values, in any order.

    Returns:
        The adjusted p-values, in the same order.

    Raises:
        ValueError: a p-value that is NaN or outside [0, 1].

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


def verdict(p_welch_holm: float, p_boot_holm: float, budget_matched: bool = True, alpha: float = ALPHA) -> str:
    """``"found"`` when both corrected p-values are below ``alpha``, else ``"noise"``; unmatched budgets: no finding.

    Args:
        p_welch_holm: Welch's p after Holm's correction.
        p_boot_holm: the bootstrap's p after Holm's correction.
        budget_matched: False where the arms had different budgets and no budget-matched control.
        alpha: the significance level.

    Returns:
        ``"found"``, ``"noise"`` or ``"needs a budget-matched control"`` (a difference that survives both tests
        between arms of different budgets).

    Example:
        >>> verdict(0.001, 0.002), verdict(0.001, 0.2), verdict(0.001, 0.002, budget_matched=False)
        ('found', 'noise', 'needs a budget-matched control')
    """
    if not (p_welch_holm < alpha and p_boot_holm < alpha):
        return NOISE
    return FOUND if budget_matched else NEEDS_CONTROL


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


def verdict_table(comparisons, alpha: float = ALPHA, scale: float = 1.0, **options):
    """A notebook's verdict table: every comparison's two tests, Holm-corrected across the table, and its verdict.

    Args:
        comparisons: :class:`Comparison` objects, ``(name, a, b)`` or ``(name, a, b, {options})`` tuples, or
            dicts of :func:`compare_arms`' arguments (``name``, ``a``, ``b``, ``budget_matched``, ``note``, ...).
        alpha: the significance level after Holm's correction.
        scale: multiplies ``delta``, ``se``, ``low`` and ``high`` (100: accuracy in points).
        **options: :func:`compare_arms`' keyword arguments for the comparisons given as tuples or dicts.

    Returns:
        A pandas DataFrame, one row per comparison, the columns :data:`COLUMNS`: ``delta``, ``se`` (the
        bootstrap's), ``t`` and ``df`` (Welch's over seeds), ``low`` and ``high`` (the bootstrap's interval), each
        test's ``p`` before and after Holm, ``seeds_a``/``seeds_b``, ``examples_a``/``examples_b``, ``verdict`` and
        ``note``. Print it whole with :func:`verdict_text`.

    Raises:
        ValueError: no comparisons, or one :func:`compare_arms` refuses.

    Example:
        >>> t = verdict_table([("x", [[1, 0, 1, 1], [1, 1, 0, 1]], [[0, 0, 1, 0], [1, 0, 0, 0]])], resamples=500)
        >>> t.loc[0, ["comparison", "delta", "seeds_a", "examples_a", "verdict"]].astype(str).tolist()
        ['x', '0.5', '2', '4', 'noise']
    """
    import pandas as pd

    rows = [_as_comparison(c, options) for c in comparisons]
    if not rows:
        raise ValueError("verdict_table got no comparisons; pass at least one (name, a, b).")
    welch_holm, boot_holm = holm([r.p_welch for r in rows]), holm([r.p_boot for r in rows])
    records = [
        (
            r.name,
            r.delta * scale,
            r.se * scale,
            r.t,
            r.df,
            r.low * scale,
            r.high * scale,
            r.p_welch,
            pw,
            r.p_boot,
            pb,
            *r.seeds,
            *r.examples,
            verdict(pw, pb, r.budget_matched, alpha),
            r.note,
        )  # fmt: skip
        for r, pw, pb in zip(rows, welch_holm, boot_holm)
    ]
    frame = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    frame.attrs.update(alpha=alpha, scale=scale, level=rows[0].level)
    return frame


def _p_text(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def verdict_text(frame, digits: int = 3) -> str:
    """The whole verdict table as text: every column, every comparison's full name, no width limit.

    Args:
        frame: :func:`verdict_table`'s table.
        digits: decimals of ``delta``, ``se``, ``low`` and ``high``.

    Returns:
        The table, one line per comparison, names left-aligned (``print`` it).

    Example:
        >>> t = verdict_table([("a rather long comparison name", [[1, 1, 0], [1, 0, 1]], [[1, 1, 0], [1, 0, 1]])])
        >>> print(verdict_text(t, digits=2))
        comparison                    delta   se    t  df  low high p_welch p_welch_holm p_boot ... verdict note
        a rather long comparison name  0.00 0.00 0.00 2.0 0.00 0.00  1.0000       1.0000 1.0000 ...   noise
    """
    width = max(len("comparison"), *(len(str(n)) for n in frame["comparison"]))
    numbers = {c: (lambda v: f"{v:.{digits}f}") for c in ("delta", "se", "low", "high")}
    formatters = {
        "comparison": lambda s: str(s).ljust(width),
        **numbers,
        "t": lambda v: f"{v:.2f}",
        "df": lambda v: f"{v:.1f}",
        **{c: _p_text for c in _P_COLUMNS},
    }
    header = ["comparison".ljust(width), *frame.columns[1:]]
    return frame.to_string(index=False, header=header, formatters=formatters, max_colwidth=None, line_width=None)


def show_verdicts(frame, digits: int = 3) -> None:
    """Print :func:`verdict_text` of ``frame`` (a notebook cell's way to show the whole table).

    Args:
        frame: :func:`verdict_table`'s table.
        digits: decimals of ``delta``, ``se``, ``low`` and ``high``.

    Example:
        >>> show_verdicts(verdict_table([("x", [[1, 0], [0, 1]], [[1, 0], [0, 1]])], resamples=100))
        comparison delta ... verdict note
        x ... noise
    """
    print(verdict_text(frame, digits))
