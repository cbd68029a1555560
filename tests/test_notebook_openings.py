"""A notebook's opening is read in a minute (docs/teaching.md); a learner is never sent to a file or cell that moved.

The first cell of each notebook: at most 25 lines outside its folds (``<details>``), with what you will learn (3-5
bullets), what to know first, how long the long cells take at smoke on a CPU and at medium on one GPU, and a link to
the glossary; a paper notebook's also links the paper on the web. The scale table and the not-run list are folded.
Nowhere a learner reads points at the papers' plain-text copies (``papers/*.txt``, which a clone does not have) or at
a cell by its number ("cell 41": cells move).
"""

import json
import re

import pytest

from kit import notebooks
from tests.helpers import ROOT, notebook_paths

pytestmark = pytest.mark.one_backend

#: The most lines an opening may show outside its folds (blank lines not counted).
MAX_LINES = 25
#: The papers' plain-text copies, which only the kit's authors had.
PAPER_TEXT = re.compile(r"(?<![\w/])papers/[\w.-]+\.txt\b")
#: A cell named by its number.
CELL_NUMBER = re.compile(r"\b[Cc]ells?\s+\d+")
#: Where a learner reads prose besides the notebooks: the guides, the front page, the papers' notes, the benchmarks.
PROSE_FILES = (
    [ROOT / "README.md", ROOT / "benchmarks" / "README.md"]
    + sorted((ROOT / "docs").glob("*.md"))
    + sorted((ROOT / "kit" / "papers").glob("*/README.md"))
)


def _cells(notebook) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def unfolded(text: str) -> str:
    """The opening without its ``<details>`` folds."""
    return re.sub(r"<details>.*?</details>", "", text, flags=re.S)


def opening_problems(text: str, paper: bool = True) -> list[str]:
    """What keeps an opening from being read in a minute (empty: nothing)."""
    shown = unfolded(text)
    lines = [ln for ln in shown.splitlines() if ln.strip()]
    learn = re.search(r"\*\*What you will learn\*\*\n((?:- .*\n(?:  .*\n)*)+)", shown + "\n")
    bullets = learn.group(1).count("\n- ") + 1 if learn else 0
    how_long = re.search(r"\*\*How long.*?(?:\n\n|$)", shown, re.S)
    problems = [
        f"{len(lines)} lines outside the folds (at most {MAX_LINES})" * (len(lines) > MAX_LINES),
        f"'What you will learn' has {bullets} bullets (3-5)" * (not 3 <= bullets <= 5),
        "no 'Know first'" * ("**Know first" not in shown),
        "no 'How long' with smoke and medium"
        * (not how_long or not all(w in how_long.group(0) for w in ("smoke", "medium", "min"))),
        "no link to the glossary" * ("](../docs/glossary.md" not in shown),
        "no web address of the paper" * (paper and not re.search(r"<https?://[^>]+>|\]\(https?://", shown)),
        "a table outside the folds" * ("|---" in shown),
        "a path to a papers/ file" * bool(re.search(r"(?<!kit/)\bpapers/[\w.-]+", text)),
    ]
    return [p for p in problems if p]


@pytest.mark.parametrize("notebook", notebook_paths(), ids=lambda p: p.stem)
def test_the_opening_is_read_in_a_minute(notebook):
    first = _cells(notebook)[0]
    paper = notebooks.notebook(notebook.stem).paper is not None
    assert first["cell_type"] == "markdown"
    problems = opening_problems("".join(first["source"]), paper=paper)
    assert not problems, f"{notebook.name}'s first cell: {problems}"


#: "How long"'s total at smoke: "..., 14 min in all."
IN_ALL = re.compile(r"(\d+(?:\.\d+)?) min in all")


