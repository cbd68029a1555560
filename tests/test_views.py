"""Every notebook teaches its methods in "how it works" sections of the same shape (tests/views.py, docs/teaching.md).

Each paper's own test file (``tests/papers/<paper>/test_<paper>_views.py``, ``tests/test_start_here_views.py``) runs
its notebook's views under every backend and perturbs the kit to show each check can fail; this file checks the shape
they share, without Keras.
"""

import ast
import json
import re

import pytest

from tests import views
from tests.helpers import notebook_paths

pytestmark = pytest.mark.one_backend

NOTEBOOKS = notebook_paths()  # every notebook (kit/notebooks.py)
#: Most lines of code a runnable view may have, blank and comment lines aside (~20: the method, its prints, its check).
MAX_VIEW_LINES = 30


def _sections(notebook):
    """``(index, cell)`` of every cell, and the indices of the tagged ones."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    tagged = [i for i, c in enumerate(cells) if views.TAG in c.get("metadata", {}).get("tags", [])]
    return cells, tagged


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_teaches_with_formulas_pictures_and_checked_views(notebook):
    cells, tagged = _sections(notebook)
    titles = [views.title(cells[i]) for i in tagged]
    assert sum(t.startswith("View:") for t in titles) >= 2, f"{notebook.name}: views {titles}"
    assert any(t.startswith("Picture:") for t in titles), f"{notebook.name}: no picture among {titles}"
    for i in tagged:
        source, name = "".join(cells[i]["source"]), views.title(cells[i])
        assert cells[i]["cell_type"] == "code" and name.startswith(("View:", "Picture:")), name
        code = source.splitlines()
        first = next(ln for ln in code if ln.startswith(("import", "from")))
        assert first.startswith("import kit"), f"{name}: `import kit` first (it keeps TensorFlow out under jax/torch)"
        if name.startswith("View:"):
            statements = [ln for ln in code if ln.strip() and not ln.lstrip().startswith("#")]
            assert len(statements) <= MAX_VIEW_LINES, f"{name}: {len(statements)} lines of code"
            assert "assert" in source or "np.testing" in source, f"{name}: no check against the kit"
            before = [c for c in cells[max(0, i - 3) : i] if c["cell_type"] == "markdown"]
            assert any("$$" in "".join(c["source"]) for c in before), f"{name}: no formula in the 3 cells before it"
            after = cells[i + 1] if i + 1 < len(cells) else {"cell_type": "code", "source": ""}
            assert after["cell_type"] == "markdown" and "?" in "".join(after["source"]), f"{name}: no question after"
        assert cells[i].get("outputs"), f"{name}: not executed (python -m tests.views {notebook.name})"


def test_a_view_is_found_by_a_word_of_its_title(tmp_path):
    cell = {"cell_type": "code", "metadata": {"tags": [views.TAG]}, "outputs": []}
    nb = {
        "cells": [
            {**cell, "source": "# View: BM25 by hand\nimport kit\nx = 1\nassert x == 1"},
            {**cell, "source": "# Picture: the BM25 curve\nimport kit"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": "# View: not tagged"},
        ]
    }
    path = tmp_path / "99_x.ipynb"
    path.write_text(json.dumps(nb))
    assert [views.title(c) for c in views.tagged_cells(path)] == ["View: BM25 by hand", "Picture: the BM25 curve"]
    assert views.run(views.view(path, "by hand"))["x"] == 1
    with pytest.raises(LookupError, match="2 tagged cells name 'bm25'"):
        views.view(path, "bm25")
    with pytest.raises(AssertionError):
        views.run("import kit\nassert 1 == 2")


def _first_uses(source: str) -> tuple[set, set]:
    """A cell's names read before it assigns them, and the names it assigns (imports aside: same modules)."""
    tree = ast.parse("\n".join(ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))))
    events = sorted(
        (
            (n.lineno, n.col_offset, isinstance(n.ctx, ast.Store), n.id)
            for n in ast.walk(tree)
            if isinstance(n, ast.Name)
        ),
    )
    local = {t.id for c in ast.walk(tree) if isinstance(c, ast.comprehension) for t in ast.walk(c.target)
             if isinstance(t, ast.Name)}  # fmt: skip
    local |= {a.arg for f in ast.walk(tree) if isinstance(f, (ast.Lambda, ast.FunctionDef)) for a in ast.walk(f.args)
              if isinstance(a, ast.arg)}  # fmt: skip
    read, stored = set(), set()
    for _, _, store, name in events:
        if name in local:
            continue
        if store:
            stored.add(name)
        elif name not in stored:
            read.add(name)
    return read, stored


def clobbered_names(cells) -> list[str]:
    """``"name (cell i)"`` for each name a notebook cell reads whose latest assignment was a how-it-works cell's.

    A view runs in the notebook's kernel: a name it assigns (``vocab``, ``model``) must not be what a later cell of the
    notebook reads in place of its own.
    """
    last, found = {}, []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        is_view = views.TAG in cell.get("metadata", {}).get("tags", [])
        read, stored = _first_uses("".join(cell["source"]))
        if not is_view:
            found += [f"{name} (cell {i})" for name in sorted(read) if last.get(name) == "view"]
        last.update(dict.fromkeys(stored, "view" if is_view else "notebook"))
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_view_overwrites_a_name_the_notebook_reads_later(notebook):
    cells, _ = _sections(notebook)
    assert not clobbered_names(cells), f"{notebook.name}: names from a how-it-works cell read later"


def test_a_clobbered_name_is_found():
    code = [{"cell_type": "code", "metadata": {}, "source": "vocab = 1"}]
    view = [{"cell_type": "code", "metadata": {"tags": [views.TAG]}, "source": "import numpy as np\nvocab = 2"}]
    later = [{"cell_type": "code", "metadata": {}, "source": "print(vocab, np)\nvocab = 3\nprint(vocab)"}]
    assert clobbered_names(code + view + later) == ["vocab (cell 2)"]
    assert clobbered_names(code + view + [{**later[0], "source": "vocab = 3\nprint(vocab)"}]) == []


#: What drawing with matplotlib looks like in a cell: a picture is one call into the kit instead (docs/teaching.md).
DRAWING = re.compile(r"\bplt\.(?!show\()|\bax\.|\baxes\[|\bfig\.(?!savefig\()|\.subplots\(")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_picture_is_one_call_into_the_kit(notebook):
    cells, tagged = _sections(notebook)
    drawing = [
        f"cell {i}: {line.strip()}"
        for i, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        for line in "".join(cell["source"]).splitlines()
        if DRAWING.search(line.split("#")[0])
    ]
    assert not drawing, f"{notebook.name}: draw in kit/papers/<paper>/<paper>_report.py or kit.analysis, not {drawing}"
    for i in tagged:
        if views.title(cells[i]).startswith("Picture:"):
            code = [ln for ln in "".join(cells[i]["source"]).splitlines() if ln.strip() and not ln.startswith("#")]
            assert len(code) <= 10, f"{views.title(cells[i])}: {len(code)} lines"


def test_drawing_in_a_cell_is_found():
    assert DRAWING.search("fig, ax = plt.subplots(figsize=(8, 3))")
    assert DRAWING.search("ax.set_title('x')") and DRAWING.search("axes[0].plot(x)")
    assert not DRAWING.search("plt.show()") and not DRAWING.search("fig.savefig(OUT / 'a.png')")
    assert not DRAWING.search("report.draw_stream(rho1=3, rho2=20)")
