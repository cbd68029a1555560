"""The four papers' experiments, one folder each: ``kit/papers/<paper>/``.

Each holds ``<paper>_sizes.py`` (``DEFAULTS``; ``SCALES``: smoke, medium, full), ``_paper.py`` (published numbers),
``_runs.py`` (plan, one run, rows), ``_report.py`` (tables, figures, verdicts, CI checks): what only its notebook needs.
Reusable parts live in the layers below (``kit.models``, ``kit.train``, ...), imported never the other way; file names
carry the paper's name (as keras-hub's): ``from kit.papers.tlm import tlm_runs as runs``.

>>> sizes("tlm", "smoke")["rho1"], sizes("tlm", "full")["k"]
(3, 50)
"""

from __future__ import annotations

import importlib

from ..config import PAPERS, paper_sizes


def sizes(paper: str, scale: str | None = None) -> dict:
    """``paper``'s sizes at ``scale`` (default: ``KIT_SCALE``), a copy: ``DEFAULTS``, ``SCALES[scale]``, ``KIT_SIZES``.

    ValueError on an unknown paper (:data:`kit.config.PAPERS`) or scale, or unknown ``KIT_SIZES`` sizes.
    """
    if paper not in PAPERS:
        raise ValueError(f"Unknown paper {paper!r}; the papers are {PAPERS}.")
    table = importlib.import_module(f"{__name__}.{paper}.{paper}_sizes")
    return paper_sizes(paper, table.DEFAULTS, table.SCALES, scale)
