r"""Execute a notebook headless and collect what it writes (``kit run``).

The run's folder (``KIT_OUT``) gets the notebook's figures and tables (:func:`kit.config.output_dir`) and the executed
copy; ``env`` (``kit run --data``'s :meth:`kit.data.OwnData.env`, scale, precision) is set for the kernel. Without a
Jupyter kernel, ``in_process=True`` runs the cells here (:mod:`kit.inprocess`). Ctrl-C or SIGTERM stops either run and
saves the notebook so far (:class:`kit.inprocess.Stopped` says where).

>>> find_notebook("00").name
'00_start_here.ipynb'
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import notebooks
from .data import own
from .inprocess import Stopped, clear_outputs, first_line, run_in_process


def notebooks_dir() -> Path:
    """The ``notebooks/`` folder beside the kit (a source checkout), else the one in the working folder."""
    here = Path(__file__).resolve().parent.parent / "notebooks"
    return here if here.is_dir() else Path.cwd() / "notebooks"


def find_notebook(name: str) -> Path:
    """A notebook by its ``.ipynb`` path or the start of its name ("00", "02_tlm"), as ``kit run`` takes it.

    Names match in :func:`notebooks_dir`: registered notebooks (:data:`kit.notebooks.NOTEBOOKS`) first, then others by
    name; the first match wins. FileNotFoundError lists the notebooks there are.
    """
    p = Path(name)
    if p.suffix == ".ipynb":
        if not p.exists():
            raise FileNotFoundError(f"No notebook at {p}.")
        return p
    folder = notebooks_dir()
    registered = [folder / f"{nb.stem}.ipynb" for nb in notebooks.NOTEBOOKS if nb.stem.startswith(name)]
    matches = [p for p in registered if p.exists()] or sorted(folder.glob(f"{name}*.ipynb"))
    if not matches:
        have = sorted(f.stem for f in folder.glob("*.ipynb"))
        raise FileNotFoundError(f"No notebook starting with {name!r} in {folder}; there are {have}.")
    return matches[0]


def check_data(notebook: Path, env: dict):
    """The user's data (``env``) read as the notebook will, before a kernel starts (:func:`kit.data.own.check_data`)."""
    return own.check_data(env, notebooks.tasks(Path(notebook).name), f"Notebook {Path(notebook).stem}")


@contextlib.contextmanager
def _environ(values: dict):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update({k: str(v) for k, v in values.items()})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


#: The file in a run's folder that holds the kernel's own output (not the cells'): library start-up lines, warnings.
KERNEL_LOG = "kernel.log"


def run_notebook(path: Path, out: Path, timeout: int = 3600, env: dict | None = None, in_process: bool = False) -> Path:
    """Execute ``path`` with ``KIT_OUT=out`` (and ``env``); return the executed copy's path in ``out``.

    The copy is written even when a cell fails or the run stops. ``timeout``: seconds per cell under a Jupyter kernel;
    ``in_process``: run the cells in this process, one namespace (:mod:`kit.inprocess`). Ctrl-C or SIGTERM (main thread
    only) interrupts the cell (a second signal kills the kernel), saves the notebook and raises
    :class:`kit.inprocess.Stopped` (a KeyboardInterrupt: the cell, the saved path, the signal's exit code). A failed
    cell raises ``kit.inprocess.CellError`` (in process) or ``nbclient.exceptions.CellExecutionError`` (kernel).
    """
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    # TensorFlow's C++ start-up lines (oneDNN, CUDA probing: INFO and WARNING) would land in the first cell's output:
    # the kernel writes them to its own stderr, which ipykernel forwards. Errors still show; a value you set wins.
    quiet = {} if "TF_CPP_MIN_LOG_LEVEL" in os.environ else {"TF_CPP_MIN_LOG_LEVEL": "2"}
    with _environ({**quiet, **(env or {}), "KIT_OUT": str(out)}):
        if in_process:
            dest = _run_here(Path(path), out, start)
        else:
            dest = _run_with_kernel(Path(path), out, timeout, start)
    print(
        f"[{time.time() - start:6.1f}s] done: {Path(path).name} "
        f"(backend {os.environ.get('KERAS_BACKEND', 'tensorflow')}, scale {os.environ.get('KIT_SCALE', 'smoke')})"
    )
    return dest


