"""The notebooks' exercises: every one has a solution that stands on its own (kit/exercises.py).

The solutions themselves run in ``kit test``'s "solutions NN" runs (``python -m kit.exercises NN`` at smoke); these
tests check the format, that a missing solution or a failing one is caught, and what the runner reports.
"""

import ast
import json
from pathlib import Path

import pytest

from kit import exercises
from tests.helpers import notebook_paths

NOTEBOOKS = notebook_paths()  # every notebook (kit/notebooks.py)

pytestmark = pytest.mark.one_backend


def _notebook(path: Path, *markdown: str) -> Path:
    cells = [{"cell_type": "markdown", "id": f"c{i}", "metadata": {}, "source": [m]} for i, m in enumerate(markdown)]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _exercise(n: int, code: str | None) -> str:
    block = (
        ""
        if code is None
        else f"\n\n<details>\n<summary>Solution</summary>\n\n```python\n{code}\n```\n\nWhy.\n\n</details>"
    )
    return f"**Exercise {n}.** Question {n}?" + block


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_exercise_has_a_solution_that_stands_on_its_own(notebook):
    sols = exercises.solutions(notebook)
    assert len(sols) >= 3, f"{notebook.name}: {len(sols)} exercises with solutions"
    assert [s.number for s in sols] == list(range(1, len(sols) + 1))
    markdown = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "markdown"]
    text = "".join(markdown[next(i for i, m in enumerate(markdown) if m.startswith("## Exercises")) :])  # the opening
    assert text.count("**Exercise ") == len(sols) and text.count("<details>") == len(sols)  # folds its tables too
    for s in sols:
        tree = ast.parse(s.code)
        first = tree.body[0]
        assert isinstance(first, ast.Import) and first.names[0].name == "kit", f"{s.label}: `import kit` first"
        assert s.question, f"{s.label}: no question"
        # written against the kit: no names the notebook defines (its first cell's S, SIZES, OUT ...) are read
        # before this solution assigns them
        assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for name in ("S", "OUT", "ds", "experiment", "enc", "sweep"):
            used = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(tree))
            assert not used or name in assigned, f"{s.label} reads the notebook's {name!r}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_exercise_asks_first_with_a_starter_cell_that_runs(notebook):
    for s in exercises.solutions(notebook):
        assert "?" in s.question, f"{s.label}: the question asks nothing"
        assert s.starter, f"{s.label}: no starter cell (a code cell tagged {exercises.STARTER!r} after the question)"
        assert s.starter.startswith(f"# Exercise {s.number} · your turn"), f"{s.label}: starter's first line"
        assert "YOUR CODE" in s.starter, f"{s.label}: the starter does not mark where the learner writes"
        tree = ast.parse(s.starter)
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert imports and isinstance(imports[0], ast.Import) and imports[0].names[0].name == "kit", s.label
        exec(compile(s.starter, f"<{s.label} starter>", "exec"), {"__name__": "__main__"})  # runs as is


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_starter_is_followed_by_a_check_that_answers_back(notebook):
    # what the check says to the starter and to the solution: the solutions runs (python -m kit.exercises NN)
    for s in exercises.solutions(notebook):
        assert s.check, f"{s.label}: no check cell (a code cell tagged {exercises.CHECK!r} after the starter)"
        assert s.check.startswith(f"# Exercise {s.number} · check"), f"{s.label}: check's first line"
        last = ast.parse(s.check).body[-1]
        assert isinstance(last, ast.Expr), f"{s.label}: the check's last statement must be its verdict (an expression)"
    checks = [c for c in json.loads(notebook.read_text())["cells"] if exercises.CHECK in c["metadata"].get("tags", [])]
    shown = [
        "".join(c["source"]).splitlines()[0]
        for c in checks
        if any(o["output_type"] == "execute_result" for o in c["outputs"])
    ]
    assert not shown, f"{notebook.name}: published checks show a value under their verdict line: {shown}"


