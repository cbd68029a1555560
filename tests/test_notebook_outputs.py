"""What a learner reads in the published paper notebooks: no code cell prints a wall of lines (docs/teaching.md).

Long work prints one progress line that updates in place (kit.train.Sweep), then one table; logs of every run go to the
run's folder. A table shown as HTML counts by its rows; a figure counts nothing.
"""

import json
import re

import pytest

from tests.helpers import notebook_paths

pytestmark = pytest.mark.one_backend

NOTEBOOKS = notebook_paths(papers_only=True)  # the paper notebooks (kit/notebooks.py)
#: The most lines one code cell of a paper notebook may print.
MAX_LINES = 25


def printed_lines(cell: dict) -> int:
    """Lines a code cell shows as text: its streams, and each result's plain text unless an HTML table stands for it."""
    lines = 0
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            lines += len("".join(out["text"]).splitlines())
        elif out["output_type"] in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/html" in data:  # a table's rows; what a <details> folds away is not shown
                lines += re.sub(r"<details>.*?</details>", "", "".join(data["text/html"]), flags=re.S).count("<tr")
            elif not any(k.startswith("image/") for k in data):
                lines += len("".join(data.get("text/plain", "")).splitlines())
    return lines


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_code_cell_prints_a_wall_of_lines(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    long = [
        f"cell {i} ({printed_lines(c)} lines): {''.join(c['source']).splitlines()[0][:60]!r}"
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and printed_lines(c) > MAX_LINES
    ]
    assert not long, f"{notebook.name}: " + "; ".join(long)


def test_lines_are_counted_as_a_reader_sees_them():
    cell = {
        "outputs": [
            {"output_type": "stream", "name": "stdout", "text": "plan\n3/3 runs\n"},
            {"output_type": "display_data", "data": {"text/html": "<table><tr><tr><tr></table>", "text/plain": "x"}},
            {"output_type": "display_data", "data": {"image/png": "...", "text/plain": "<Figure>"}},
            {"output_type": "execute_result", "data": {"text/plain": "a\nb"}},
        ]
    }
    assert printed_lines(cell) == 2 + 3 + 0 + 2


@pytest.mark.parametrize("notebook", notebook_paths(), ids=lambda p: p.stem)
def test_every_cell_with_outputs_was_run(notebook):
    """nbval fails a cell that shows outputs but has no execution count ("Unrun reference cell has outputs")."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    unrun = [
        f"cell {i}: {''.join(c['source']).splitlines()[0][:60]!r}"
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and c.get("outputs") and c.get("execution_count") is None
    ]
    assert not unrun, f"{notebook.name}: outputs with no execution count (renumber the code cells): " + "; ".join(unrun)
