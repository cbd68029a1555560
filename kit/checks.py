"""What an exercise's check tells a learner: ``right: why`` or ``not yet: why``, never the solution.

Each paper's exercises module (``kit/papers/<paper>/<paper>_exercises.py``) has a ``check(number, ...)`` that tries the
learner's answer on a small case and reports through :func:`answer`; :func:`unanswered` names an untouched starter.
``python -m kit.exercises`` runs each check after the starter (it must say not yet) and after the solution (right).
"""

from __future__ import annotations


def answer(right: bool, why: str) -> bool:
    """Print a check's verdict on a learner's answer, ``right: why`` or ``not yet: why``; return ``right``.

    Example:
        >>> answer(False, "dev_coverage returned None: fill in the line under # YOUR CODE")
        not yet: dev_coverage returned None: fill in the line under # YOUR CODE
        False
    """
    print(f"{'right' if right else 'not yet'}: {why}")
    return bool(right)


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