def test_a_check_cell_shows_its_verdict_line_and_nothing_more(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    from kit.checks import answer

    verdict = answer(False, "square(3) returned ...")
    assert capsys.readouterr().out == "not yet: square(3) returned ...\n" and not verdict
    # what Jupyter's display hook sends as the cell's result: nothing (a bool would show "False" under the line)
    shell = InteractiveShell.instance()
    assert shell.display_formatter.format(verdict) == ({}, {})
    assert shell.display_formatter.format(False)[0] == {"text/plain": "False"}


def test_the_ask_first_layout_question_starter_solution(tmp_path):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "## Exercises"},
        {"cell_type": "markdown", "metadata": {}, "source": "**Exercise 1.** What moves?"},
        {
            "cell_type": "code",
            "metadata": {"tags": [exercises.STARTER]},
            "outputs": [],
            "source": "# Exercise 1 · your turn\nimport kit\n# YOUR CODE",
        },
        {"cell_type": "markdown", "metadata": {}, "source": _exercise(0, "import kit\nx = 1").split("?", 1)[1]},
        {"cell_type": "markdown", "metadata": {}, "source": "**Exercise 2.** And now?"},
        {"cell_type": "markdown", "metadata": {}, "source": "<details>\n\n```python\nimport kit\n```\n</details>"},
    ]
    path = tmp_path / "99_x.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    one, two = exercises.solutions(path)
    assert (one.number, one.question, one.code.strip(), one.starter) == (
        1,
        "What moves?",
        "import kit\nx = 1",
        "# Exercise 1 · your turn\nimport kit\n# YOUR CODE",
    )
    assert (two.number, two.question, two.starter) == (2, "And now?", None)


def test_a_missing_solution_is_an_error(tmp_path):
    nb = _notebook(tmp_path / "99_x.ipynb", _exercise(1, "import kit"), _exercise(2, None))
    with pytest.raises(ValueError, match="exercise 2: expected one <details> block"):
        exercises.solutions(nb)


def test_the_runner_runs_each_solution_fresh_and_reports_failures(tmp_path, capsys):
    out = tmp_path / "seen.txt"
    good = f"import kit\nwith open({str(out)!r}, 'a') as f:\n    f.write(str('leak' in globals()))\nleak = 1"
    nb = _notebook(
        tmp_path / "99_x.ipynb",
        "## Exercises",
        _exercise(1, good),
        _exercise(2, good),
        _exercise(3, "import kit\nraise RuntimeError('broken solution')"),
    )
    assert exercises.main([str(nb), "1", "2"]) == 0
    assert out.read_text() == "FalseFalse"  # the second did not see the first's variables
    assert exercises.main([str(nb)]) == 1
    shown = capsys.readouterr().out
    assert "2 of 3 solutions ran" in shown and "FAILED: 99_x exercise 3" in shown
    assert exercises.main([]) == 2


def test_a_notebook_by_number():
    assert exercises.find_notebook("00").name == "00_start_here.ipynb"
    with pytest.raises(FileNotFoundError, match="No notebook starting with '77'"):
        exercises.find_notebook("77")


def test_a_check_says_not_yet_to_the_starter_and_right_to_the_solution(tmp_path, capsys):
    question = {"cell_type": "markdown", "metadata": {}, "source": "**Exercise 1.** Square a number."}
    starter = {"cell_type": "code", "metadata": {"tags": [exercises.STARTER]}, "outputs": [],
               "source": "# Exercise 1 · your turn\ndef square(x):\n    # YOUR CODE\n    ...\n"}  # fmt: skip
    check = {"cell_type": "code", "metadata": {"tags": [exercises.CHECK]}, "outputs": [],
             "source": "# Exercise 1 · check\nfrom kit import checks as ex\n"
                       "ex.answer(square(3) is not ... and square(3) == 9, 'square(3) is 9')"}  # fmt: skip
    solution = "<details><summary>Solution</summary>\n\n```python\ndef square(x):\n    return x * x\n```\n</details>"
    cells = [question, starter, check, {"cell_type": "markdown", "metadata": {}, "source": solution}]
    nb = tmp_path / "99_checks.ipynb"
    nb.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (one,) = exercises.solutions(nb)
    assert one.check.startswith("# Exercise 1 · check")
    exercises.run(one)
    assert "right: square(3) is 9" in capsys.readouterr().out
    wrong = exercises.Solution("99_checks", 1, "", "def square(x):\n    return x + x\n", one.starter, one.check)
    with pytest.raises(AssertionError, match="must say 'right' to the solution"):
        exercises.run(wrong)
    assert "not yet: square(3) is 9" in capsys.readouterr().out
    lenient = exercises.Solution("99_checks", 1, "", one.code, "def square(x):\n    return 9\n", one.check)
    with pytest.raises(AssertionError, match="must say 'not yet' to the untouched starter"):
        exercises.run(lenient)
