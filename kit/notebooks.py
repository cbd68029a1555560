"""The course's notebooks, one line each: the one list that the CLI, the runner, the tests and the site read.

Add a notebook here and nowhere else (docs/contributing.md): ``kit test``, ``kit run NN`` (and its ``--data`` check),
the tests, the site and ``KIT_SIZES`` then know it. Pure data importing nothing of the kit, so every floor can read it.

>>> [nb.stem for nb in NOTEBOOKS][:2]
['00_start_here', '01_pretrain_or_not']
>>> notebook("02").paper, notebook("02").backend
('tlm', 'torch')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Notebook:
    """One notebook of the course.

    ``number`` (``"00"``, what ``kit run`` takes) and ``stem`` (file name in ``notebooks/``); ``paper``: its
    ``kit/papers/`` folder and ``KIT_SIZES`` section (None for 00); ``backend``: CI's under nbval; ``minutes``: that
    run's in CI (benchmarks/README.md#ci-what-each-run-costs: the run of 1f9e95e; 01 and 04, whose backends and sizes
    changed on 2026-11-30, a CI-like run on a 2-core machine of CI's speed; 03 and 04 after that day's later cuts, that
    figure times the ratio of CI-like runs after and before the cut on a faster machine; orders ``kit test``'s queue,
    and the opening's "How long" gives it); ``tasks``: the data kinds it takes (``kit run --data`` refuses others
    before a kernel starts).
    """

    number: str
    stem: str
    paper: str | None
    title: str
    backend: str
    minutes: float
    tasks: tuple[str, ...]


#: Every notebook, in order. CI's backend for each: the one that runs it fastest on a 2-core CPU, all three covered
#: (benchmarks/README.md says why each).
NOTEBOOKS: tuple[Notebook, ...] = (
    Notebook("00", "00_start_here", None, "Start here", "tensorflow", 9.1,
             ("classification", "regression", "pairs", "pair_regression")),
    Notebook("01", "01_pretrain_or_not", "pretrain_or_not", "To Pretrain or Not to Pretrain", "jax", 11.1,
             ("classification",)),
    Notebook("02", "02_tlm", "tlm", "TLM: NLP from scratch without large-scale pretraining", "torch", 15.2,
             ("classification",)),
    Notebook("03", "03_stack_and_finetune", "stack_and_finetune", "To Tune or Not to Tune", "torch", 12.6,
             ("tagging", "classification", "pairs")),
    Notebook("04", "04_serbertus", "serbertus", "SerBERTus", "torch", 12.8,
             ("classification", "pairs", "pair_regression", "regression")),
)  # fmt: skip

#: Minutes ``kit test``'s other runs took in CI (benchmarks/README.md#ci-what-each-run-costs: 1f9e95e), by label or the
#: name before " on ": only the order of its queue reads them. The solutions' 7.0 minutes (one run then) are shared
#: out by each notebook's seconds in a run here (2026-11-30: 00 63 s, 01 14, 02 16, 03 17, 04 18), plus a process start.
OTHER_RUN_MINUTES = {
    "pytest jax": 26.5,
    "pytest tensorflow": 22.7,
    "pytest torch": 16.7,
    "solutions 00": 2.6,
    "solutions 01": 1.1,
    "solutions 02": 1.15,
    "solutions 03": 1.2,
    "solutions 04": 1.25,
}


def notebook(number: str) -> Notebook:
    """The notebook numbered ``number`` (``"02"``; a longer name such as ``"02_tlm"`` is read by its first two).

    KeyError (listing the numbers there are) when none has that number.

    Example:
        >>> notebook("03_stack_and_finetune").stem
        '03_stack_and_finetune'
    """
    for nb in NOTEBOOKS:
        if nb.number == str(number)[:2]:
            return nb
    raise KeyError(f"No notebook {number!r} in kit/notebooks.py; the notebooks are {[n.number for n in NOTEBOOKS]}.")


def tasks(name: str) -> tuple[str, ...] | None:
    """The kinds of data the notebook ``name`` (a number, a stem or a file name) takes; None for one not registered.

    Example:
        >>> tasks("03_stack_and_finetune.ipynb"), tasks("my_notebook.ipynb")
        (('tagging', 'classification', 'pairs'), None)
    """
    return next((nb.tasks for nb in NOTEBOOKS if nb.number == str(name)[:2]), None)


def papers() -> tuple[str, ...]:
    """The papers' folders in ``kit/papers/``, in the notebooks' order.

    Example:
        >>> papers()
        ('pretrain_or_not', 'tlm', 'stack_and_finetune', 'serbertus')
    """
    return tuple(nb.paper for nb in NOTEBOOKS if nb.paper)


def check_folder(folder) -> list[Path]:
    """``folder / "<stem>.ipynb"`` for each notebook of :data:`NOTEBOOKS`, in order, checked against ``folder``'s files.

    ValueError (naming them and the fix) when a registered notebook is missing or a ``NN_*.ipynb`` there is not
    registered.
    """
    folder = Path(folder)
    found = {p.stem for p in folder.glob("[0-9][0-9]_*.ipynb")}
    listed = [nb.stem for nb in NOTEBOOKS]
    missing, unlisted = [s for s in listed if s not in found], sorted(found - set(listed))
    if missing or unlisted:
        raise ValueError(
            f"kit/notebooks.py and {folder} disagree: "
            + (f"registered but not there: {missing}; " if missing else "")
            + (f"there but not registered: {unlisted}; " if unlisted else "")
            + "add a line to NOTEBOOKS in kit/notebooks.py for each notebook (docs/contributing.md), or fix the file."
        )
    return [folder / f"{s}.ipynb" for s in listed]
