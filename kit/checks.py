"""What an exercise's check tells a learner: ``right: why`` or ``not yet: why``, never the solution.

Each ``<paper>_exercises.py`` ``check(number, ...)`` tries the answer on a small case, reports via :func:`answer`;
:func:`unanswered` names an untouched starter.
"""

from __future__ import annotations


class Verdict:
    """A check's verdict: true when the answer is right. A notebook shows only the line :func:`answer` printed.

    Example:
        >>> bool(Verdict(True)), Verdict(False)
        (True, Verdict(False))
    """

    __slots__ = ("right",)

    def __init__(self, right: bool):
        self.right = bool(right)

    def __bool__(self) -> bool:
        return self.right

    def __repr__(self) -> str:
        return f"Verdict({self.right})"

    def _ipython_display_(self) -> None:
        """Show nothing under the check's cell: its printed ``right: ...`` or ``not yet: ...`` line says it all."""


def answer(right: bool, why: str) -> Verdict:
    """Print a check's verdict on a learner's answer, ``right: why`` or ``not yet: why``; return it (true if right).

    Example:
        >>> verdict = answer(False, "dev_coverage returned None: fill in the line under # YOUR CODE")
        not yet: dev_coverage returned None: fill in the line under # YOUR CODE
        >>> bool(verdict)
        False
    """
    print(f"{'right' if right else 'not yet'}: {why}")
    return Verdict(right)


def unanswered(value, name: str) -> str | None:
    """Why ``value`` is no answer yet (a starter's ``...`` or None), or None when it is one.

    Example:
        >>> unanswered(..., "dev_coverage(s, 300)")
        'dev_coverage(s, 300) returned ... (the starter as it is): fill in the lines under # YOUR CODE'
        >>> unanswered(0.5, "dev_coverage(s, 300)") is None
        True
    """
    if value is Ellipsis or value is None:
        shown = "..." if value is Ellipsis else "None"
        return f"{name} returned {shown} (the starter as it is): fill in the lines under # YOUR CODE"
    return None


def unpredicted(prediction, choices) -> str | None:
    """Why ``prediction`` is not yet recorded (None, or not one of ``choices``), or None when it is.

    A predict-then-run exercise asks for the prediction before the run; its check compares it with what the run shows.

    Example:
        >>> unpredicted(None, ("widen", "narrow"))
        "record your prediction first: prediction = one of ('widen', 'narrow') (before you run the code)"
        >>> unpredicted("wider", ("widen", "narrow"))
        "prediction 'wider' is not one of ('widen', 'narrow')"
        >>> unpredicted("widen", ("widen", "narrow")) is None
        True
    """
    if prediction is None:
        return f"record your prediction first: prediction = one of {choices} (before you run the code)"
    if prediction not in choices:
        return f"prediction {prediction!r} is not one of {choices}"
    return None


def direction(diff: float, se: float, df: float | None = None, alpha: float = 0.05) -> tuple[str, float]:
    """What a run shows of a difference: ``"higher"``, ``"lower"`` or ``"same"`` (within the noise), and its p-value.

    Two-sided test of ``diff`` against 0 with standard error ``se``: Student's t with ``df`` degrees of freedom (over
    seeds), or normal when ``df`` is None (over test examples).

    Example:
        >>> direction(0.10, 0.02)[0], direction(-0.01, 0.02)[0], direction(-0.10, 0.02)[0]
        ('higher', 'same', 'lower')
        >>> round(direction(0.05, 0.02, df=2)[1], 3)      # 2 degrees of freedom: far less sure than the normal
        0.13
    """
    from scipy import stats  # noqa: PLC0415 - scipy only when a check runs

    if not se > 0:
        return ("same" if diff == 0 else "higher" if diff > 0 else "lower"), 0.0 if diff else 1.0
    z = abs(diff) / se
    p = float(2 * (stats.norm.sf(z) if df is None else stats.t.sf(z, df)))
    return ("same" if p >= alpha else "higher" if diff > 0 else "lower"), p
