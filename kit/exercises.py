"""The notebooks' exercises and their worked solutions: find them, run them.

Every notebook ends with its exercises, one markdown cell each: ``**Exercise N.** ...`` and, collapsed under it, a
``<details>`` block with the solution's code (one ```` ```python ```` block) and what it shows. A solution is written
against the kit, not the notebook's variables: it runs on its own, in a fresh namespace, so CI can execute it at smoke
scale (``kit test`` runs ``python -m kit.exercises`` as its own job) and it breaks loudly when the kit changes.

>>> import pathlib
>>> root = pathlib.Path(__file__).resolve().parent.parent
>>> sols = solutions(root / "notebooks" / "00_start_here.ipynb")
>>> [s.number for s in sols][:2], "import kit" in sols[0].code
([1, 2], True)

Run them: ``python -m kit.exercises notebooks/01_pretrain_or_not.ipynb`` (all of a notebook's),
``... 01 3`` (exercise 3 of notebook 01), ``python -m kit.exercises --all``.
"""

from __future__ import annotations

import json
import re
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from .runner import find_notebook, notebooks_dir  # a notebook by its number, as `kit run` finds it

_EXERCISE = re.compile(r"\*\*Exercise (\d+)\.\*\*")
_DETAILS = re.compile(r"<details>(.*?)</details>", re.S)
_CODE = re.compile(r"```python\n(.*?)```", re.S)


@dataclass
class Solution:
    """One exercise of a notebook and its worked solution.

    Attributes:
        notebook: the notebook's name (its file name without ``.ipynb``).
        number: the exercise's number (``**Exercise N.**``).
        question: the exercise's text, up to its ``<details>`` block.
        code: the solution's python block, run on its own.
    """

    notebook: str
    number: int
    question: str
    code: str

    @property
    def label(self) -> str:
        """``"<notebook> exercise <number>"``: how the runner names the solution."""
        return f"{self.notebook} exercise {self.number}"


def solutions(notebook) -> list[Solution]:
    """Every exercise of ``notebook`` with its solution's code, in order.

    Args:
        notebook: the ``.ipynb`` file.

    Returns:
        One :class:`Solution` per exercise, in the notebook's order.

    Raises:
        ValueError: an exercise has no ``<details>`` solution, or its solution has not exactly one python block:
            every exercise must have one that runs.
    """
    path = Path(notebook)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        heads = list(_EXERCISE.finditer(text))
        for i, head in enumerate(heads):
            part = text[head.start() : heads[i + 1].start() if i + 1 < len(heads) else len(text)]
            details = _DETAILS.search(part)
            code = _CODE.findall(details.group(1)) if details else []
            number = int(head.group(1))
            if len(code) != 1:
                raise ValueError(
                    f"{path.name}, exercise {number}: expected one <details> block with one ```python "
                    f"block (its solution), found {len(code)}."
                )
            question = part[head.end() : details.start()].strip()
            found.append(Solution(path.stem, number, question, code[0]))
    return found


def run(solution: Solution) -> float:
    """Execute one solution in a fresh namespace (nothing from a notebook or an earlier solution); its seconds.

    Keras' session is cleared first.

    Args:
        solution: the solution to run.

    Returns:
        The seconds it ran.

    Raises:
        Exception: whatever the solution raises (its traceback names ``<notebook exercise N>``).
    """
    import keras  # noqa: PLC0415 - a light module: finding the solutions needs no Keras

    keras.backend.clear_session()
    start = time.time()
    code = compile(solution.code, f"<{solution.label}>", "exec")
    exec(code, {"__name__": "__main__"})  # noqa: S102 - the notebooks' own solutions
    return time.time() - start


def main(argv=None) -> int:
    """``python -m kit.exercises``: run the solutions of a notebook (or some of them, or all notebooks').

    Args:
        argv: ``[notebook, number, ...]`` (a path or a number, then the exercises; none: all of the notebook's) or
            ``["--all"]``; None reads ``sys.argv``. Empty: prints how to call it.

    Returns:
        The exit code: 0 when every solution ran, 1 when one failed or none was picked, 2 without arguments.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__.split("\n\n")[-1].strip())
        return 2
    if args[0] == "--all":
        picked = [s for nb in sorted(notebooks_dir().glob("[0-9][0-9]_*.ipynb")) for s in solutions(nb)]
    else:
        picked = solutions(find_notebook(args[0]))
        if args[1:]:
            wanted = {int(a) for a in args[1:]}
            picked = [s for s in picked if s.number in wanted]
    failed = []
    for s in picked:
        print(f"\n=== {s.label}: {s.question.splitlines()[0][:100]}", flush=True)
        try:
            seconds = run(s)
        except Exception:  # noqa: BLE001 - report every failing solution, then fail
            traceback.print_exc()
            failed.append(s.label)
            continue
        print(f"--- {s.label}: ran in {seconds:.0f}s", flush=True)
    print(f"\n{len(picked) - len(failed)} of {len(picked)} solutions ran" + "".join(f"\nFAILED: {f}" for f in failed))
    return 1 if failed or not picked else 0


if __name__ == "__main__":
    sys.exit(main())
