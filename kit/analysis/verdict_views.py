"""The verdict table as a person reads it: plain text within ~160 characters, HTML with every other column folded.

Both show :data:`~kit.analysis.verdicts.MAIN_COLUMNS` rounded (and the paper's effect where given). The text adds a
row's reason where its verdict is not plain ``found``/``noise`` (or is noise whose interval excludes 0 before Holm); the
HTML folds the other columns in ``<details>``. :func:`show_verdicts` shows both in a notebook.

>>> from kit.analysis import verdict_table
>>> t = verdict_table([("a - b", [[1, 0, 1, 1], [1, 1, 0, 1]], [[0, 0, 1, 0], [1, 0, 0, 0]])], scale=100)
>>> print(verdict_text(t))  # doctest: +NORMALIZE_WHITESPACE
differences in points; p corrected by Holm over 1 row; detectable: 80% power at alpha 0.05
#  comparison  difference  95% interval     p (Holm)  detectable  verdict
1  a - b            +50.0  [-74.2, +174.2]    0.2254       154.8  noise
"""

from __future__ import annotations

import html
import math
import textwrap

from .verdicts import COLUMNS, FOUND, MAIN_COLUMNS, NO_VARIATION, NOISE, SCALED, detectable_at

#: The text's widest line.
WIDTH = 160


def _heads(frame) -> dict:
    """The shown columns' headers."""
    level = f"{frame.attrs.get('level', 0.95):.0%}"
    return {"difference": "difference", "interval": f"{level} interval", "p": "p (Holm)", "mdd": "detectable"}


def _digits(frame, digits: int | None) -> int:
    """Decimals shown: 1 for points (``scale`` 100), else 3, unless given."""
    if digits is not None:
        return digits
    return 1 if frame.attrs.get("scale", 1.0) >= 10 else 3


def _p_text(p: float) -> str:
    """A p-value in four decimals, ``< 0.0001`` below; ``-`` where nothing was tested."""
    if not math.isfinite(p):
        return "-"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _num(v: float, d: int, sign: bool = False) -> str:
    """``v`` rounded to ``d`` decimals (``-`` for NaN)."""
    if not math.isfinite(v):
        return "-"
    return f"{v:+.{d}f}" if sign else f"{v:.{d}f}"


def _cells(frame, digits: int) -> list[dict]:
    """Each row's shown cells, as text."""
    has_effect = frame["effect"].notna().any()
    out = []
    for r in frame.itertuples(index=False):
        cells = {
            "comparison": str(r.comparison),
            "difference": _num(r.delta, digits, sign=True),
            "interval": f"[{_num(r.low, digits, True)}, {_num(r.high, digits, True)}]",
            "p": _p_text(r.p_holm),
            "mdd": _num(r.detectable, digits),
        }
        if has_effect:
            cells["paper"] = _num(r.effect, digits, sign=True)
        cells["verdict"] = str(r.verdict)
        out.append(cells)
    return out


def _legend(frame) -> str:
    """The line above the table: the unit, Holm's family, the detectable difference's level."""
    a = frame.attrs
    scale, m = a.get("scale", 1.0), a.get("tested", len(frame))
    unit = "differences in points" if scale == 100 else f"differences x{scale:g}" if scale != 1 else "differences"
    alpha = a.get("alpha", 0.05)
    level = f"{alpha:g}" if m <= 1 else f"{alpha:g}/{m} = {alpha / m:.2g}"
    rows = "row" if m == 1 else "rows"
    return f"{unit}; p corrected by Holm over {m} {rows}; detectable: {a.get('power', 0.8):.0%} power at alpha {level}"


