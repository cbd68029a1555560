"""The notebooks' exercises, their starter cells and their worked solutions: find them, run them.

Each (docs/teaching.md): a ``**Exercise N.**`` question; a starter cell tagged ``exercise-starter`` (``# YOUR CODE``); a
check cell tagged ``exercise-check`` (:func:`kit.checks.answer`: True/``right`` or False/``not yet``); a ``<details>``
block with one python block, the kit-only solution. CI runs each solution fresh, its check after starter and solution.

>>> import pathlib
>>> root = pathlib.Path(__file__).resolve().parent.parent
>>> sols = solutions(root / "notebooks" / "00_start_here.ipynb")
>>> [s.number for s in sols][:2], "import kit" in sols[0].code
([1, 2], True)

Run them: ``python -m kit.exercises notebooks/01_pretrain_or_not.ipynb`` (all of a notebook's),
``... 01 3`` (exercise 3 of notebook 01), ``python -m kit.exercises --all``.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from . import notebooks, quiet
from .checks import Verdict
from .runner import find_notebook, notebooks_dir  # a notebook by its number, as `kit run` finds it

_EXERCISE = re.compile(r"\*\*Exercise (\d+)\.\*\*")
_DETAILS = re.compile(r"<details>(.*?)</details>", re.S)
_CODE = re.compile(r"```python\n(.*?)```", re.S)
#: The tag of an exercise's starter cell.
STARTER = "exercise-starter"
#: The tag of the cell that checks an exercise's answer (after its starter).
CHECK = "exercise-check"


@dataclass
class Solution:
    """One exercise of a notebook and its worked solution.

    ``notebook``: file name without ``.ipynb``; ``number``: the ``N`` of ``**Exercise N.**``; ``question``: text up to
    ``<details>``; ``code``: the solution, run on its own; ``starter``, ``check``: its tagged cells' sources, or None.
    """

    notebook: str
    number: int
    question: str
    code: str
    starter: str | None = None
    check: str | None = None

    @property
    def label(self) -> str:
        """``"<notebook> exercise <number>"``: how the runner names the solution."""
        return f"{self.notebook} exercise {self.number}"


def solutions(notebook) -> list[Solution]:
    """Every exercise of ``notebook`` as a :class:`Solution`, in order; ValueError if one has no one-block solution."""
    path = Path(notebook)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [_solution(path, number, part) for number, part in _exercise_parts(cells)]


def _exercise_parts(cells) -> list[tuple[int, list]]:
    """Each exercise's number and its cells: from its ``**Exercise N.**`` to the next one (a cell may hold several)."""
    parts: list[tuple[int, list]] = []
    for cell in cells:
        text = "".join(cell["source"])
        heads = list(_EXERCISE.finditer(text)) if cell["cell_type"] == "markdown" else []
        for i, head in enumerate(heads):
            piece = text[head.start() : heads[i + 1].start() if i + 1 < len(heads) else len(text)]
            parts.append((int(head.group(1)), [{**cell, "source": piece}]))
        if not heads and parts and not text.lstrip().startswith("#" * 2):  # a "## ..." heading ends the exercises
            parts[-1][1].append(cell)
    return parts


def _solution(path: Path, number: int, part: list) -> Solution:
    """The :class:`Solution` of one exercise from its cells (question, starter, solution)."""
    markdown = "\n\n".join("".join(c["source"]) for c in part if c["cell_type"] == "markdown")
    blocks = _DETAILS.findall(markdown)
    code = _CODE.findall(blocks[0]) if len(blocks) == 1 else []
    if len(code) != 1:
        raise ValueError(
            f"{path.name}, exercise {number}: expected one <details> block with one ```python "
            f"block (its solution), found {len(blocks)} block(s) and {len(code)} python block(s)."
        )
    head = "".join(part[0]["source"])
    question = _EXERCISE.sub("", head.split("<details>")[0], count=1).strip()
    tagged = {
        tag: ["".join(c["source"]) for c in part if c["cell_type"] == "code" and tag in c["metadata"].get("tags", [])]
        for tag in (STARTER, CHECK)
    }
    starter, check = (tagged[t][0] if tagged[t] else None for t in (STARTER, CHECK))
    return Solution(path.stem, number, question, code[0], starter, check)


def run(solution: Solution) -> float:
    """Execute one solution in a fresh namespace (Keras' session cleared); return its seconds.

    A check runs after the untouched starter (must say ``not yet``) and after the solution (``right``), else
    AssertionError.
    """
    import keras  # noqa: PLC0415 - a light module: finding the solutions needs no Keras

    keras.backend.clear_session()
    start = time.time()
    if solution.check and solution.starter:
        said = _value(solution.starter + "\n" + solution.check, {"__name__": "__main__"}, f"{solution.label} starter")
        assert isinstance(said, Verdict) and not said, (
            f"{solution.label}: its check must say 'not yet' to the untouched starter, got {said!r}"
        )
    namespace = {"__name__": "__main__"}
    code = compile(solution.code, f"<{solution.label}>", "exec")
    exec(code, namespace)  # the notebooks' own solutions
    if solution.check:
        said = _value(solution.check, namespace, f"{solution.label} check")
        assert isinstance(said, Verdict) and said, (
            f"{solution.label}: its check must say 'right' to the solution, got {said!r}"
        )
    return time.time() - start


def _value(source: str, namespace: dict, label: str):
    """Run ``source`` in ``namespace``; the value of its last statement when that is an expression (else None)."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, f"<{label}>", "exec"), namespace)  # the notebooks' own cells
    return None if last is None else eval(compile(ast.Expression(last.value), f"<{label}>", "eval"), namespace)


def main(argv=None) -> int:
    """``python -m kit.exercises``: run a notebook's solutions (or some, or every notebook's); return the exit code.

    ``argv``: ``[notebook, number, ...]`` or ``["--all"]`` (None: ``sys.argv``; empty: usage, 2); 1 if one failed or
    none ran.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__.split("\n\n")[-1].strip())
        return 2
    if args[0] == "--all":
        picked = [s for nb in notebooks.check_folder(notebooks_dir()) for s in solutions(nb)]
    else:
        picked = solutions(find_notebook(args[0]))
        if args[1:]:
            wanted = {int(a) for a in args[1:]}
            picked = [s for s in picked if s.number in wanted]
    quiet()  # as each notebook's first cell does
    failed = []
    for s in picked:
        print(f"\n=== {s.label}: {s.question.splitlines()[0][:100]}", flush=True)
        try:
            seconds = run(s)
        except Exception:  # report every failing solution, then fail
            traceback.print_exc()
            failed.append(s.label)
            continue
        print(f"--- {s.label}: ran in {seconds:.0f}s", flush=True)
    print(f"\n{len(picked) - len(failed)} of {len(picked)} solutions ran" + "".join(f"\nFAILED: {f}" for f in failed))
    return 1 if failed or not picked else 0


if __name__ == "__main__":
    sys.exit(main())
