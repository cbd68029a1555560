"""Execute a notebook headless and collect what it writes (``kit run``).

The run gets its own output folder (``KIT_OUT``): the notebook writes figures
and results tables there through :func:`kit.config.output_dir`, and the
executed notebook is saved beside them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def notebooks_dir() -> Path:
    here = Path(__file__).resolve().parent.parent / "notebooks"
    return here if here.is_dir() else Path.cwd() / "notebooks"


def find_notebook(name: str) -> Path:
    p = Path(name)
    if p.suffix == ".ipynb":
        if not p.exists():
            raise FileNotFoundError(f"No notebook at {p}.")
        return p
    folder = notebooks_dir()
    matches = sorted(folder.glob(f"{name}*.ipynb"))
    if not matches:
        have = sorted(f.stem for f in folder.glob("*.ipynb"))
        raise FileNotFoundError(f"No notebook starting with {name!r} in {folder}; there are {have}.")
    return matches[0]


def run_notebook(path: Path, out: Path, timeout: int = 3600) -> Path:
    """Execute ``path`` with ``KIT_OUT=out``; write the executed copy into ``out``."""
    import nbformat
    from nbclient import NotebookClient

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(path, as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    start = time.time()
    state = {"i": 0}

    def on_start(cell, cell_index, **kw):
        if cell.cell_type != "code":
            return
        state["i"] += 1
        first = (cell.source.strip().splitlines() or [""])[0][:60]
        print(f"[{time.time() - start:6.1f}s] cell {state['i']}/{len(code_cells)}: {first}", flush=True)

    old = os.environ.get("KIT_OUT")
    os.environ["KIT_OUT"] = str(out)
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent.resolve())}},
                                on_cell_start=on_start)
        try:
            client.execute()
        finally:
            dest = out / path.name
            nbformat.write(nb, dest)
    finally:
        if old is None:
            os.environ.pop("KIT_OUT", None)
        else:
            os.environ["KIT_OUT"] = old
    print(f"[{time.time() - start:6.1f}s] done: {path.name} (backend {os.environ.get('KERAS_BACKEND', 'tensorflow')}, "
          f"scale {os.environ.get('KIT_SCALE', 'smoke')})")
    return dest