def verdict_text(frame, digits: int | None = None, width: int = WIDTH, full: bool = False) -> str:
    """The verdict table as plain text (``print`` it), no wider than ``width``: legend, table, then rows' reasons.

    ``digits``: default 1 for points, else 3; long comparison names wrap; ``full``: every column, one line per row (for
    a log).

    Example:
        >>> from kit.analysis import verdict_table
        >>> t = verdict_table([("same", [[1, 0], [1, 0]], [[1, 0], [1, 0]])])
        >>> print(verdict_text(t).splitlines()[-1][:60])
        #1 same: no variation: both arms score the same on every see
    """
    d = _digits(frame, digits)
    if full:
        return _full_text(frame, d)
    cells = _cells(frame, d)
    keys = [k for k in cells[0] if k != "comparison"]
    heads = {k: _heads(frame).get(k, k) for k in keys}
    widths = {k: max(len(heads[k]), *(len(c[k]) for c in cells)) for k in keys}
    number = len(str(len(cells)))
    fixed = number + 2 + sum(widths[k] + 2 for k in keys)
    name_width = max(len("comparison"), min(max(len(c["comparison"]) for c in cells), width - fixed))
    lines = [_legend(frame), _line("#", "comparison", heads, keys, widths, number, name_width)]
    for i, c in enumerate(cells, 1):
        names = textwrap.wrap(c["comparison"], name_width) or [""]
        lines.append(_line(str(i), names[0], c, keys, widths, number, name_width))
        lines += [" " * (number + 2) + n for n in names[1:]]
    for i, r in enumerate(frame.itertuples(index=False), 1):
        if r.verdict != FOUND and (r.verdict != NOISE or r.low > 0 or r.high < 0):
            text = f"#{i} {r.comparison}: {r.verdict}: {r.why}"
            lines += textwrap.wrap(text, width, subsequent_indent="   ") if r.verdict != NO_VARIATION else [text]
    return "\n".join(line.rstrip() for line in lines)


def _line(first: str, name: str, cells: dict, keys, widths, number: int, name_width: int) -> str:
    """One line of the text table (numbers right-aligned, the verdict left-aligned)."""
    parts = [first.ljust(number), name.ljust(name_width)]
    for k in keys:
        parts.append(cells[k].ljust(widths[k]) if k in ("verdict", "interval") else cells[k].rjust(widths[k]))
    return "  ".join(parts)


def _full_text(frame, d: int) -> str:
    """Every column, every name in full, one line per row."""
    fmt = {c: (lambda v, d=d: _num(v, d)) for c in SCALED}
    fmt.update({c: _p_text for c in ("p", "p_holm", "p_welch", "p_welch_holm", "p_boot", "p_boot_holm")})
    fmt["df_seeds"] = lambda v: _num(v, 1)
    width = max(len("comparison"), *(len(str(n)) for n in frame["comparison"]))
    fmt["comparison"] = lambda s: str(s).ljust(width)
    header = ["comparison".ljust(width), *frame.columns[1:]]
    return frame.to_string(index=False, header=header, formatters=fmt, max_colwidth=None, line_width=None)


def verdict_html(frame, digits: int | None = None) -> str:
    """The verdict table as HTML: legend, the columns a person reads (a pandas Styler), every column in ``<details>``.

    Example:
        >>> from kit.analysis import verdict_table
        >>> t = verdict_table([("a - b", [[1, 0, 1, 1], [1, 1, 0, 1]], [[0, 0, 1, 0], [1, 0, 0, 0]])], scale=100)
        >>> h = verdict_html(t)
        >>> "<details>" in h, "+50.0" in h, "why" in h
        (True, True, True)
    """
    import pandas as pd

    d = _digits(frame, digits)
    cells = _cells(frame, d)
    heads = _heads(frame)
    shown = pd.DataFrame([{heads.get(k, k): v for k, v in c.items()} for c in cells], index=range(1, len(cells) + 1))
    table = _styled(shown)
    rest = [c for c in COLUMNS if c not in MAIN_COLUMNS or c == "comparison"]
    detail = frame[rest].copy()
    for c in detail.columns:
        if detail[c].dtype.kind == "f":
            detail[c] = [_p_text(v) if c.startswith("p") else _num(v, 1 if c == "df_seeds" else d) for v in detail[c]]
    return (
        f'<div class="kit-verdicts"><p>{html.escape(_legend(frame))}</p>{table}'
        f"<details><summary>every column ({len(frame.columns)}), and why each row reads as it does</summary>"
        f"{detail.to_html(index=False, escape=True)}</details></div>"
    )


def _styled(shown) -> str:
    """The shown columns through a pandas Styler (verdicts shaded), or plain HTML where jinja2 is missing."""
    shade = {FOUND: "#d9f2d9", NOISE: "", NO_VARIATION: "#eeeeee"}

    def colour(v: str) -> str:
        c = shade.get(v, "#fff2cc")
        return f"background-color: {c}" if c else ""

    try:
        return (
            shown.style.format(escape="html")
            .map(colour, subset=["verdict"])
            .set_properties(subset=["comparison", "verdict"], **{"text-align": "left"})
            .to_html()
        )
    except ImportError:  # the Styler needs jinja2 (the notebooks extra brings it)
        return shown.to_html(escape=True)


