"""Every number a notebook's prose quotes comes from that notebook's outputs, or its sentence names where it is from.

A learner reads every markdown cell (the openings, the how-it-works sections, the discussions, the exercises and their
solutions) as statements about the run around them. So a number written there (a decimal, a percentage, a number with
thousands separators) must appear in the notebook's printed outputs, or the sentence holding it names its source: the
paper ("the paper", "Table 2", "Figure 1", "§4"), or a file (``benchmarks/medium_gpu``, ``GPU.md``); a cell is named by
its section, never its number (tests/test_notebook_openings.py).
"""

import json
import re

import pytest

from tests.helpers import notebook_paths

pytestmark = pytest.mark.one_backend

NOTEBOOKS = notebook_paths(papers_only=True)  # the paper notebooks (kit/notebooks.py)
#: A decimal, a percentage, or a number with thousands separators (plain integers are counts, years, table numbers).
NUMBER = re.compile(r"(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+%)")
#: Words that name where a number comes from, when it is not printed by the notebook itself.
SOURCE = re.compile(
    r"the paper|paper's|\bTables?\s+\d|\bFigures?\s+\d|§\s*\d|[\w-]+/[\w./-]+|\b[\w-]+\.(?:md|csv|json)\b"
    r"|\bbenchmarks?\b|\bSPEC\b|\bGPU\.md\b"
    r"|\bthis solution\b|\bkit\.exercises\b|\bmodel card\b|\bnotebook 0\d\b|\w+'s paper\b|\bpapers'",
    re.IGNORECASE,
)


def _text(nb: dict, kind: str) -> list[str]:
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind]


def _outputs(nb: dict) -> str:
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for kind in ("text/plain", "text/html", "text/markdown"):
                parts.append("".join(out.get("data", {}).get(kind, "")))
    return "\n".join(parts).replace("−", "-")


def _sentences(markdown: str):
    paragraph = " ".join(markdown.split())
    return re.split(r"(?<=[.;:!?])\s+(?=[A-Z*(`\-])", paragraph)


#: Markdown that states no measured number: a fenced code block (a solution's code: the settings it runs with), a
#: formula (``$...$``: a derivation), a table row (the scale tables: the sizes files are their source).
NOT_CLAIMS = re.compile(r"```.*?```|\$\$.*?\$\$|\$[^$\n]+\$|^\|.*\|\s*$", re.DOTALL | re.MULTILINE)


def unsourced_numbers(nb: dict) -> list[tuple[str, str]]:
    """(number, sentence) for each number in any markdown cell found neither in the outputs nor with a source."""
    printed = _outputs(nb)
    printed_plain = printed.replace(",", "")
    missing = []
    for cell in _text(nb, "markdown"):
        sentences = _sentences(NOT_CLAIMS.sub(" ", cell))
        for i, sentence in enumerate(sentences):
            if SOURCE.search(sentence) or (i and SOURCE.search(sentences[i - 1])):  # named here or just before
                continue
            missing += [(n, sentence) for n in NUMBER.findall(sentence) if not _printed(n, printed, printed_plain)]
    return missing


def _printed(number: str, printed: str, printed_plain: str) -> bool:
    """The number as the outputs may print it: as written, without separators, or a percentage as a fraction."""
    bare = number.replace("−", "-").lstrip("+-").rstrip("%")
    forms = {bare, bare.replace(",", "")}
    value = float(bare.replace(",", ""))
    if "." in bare or number.endswith("%"):
        forms |= {f"{value / 100:.3f}", f"{value / 100:.4f}".rstrip("0")}
    return any(f in printed or f in printed_plain for f in forms)


def test_the_check_finds_an_unsourced_number_and_accepts_a_sourced_one():
    nb = {
        "cells": [
            {"cell_type": "code", "source": "print(0.912)", "outputs": [{"output_type": "stream", "text": "0.912\n"}]},
            {
                "cell_type": "markdown",
                "source": "### Discussion\n\nWe got 0.912 here. The gap was 4.2 points. Its Table 2 gives 93.1%.",
            },
        ]
    }
    assert unsourced_numbers(nb) == [("4.2", "The gap was 4.2 points.")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_numbers_in_the_prose_come_from_the_outputs_or_name_their_source(path):
    missing = unsourced_numbers(json.loads(path.read_text()))
    assert not missing, f"{path.name}: numbers in the prose that no output shows and no source names:\n" + "\n".join(
        f"  {n}: {s[:160]}" for n, s in missing
    )
