"""The harness stays out of what a learner reads (docs/teaching.md): nbval's markers are cell tags, not comments.

nbval reads a code cell's ``nbval-check-output`` or ``nbval-ignore-output`` tag (cell metadata ``tags``) as it reads the
``# NBVAL_CHECK_OUTPUT`` / ``# NBVAL_IGNORE_OUTPUT`` comments, so the cells a learner reads open with their own first
line. ``notebooks/`` holds the lessons and nothing else: nbval's sanitizer lives in ``tests/``.
"""

import json
import re

import pytest

from kit import testplan
from tests.helpers import ROOT, notebook_paths

pytestmark = pytest.mark.one_backend

NOTEBOOKS = notebook_paths()  # every notebook (kit/notebooks.py)
#: nbval's tags: CI compares the first's outputs with the committed ones and runs the second without comparing.
NBVAL_TAGS = ("nbval-check-output", "nbval-ignore-output")
#: A comment nbval would read as a marker, in any cell.
MARKER_COMMENT = re.compile(r"^\s*#\s*(NBVAL_|PYTEST_VALIDATE_)", re.MULTILINE)
#: Remarks about the machine CI ran on: the run's numbers are this run's; CI's machine is the benchmarks' business.
CI_MACHINE = re.compile(r"CI's (machine|CPU)")


def _cells(notebook) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def marker_comments(cells) -> list[str]:
    """``"cell i: first line"`` of each cell whose source holds a comment nbval reads as a marker."""
    return [
        f"cell {i}: {''.join(c['source']).splitlines()[0][:60]!r}"
        for i, c in enumerate(cells)
        if MARKER_COMMENT.search("".join(c["source"]))
    ]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_cell_opens_with_an_nbval_comment(notebook):
    found = marker_comments(_cells(notebook))
    assert not found, f"{notebook.name}: nbval's markers go in the cell's tags ({NBVAL_TAGS}), not comments: {found}"


def test_a_marker_comment_is_found():
    cells = [
        {"cell_type": "code", "metadata": {}, "source": ["# NBVAL_CHECK_OUTPUT\n", "print(1)"]},
        {"cell_type": "code", "metadata": {"tags": ["nbval-check-output"]}, "source": ["print(1)  # NBVAL in a line"]},
    ]
    assert marker_comments(cells) == ["cell 0: '# NBVAL_CHECK_OUTPUT'"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_nbval_reads_the_tags_as_its_markers(notebook):
    plugin = pytest.importorskip("nbval.plugin", reason="nbval is not installed (the kit's `dev` extra)")
    code = [c for c in _cells(notebook) if c["cell_type"] == "code"]
    checked = 0
    for cell in code:
        tags = [t for t in cell.get("metadata", {}).get("tags", []) if t.startswith("nbval")]
        assert len(tags) <= 1 and set(tags) <= set(NBVAL_TAGS), f"{notebook.name}: {tags}"
        options = dict(plugin.find_metadata_tags(cell.get("metadata", {})))  # what nbval itself reads
        assert options.get("check", False) is (tags == ["nbval-check-output"]), (notebook.name, tags, options)
        checked += tags == ["nbval-check-output"]
    assert checked, f"{notebook.name}: no cell tagged nbval-check-output, so CI compares none of its outputs"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_cell_remarks_on_ci_s_machine(notebook):
    found = [i for i, c in enumerate(_cells(notebook)) if CI_MACHINE.search("".join(c["source"]))]
    assert not found, f"{notebook.name}: cells {found} talk about CI's machine (benchmarks/README.md is its place)"


def test_the_notebooks_folder_holds_only_the_lessons():
    folder = ROOT / "notebooks"
    others = sorted(p.name for p in folder.iterdir() if not p.name.startswith(".") and p.suffix != ".ipynb")
    assert not others, f"notebooks/ holds {others}: a harness file lives in tests/ (JupyterLab lists it to learners)"


def test_kit_test_sanitizes_nbval_with_a_file_that_exists():
    _, command, _ = testplan._notebook_job(ROOT, "torch", "notebooks/00_start_here.ipynb")
    sanitizer = command[command.index("--nbval-sanitize-with") + 1]
    assert (ROOT / sanitizer).is_file() and not sanitizer.startswith("notebooks/"), sanitizer
