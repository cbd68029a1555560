"""The notebooks' "how it works" cells: find them, run them, put their outputs back (issue 29, docs/teaching.md).

A notebook teaches a method in a section whose code cells carry the tag ``how-it-works`` (cell metadata ``tags``):
the cell that draws its picture and the runnable view, a few lines of NumPy or ``keras.ops`` that compute the method
on a tiny input and end with a check against the kit (``np.testing.assert_allclose(view, kit_result)``). Each such
cell stands on its own (its own imports, seeded draws), so the tests can run it in a fresh namespace under every
backend, and again with the kit's implementation perturbed to show that the check fails.

The first line of each cell names it: ``# View: BM25 by hand, checked against kit.retrieval.BM25Retriever`` or
``# Picture: ...``. :func:`view` finds a cell by a word of that line.

Put the outputs of the tagged cells into a notebook without executing the rest of it (seconds, one kernel):
``python -m tests.views notebooks/02_tlm.ipynb``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TAG = "how-it-works"


def tagged_cells(notebook: Path) -> list[dict]:
    """The notebook's code cells tagged ``how-it-works``, in order."""
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    return [c for c in cells if c["cell_type"] == "code" and TAG in c.get("metadata", {}).get("tags", [])]


def title(cell: dict) -> str:
    """A tagged cell's first line without its ``#`` (``"View: BM25 by hand, ..."``)."""
    lines = "".join(cell["source"]).splitlines()
    return lines[0].lstrip("# ").strip() if lines else ""


def view(notebook: Path, word: str) -> str:
    """The source of the one tagged cell whose title contains ``word`` (case-insensitive)."""
    found = [c for c in tagged_cells(notebook) if word.lower() in title(c).lower()]
    if len(found) != 1:
        titles = [title(c) for c in tagged_cells(notebook)]
        raise LookupError(f"{Path(notebook).name}: {len(found)} tagged cells name {word!r}; titles: {titles}")
    return "".join(found[0]["source"])


def run(source: str, name: str = "<how-it-works>") -> dict:
    """Execute one cell's source in a fresh namespace (as a kernel would, without IPython's magics); its names."""
    import matplotlib

    matplotlib.use("Agg")  # pictures draw without a screen
    import matplotlib.pyplot as plt

    namespace = {"__name__": "__main__"}
    try:
        exec(compile(source, name, "exec"), namespace)
    finally:
        plt.close("all")
    return namespace


def execute_in_place(notebook: Path, timeout: int = 600) -> int:
    """Run the notebook's tagged cells in one kernel, in order, and write their outputs into the notebook."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(notebook, as_version=4)
    tagged = [c for c in nb.cells if c.cell_type == "code" and TAG in c.metadata.get("tags", [])]
    small = nbformat.v4.new_notebook(metadata=nb.metadata)
    small.cells = [nbformat.v4.new_code_cell(c.source) for c in tagged]
    client = NotebookClient(
        small, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}
    )
    client.execute()
    from kit.runner import merge_streams

    for cell, ran in zip(tagged, merge_streams(small).cells):
        cell.outputs, cell.execution_count = ran.outputs, ran.execution_count
    nbformat.write(nb, notebook)
    return len(tagged)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(f"{path}: {execute_in_place(Path(path))} tagged cells executed, outputs written")
