"""The four papers' experiments, one folder each.

::

    kit/papers/<paper>/       pretrain_or_not | tlm | stack_and_finetune | serbertus
        <paper>_sizes.py      DEFAULTS (what never changes with the scale), SCALES (smoke | medium | full: what does)
        <paper>_paper.py      the paper's published numbers, as data
        <paper>_runs.py       the plan, one run, the sweep's rows
        <paper>_report.py     tables beside the paper's, figures, the verdict sentences, the checks CI prints

A paper folder holds what only that paper's notebook needs. What another
experiment could reuse lives in the layers below it and is imported from there:
layers and models in ``kit.models`` (the BiLSTM, the heads, TLM's model,
multi-BERT and CerBERTus), training in ``kit.train`` (the freeze scheduler,
SMART, layer-wise decay, multitask training, TLM's stage 1), optimizers and
schedules in ``kit.optimizers``, scores in ``kit.metrics``, retrieval in
``kit.retrieval``, spread and verdicts in ``kit.analysis``, data in ``kit.data``.
A paper folder imports from the layers, never the other way round. File names
carry the paper's name (keras-hub's habit: ``models/bert/bert_backbone.py``),
so no two kit modules share a file name; a notebook imports them as ``from kit.papers.tlm import tlm_runs as runs``.

>>> sizes("tlm", "smoke")["rho1"], sizes("tlm", "full")["k"]
(3, 50)
"""

from __future__ import annotations

import importlib

from ..config import PAPERS, paper_sizes


def sizes(paper: str, scale: str | None = None) -> dict:
    """``paper``'s sizes at ``scale`` (default: ``KIT_SCALE``), with ``KIT_SIZES`` merged in (a copy).

    Args:
        paper: one of :data:`kit.config.PAPERS` (its folder's name).
        scale: ``smoke``, ``medium`` or ``full`` (default: the scale in use).

    Returns:
        The paper's ``DEFAULTS``, updated with its ``SCALES[scale]``, then with ``KIT_SIZES[paper]``.

    Raises:
        ValueError: an unknown paper or scale, or a ``KIT_SIZES`` section of unknown sizes.
    """
    if paper not in PAPERS:
        raise ValueError(f"Unknown paper {paper!r}; the papers are {PAPERS}.")
    table = importlib.import_module(f"{__name__}.{paper}.{paper}_sizes")
    return paper_sizes(paper, table.DEFAULTS, table.SCALES, scale)
