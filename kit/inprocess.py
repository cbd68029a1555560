"""A notebook's code cells run in this Python process, as a Jupyter kernel would (``kit run --in-process``).

For a box without a Jupyter kernel: :func:`run_in_process` runs the cells in one namespace and writes an executed
``.ipynb`` (printed text, displays, figures). Also what :mod:`kit.runner`'s kernel runs share: the progress line's text,
:func:`clear_outputs`, :class:`Stopped`.

>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> cells = [{"cell_type": "code", "source": s, "metadata": {}, "outputs": []} for s in ("x = 20", "x + 22")]
>>> notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
>>> _ = (folder / "t.ipynb").write_text(json.dumps(notebook))
>>> dest = run_in_process(folder / "t.ipynb", folder, start=0.0)  # doctest: +ELLIPSIS
[...] cell 1/2: x = 20
[...] cell 2/2: x + 22
>>> json.loads(dest.read_text())["cells"][1]["outputs"][0]["data"]["text/plain"]
'42'
"""

from __future__ import annotations

import ast
import base64
import contextlib
import io
import json
import os
import signal
import sys
import time
import traceback
import types
from pathlib import Path


class Stopped(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM; the executed notebook so far is saved at ``path``.

    ``cell``: the code cell it stopped at (from 1; 0: before the first) of ``cells``; ``signum``: SIGINT (Ctrl-C) or
    SIGTERM (``kill``).

    Example:
        >>> stop = Stopped(13, 27, Path("runs/00-x/00_start_here.ipynb"), signal.SIGTERM)
        >>> str(stop), stop.exit_code
        ('stopped at cell 13 of 27; the notebook so far is in runs/00-x', 143)
    """

    def __init__(self, cell: int, cells: int, path: Path, signum: int = signal.SIGINT):
        super().__init__(cell, cells, path, signum)
        self.cell, self.cells, self.path, self.signum = cell, cells, Path(path), signum

    @property
    def exit_code(self) -> int:
        """The shell's code for a process the signal stopped: 128 + its number (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + int(self.signum)

    def __str__(self) -> str:
        where = f"at cell {self.cell} of {self.cells}" if self.cell else f"before cell 1 of {self.cells}"
        return f"stopped {where}; the notebook so far is in {self.path.parent}"


def first_line(source: str) -> str:
    """A cell's first line, cut to 60 characters: the progress line's text."""
    return (source.strip().splitlines() or [""])[0][:60]


def clear_outputs(cells) -> None:
    """Empty ``cells``' outputs and counts before a run: no stale output under cells a stopped run never reached."""
    for cell in cells:
        cell["outputs"] = []
        cell["execution_count"] = None


class CellError(RuntimeError):
    """A cell failed in an in-process run (the executed notebook up to that cell is saved)."""


def _display_shim(outputs):
    """``display``/``HTML`` for a process without IPython: text goes to the cell's output."""

    def display(*objs, **kw):
        for obj in objs:
            html = getattr(obj, "_repr_html_", None)
            text = obj.to_string() if hasattr(obj, "to_string") else str(obj)
            data = {"text/plain": text}
            if html is not None:
                try:
                    data["text/html"] = html()
                except Exception:  # plain text is enough
                    pass
            outputs.append({"output_type": "display_data", "data": data, "metadata": {}})

    class HTML:
        def __init__(self, data):
            self.data = data

        def _repr_html_(self):
            return self.data

        def __str__(self):
            return self.data

    return display, HTML


def _install_display(display, HTML):
    """Point ``IPython.display.display``/``HTML`` at the shim (a stand-in module where IPython is absent)."""
    try:
        import IPython.display as real
    except ImportError:
        ipy, ipy_display = types.ModuleType("IPython"), types.ModuleType("IPython.display")
        ipy_display.display, ipy_display.HTML = display, HTML
        ipy.display, ipy.get_ipython, ipy.version_info = ipy_display, (lambda: None), (9, 0)  # as matplotlib asks
        sys.modules["IPython"], sys.modules["IPython.display"] = ipy, ipy_display

        def restore():
            sys.modules.pop("IPython", None)
            sys.modules.pop("IPython.display", None)

        return restore
    saved = real.display, real.HTML
    real.display, real.HTML = display, HTML

    def restore():
        real.display, real.HTML = saved

    return restore


def run_in_process(path: Path, out: Path, start: float) -> Path:
    """Run the notebook's code cells here, in one namespace (in its folder), as a kernel would; returns the copy's path.

    Printed text, displays and figures become outputs; the copy goes to ``out`` even when a cell fails
    (:class:`CellError`) or a KeyboardInterrupt stops the run (:class:`Stopped`, ``signum`` SIGINT: a caller that knows
    better sets it). ``start`` (``time.time()``) times the progress lines.
    """
    plt = _agg_pyplot()
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    clear_outputs(cells)
    outputs: list = []
    display, HTML = _display_shim(outputs)
    # the cells' `from IPython.display import display, HTML` get the shim, which records rich output
    restore = _install_display(display, HTML)
    show = plt.show = _show_figures(plt, outputs)
    namespace = {"__name__": "__main__", "display": display}
    old_cwd = os.getcwd()
    os.chdir(path.parent.resolve())
    dest = out / path.name
    i, failed, stopped = 0, None, None
    try:
        for i, cell in enumerate(cells, 1):
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            print(f"[{time.time() - start:6.1f}s] cell {i}/{len(cells)}: {first_line(source)}", flush=True)
            outputs.clear()
            text, failed, stopped = _run_cell(source, i, namespace, display)
            show()
            cell["execution_count"] = i
            cell["outputs"] = _cell_outputs(text, outputs, failed, stopped)
            if failed or stopped:
                break
    except KeyboardInterrupt:  # stopped between cells, or while a cell's figures were recorded
        stopped = i
    finally:
        os.chdir(old_cwd)
        restore()
        dest.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    if stopped is not None:
        raise Stopped(stopped, len(cells), dest)
    if failed:
        raise CellError(f"cell {failed[0]} failed:\n{failed[1]}")
    return dest


def _agg_pyplot():
    """``matplotlib.pyplot`` on the Agg backend: figures are drawn to memory, never to a window."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _show_figures(plt, outputs: list):
    """A ``plt.show`` that records every open figure as a PNG in ``outputs``, then closes them."""

    def show(*a, **kw):
        for num in plt.get_fignums():
            buf = io.BytesIO()
            plt.figure(num).savefig(buf, format="png", dpi=80)
            outputs.append(
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"image/png": base64.b64encode(buf.getvalue()).decode()},
                }
            )
        plt.close("all")

    return show


def _run_cell(source: str, i: int, namespace: dict, display) -> tuple[str, tuple | None, int | None]:
    """Run cell ``i``'s ``source`` in ``namespace``, its printing shown and recorded, its last value displayed."""
    buf = io.StringIO()
    failed = stopped = None
    try:
        with contextlib.redirect_stdout(_Tee(buf, sys.stdout)):
            body, last = _split_last_expression(source)
            exec(compile(body, f"<cell {i}>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, f"<cell {i}>", "eval"), namespace)
                if value is not None:
                    display(value)
    except KeyboardInterrupt:  # Ctrl-C, or `kill` through kit run: keep what the cell printed so far
        stopped = i
    except Exception:  # reported and saved, then raised
        failed = (i, traceback.format_exc())
    return buf.getvalue(), failed, stopped


def _cell_outputs(printed: str, outputs: list, failed: tuple | None, stopped: int | None) -> list:
    """A run cell's outputs: its printed text, its displays and figures, then its error or where the run stopped."""
    cell_outputs = ([{"output_type": "stream", "name": "stdout", "text": printed}] if printed else []) + list(outputs)
    if failed:
        cell_outputs.append(
            {
                "output_type": "error",
                "ename": "Error",
                "evalue": failed[1][-500:],
                "traceback": failed[1].splitlines(),
            }
        )
    elif stopped:
        cell_outputs.append(
            {"output_type": "stream", "name": "stderr", "text": "stopped here: the cells below did not run\n"}
        )
    return cell_outputs


def _split_last_expression(source: str):
    """A cell as (statements, last expression or None): Jupyter shows the value of a final bare expression."""
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
        return tree, ast.Expression(last.value)
    return tree, None


class _Tee(io.TextIOBase):
    """A stream that writes to every stream it holds (a cell's printing, shown and recorded)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()
