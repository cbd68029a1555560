"""The four papers' experiments, one folder each.

::

    kit/papers/<paper>/       pretrain_or_not | tlm | stack_and_finetune | serbertus
        <paper>_sizes.py      DEFAULTS (what never changes with the scale), SCALES (smoke | medium | full: what does)
        <paper>_paper.py      the paper's published numbers, as data
        <paper>_runs.py       the plan, one run, the sweep's rows
        <paper>_report.py     tables beside the paper's, figures, the verdict sentences, the checks CI prints

A folder holds what only its notebook needs; reusable parts live in the layers below (``kit.models``, ``kit.train``,
``kit.optimizers``, ``kit.metrics``, ``kit.retrieval``, ``kit.analysis``, ``kit.data``), imported never the other way.
File names carry the paper's name (as keras-hub's), so none repeats: ``from kit.papers.tlm import tlm_runs as runs``.

>>> sizes("tlm", "smoke")["rho1"], sizes("tlm", "full")["k"]
(3, 50)
"""

from __future__ import annotations

import importlib

from ..config import PAPERS, paper_sizes


def sizes(paper: str, scale: str | None = None) -> dict:
    """``paper``'s sizes at ``scale`` (default: ``KIT_SCALE``) with ``KIT_SIZES`` merged in, as a copy.

    ``DEFAULTS``, then ``SCALES[scale]``, then ``KIT_SIZES[paper]``; ``paper`` is one of :data:`kit.config.PAPERS`.
    ValueError on an unknown paper or scale, or unknown ``KIT_SIZES`` sizes.
    """
    if paper not in PAPERS:
        raise ValueError(f"Unknown paper {paper!r}; the papers are {PAPERS}.")
    table = importlib.import_module(f"{__name__}.{paper}.{paper}_sizes")
    return paper_sizes(paper, table.DEFAULTS, table.SCALES, scale)