@contextlib.contextmanager
def _on_stop_signals(handler):
    """Inside, SIGINT and SIGTERM call ``handler(signum)`` (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signums = (signal.SIGINT, signal.SIGTERM)
    old = [signal.signal(s, lambda signum, frame: handler(signum)) for s in signums]
    try:
        yield
    finally:
        for s, h in zip(signums, old):
            signal.signal(s, signal.SIG_DFL if h is None else h)


def _run_here(path: Path, out: Path, start: float) -> Path:
    """:func:`kit.inprocess.run_in_process`, SIGTERM stopping it as Ctrl-C does; a second signal waits for the save."""
    seen = []

    def stop(signum):
        if not seen:  # the first signal stops the cell; later ones must not cut the notebook's save short
            seen.append(signum)
            raise KeyboardInterrupt

    try:
        with _on_stop_signals(stop):
            return run_in_process(path, out, start)
    except Stopped as exc:
        exc.signum = seen[0] if seen else signal.SIGINT
        raise


def _run_with_kernel(path: Path, out: Path, timeout: int, start: float) -> Path:
    """Execute ``path`` under a Jupyter kernel (nbclient), its own output in ``out/kernel.log``; save the result."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    run = _KernelRun(sum(c.cell_type == "code" for c in nb.cells), start)
    clear_outputs([c for c in nb.cells if c.cell_type == "code"])
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.resolve())}},
        on_cell_start=run.on_cell_start,
    )
    log, dest = out / KERNEL_LOG, out / path.name
    with open(log, "w") as kernel_output:  # the kernel's own lines (TensorFlow's CUDA probing, Jupyter's warnings)
        try:
            run.execute(client, stdout=kernel_output, stderr=subprocess.STDOUT)
        except BaseException:
            if run.signum is not None:
                raise Stopped(run.cell, run.cells, dest, run.signum) from None
            _show_kernel_log(log)
            raise
        finally:
            nbformat.write(merge_streams(nb), dest)
    return dest


class _KernelRun:
    """An nbclient run that Ctrl-C and SIGTERM stop cleanly: the progress lines, the signals, the kernel's process."""

    def __init__(self, cells: int, start: float):
        self.cells, self.start, self.cell, self.signum, self.client = cells, start, 0, None, None

    def on_cell_start(self, cell, cell_index, **kw) -> None:
        """Nbclient's hook before each cell: stop there after a signal, else print a code cell's progress line."""
        if cell.cell_type != "code":
            return
        if self.signum is not None:
            raise Stopped(self.cell, self.cells, Path(), self.signum)
        self.cell += 1
        elapsed = time.time() - self.start
        print(f"[{elapsed:6.1f}s] cell {self.cell}/{self.cells}: {first_line(cell.source)}", flush=True)

    def execute(self, client, **kwargs) -> None:
        """``client.execute(**kwargs)`` in a worker thread, this thread waiting for it and taking the signals."""
        self.client, failure = client, []

        def work():
            try:
                client.execute(**kwargs)
            except BaseException as exc:  # raised again in the caller's thread
                failure.append(exc)

        worker = threading.Thread(target=work, name="kit-run-kernel-client", daemon=True)
        with _on_stop_signals(self.stop):
            worker.start()
            while worker.is_alive():
                worker.join(0.1)
        if failure:
            raise failure[0]

    def stop(self, signum: int) -> None:
        """The signal handler: the first interrupts the running cell (as Jupyter's stop does), a second kills it."""
        first = self.signum is None
        self.signum = signum if first else self.signum
        provisioner = getattr(getattr(self.client, "km", None), "provisioner", None)
        pgid, pid = getattr(provisioner, "pgid", None), getattr(provisioner, "pid", None)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if pgid:
                os.killpg(pgid, signal.SIGINT if first else signal.SIGKILL)
            elif pid:
                os.kill(pid, signal.SIGINT if first else signal.SIGKILL)


_OVERWRITTEN = re.compile(r"[^\n]*\r(?=[^\n])")  # a line's text before a carriage return that rewrites it


def merge_streams(nb):
    r"""One output per run of consecutive stream writes of a cell, with what a carriage return overwrote removed.

    Keeps what a person saw of a ``\r`` progress bar, its last state (as nbconvert's ``CoalesceStreamsPreprocessor``).

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
    >>> writes = ("a\n", "1/2\r", "2/2\n")                # a line, then a progress bar's two states
    >>> nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in writes]
    >>> merge_streams(nb).cells[0].outputs[0].text
    'a\n2/2\n'
    """
    for cell in nb.cells:
        merged = []
        for output in cell.get("outputs", []):
            last = merged[-1] if merged else None
            if output.output_type == "stream" and last and last.output_type == "stream" and last.name == output.name:
                last.text += output.text
            else:
                merged.append(output)
        for output in merged:
            if output.output_type == "stream":
                output.text = _OVERWRITTEN.sub("", output.text)
        if cell.cell_type == "code":
            cell.outputs = merged
    return nb


def _show_kernel_log(log: Path, lines: int = 15) -> None:
    """After a failed run: where the kernel's own log is, and its last lines (a crash of the kernel says why there)."""
    text = log.read_text(errors="replace").strip() if log.exists() else ""
    if text:
        tail = "\n".join(text.splitlines()[-lines:])
        print(f"the kernel's own output is in {log}; its last lines:\n{tail}", file=sys.stderr)