def how_long_problem(text: str, minutes: float) -> str:
    """Why an opening's total at smoke disagrees with CI's measured minutes (``kit.notebooks``), or ""."""
    found = IN_ALL.search(" ".join(unfolded(text).split()))
    if not found:
        return "no 'N min in all' in 'How long'"
    said = float(found.group(1))
    if abs(said - minutes) > max(1.0, 0.1 * minutes):
        return f"'How long' says {said:g} min in all; CI measured {minutes:g} (kit/notebooks.py, benchmarks/README.md)"
    return ""


@pytest.mark.parametrize("notebook", notebook_paths(), ids=lambda p: p.stem)
def test_how_long_gives_the_minutes_ci_measured(notebook):
    first = "".join(_cells(notebook)[0]["source"])
    assert not how_long_problem(first, notebooks.notebook(notebook.stem).minutes), notebook.name


def test_a_how_long_off_the_measured_minutes_is_caught():
    assert how_long_problem("**How long**: smoke 3 min, 3.5 min in\nall.", 9.1).startswith("'How long' says 3.5")
    assert how_long_problem("**How long**: smoke 3 min.", 9.1) == "no 'N min in all' in 'How long'"


def test_a_long_opening_without_its_parts_is_caught():
    old = "# 02\n\n*TLM* (Yao et al.), `papers/tlm.txt`.\n\n| | a |\n|---|---|\n" + "words\n" * 30
    assert opening_problems(old) == [
        "34 lines outside the folds (at most 25)",
        "'What you will learn' has 0 bullets (3-5)",
        "no 'Know first'",
        "no 'How long' with smoke and medium",
        "no link to the glossary",
        "no web address of the paper",
        "a table outside the folds",
        "a path to a papers/ file",
    ]
    good = (
        "# 02\n\n*TLM*: <https://arxiv.org/abs/2111.04130>\n\n**What you will learn**\n- a;\n- b, on\n  two lines;\n"
        "- c.\n\n**Know first:** 00. [the glossary](../docs/glossary.md)\n\n**How long:** smoke 4 min, medium 22.\n\n"
        "<details>\n<summary>scales</summary>\n\n| | a |\n|---|---|\n" + "row\n" * 30 + "</details>\n"
    )
    assert opening_problems(good) == []


def _learner_texts() -> list[tuple[str, str]]:
    """``(where, text)`` of every notebook cell, guide, README and kit docstring a learner may read."""
    texts = [(f"{nb.name} cell {i}", "".join(c["source"])) for nb in notebook_paths() for i, c in enumerate(_cells(nb))]
    texts += [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in PROSE_FILES]
    texts += [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted((ROOT / "kit").rglob("*.py"))]
    return texts


def test_nothing_a_learner_reads_points_at_the_papers_text_copies():
    found = [where for where, text in _learner_texts() if PAPER_TEXT.search(text)]
    assert not found, f"papers/*.txt is not in a clone; give the paper's web address instead: {found}"


def prose(markdown: str) -> str:
    """Markdown without its code blocks and code spans (a program's message may say "cell 13 of 27")."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", markdown, flags=re.S))


def test_no_prose_names_a_cell_by_its_number():
    found = [
        f"{nb.name} cell {i}: {CELL_NUMBER.search(prose(''.join(c['source']))).group(0)!r}"
        for nb in notebook_paths()
        for i, c in enumerate(_cells(nb))
        if c["cell_type"] == "markdown" and CELL_NUMBER.search(prose("".join(c["source"])))
    ]
    found += [str(p.relative_to(ROOT)) for p in PROSE_FILES if CELL_NUMBER.search(prose(p.read_text(encoding="utf-8")))]
    assert not found, f"name the section (§3, 'The runs'), not the cell, which moves: {found}"


def test_a_cell_number_in_prose_is_found_and_a_program_s_message_is_not():
    assert CELL_NUMBER.search(prose("the sizes (cell 3 prints them)"))
    assert not CELL_NUMBER.search(prose("it prints `stopped at cell 13 of 27`; §3 prints the sizes"))
    assert PAPER_TEXT.search("the paper (`papers/tlm.txt`)") and not PAPER_TEXT.search("kit/papers/tlm/README.md")