def show_verdicts(frame, digits: int | None = None) -> None:
    """Show the verdict table: in a notebook as HTML (the text as its plain form), elsewhere as printed text.

    Example:
        >>> from kit.analysis import verdict_table
        >>> show_verdicts(verdict_table([("x", [[1, 0], [0, 1]], [[1, 0], [0, 1]])]))
        differences; p corrected by Holm over 1 row; detectable: 80% power at alpha 0.05
        #  comparison  difference  95% interval      p (Holm)  detectable  verdict
        1  x               +0.000  [-3.042, +3.042]    1.0000       3.792  noise
    """
    text = verdict_text(frame, digits)
    kernel = None
    try:
        from IPython import get_ipython

        kernel = getattr(get_ipython(), "kernel", None)
    except ImportError:
        pass
    if kernel is None:
        print(text)
        return
    from IPython.display import display

    display({"text/plain": text, "text/html": verdict_html(frame, digits)}, raw=True)


def read_aloud(frame, comparison: str) -> list[str]:
    """Row ``comparison`` read aloud, five lines: difference, interval and parts, Holm's p, detectable, verdict.

    KeyError: no such row (the message lists them).

    Example:
        >>> from kit.analysis import verdict_table
        >>> a, b = [[1, 0, 1, 1] * 50, [1, 1, 0, 1] * 50], [[0, 0, 1, 0] * 50, [1, 0, 0, 0] * 50]
        >>> t = verdict_table([("a - b", a, b)])
        >>> read_aloud(t, "a - b")[0]
        '1. difference: a - b is +0.500 (each arm: the mean over its 2 seeds of its score on 200 test examples).'
    """
    rows = frame.set_index("comparison")
    if comparison not in rows.index:
        raise KeyError(f"No row {comparison!r} in the verdict table; its rows are {list(rows.index)}.")
    r, d, m = rows.loc[comparison], _digits(frame, None), frame.attrs.get("tested", len(frame))
    unit = " points" if frame.attrs.get("scale", 1.0) >= 10 else ""
    level = f"{frame.attrs.get('level', 0.95):.0%}"
    effect = "no paper's effect was given" if not math.isfinite(r.effect) else f"the paper's is {r.effect:+.{d}f}"
    return [
        f"1. difference: {comparison} is {r.delta:+.{d}f}{unit} (each arm: the mean over its {r.seeds_a} seeds of "
        f"its score on {r.examples_a} test examples).",
        f"2. {level} interval [{r.low:+.{d}f}, {r.high:+.{d}f}]: it counts the seeds' spread (standard error "
        f"{r.se_seeds:.{d}f}, charged Welch's t at {r.df_seeds:.1f} degrees of freedom) and the test set's "
        f"({r.se_examples:.{d}f}, charged the normal's 1.96): another run on another test set could land anywhere "
        "in it.",
        f"3. p (Holm) {_p_text(r.p_holm)}: the row's p is {_p_text(r.p)}; the table tests {m} comparisons, so Holm's "
        "correction raises each p (the smallest times m, the next times m - 1, ...) before it is held to 0.05.",
        f"4. detectable {_num(r.detectable, d)}{unit}: the smallest difference this design (its seeds, test "
        f"examples and spread) finds in 80% of runs at Holm's strictest level; {effect}.",
        f"5. verdict: {r.verdict}, because {r.why}.",
    ]


def reach(frame, seeds: int, examples: int, label: str = "medium", digits: int | None = None):
    """Per row: the paper's effect, what this run could detect, what ``seeds`` and ``examples`` per arm could.

    A DataFrame indexed by comparison: ``paper's effect``, ``detectable here``, ``detectable at <label> (...)``
    (:func:`~kit.analysis.verdicts.detectable_at`: this run's spread), ``verdict``.

    Example:
        >>> from kit.analysis import verdict_table
        >>> a, b = [[1, 0, 1, 1] * 50, [1, 1, 0, 1] * 50], [[0, 0, 1, 0] * 50, [1, 0, 0, 0] * 50]
        >>> t = verdict_table([("a - b", a, b, {"effect": 0.1})])
        >>> list(reach(t, seeds=5, examples=1000).columns)
        ["paper's effect", 'detectable here', 'detectable at medium (5 seeds, 1,000 test examples)', 'verdict']
    """
    import pandas as pd

    d = _digits(frame, digits)
    there = detectable_at(frame, seeds, examples)
    return pd.DataFrame(
        {
            "paper's effect": [_num(v, d, sign=True) for v in frame.effect],
            "detectable here": [_num(v, d) for v in frame.detectable],
            f"detectable at {label} ({seeds} seeds, {examples:,} test examples)": [_num(v, d) for v in there],
            "verdict": list(frame.verdict),
        },
        index=pd.Index(frame.comparison, name="comparison"),
    )
