r"""Execute a notebook headless and collect what it writes (``kit run``).

The run gets its own output folder (``KIT_OUT``): the notebook writes figures
and results tables there through :func:`kit.config.output_dir`, and the
executed notebook is saved beside them. ``env`` (e.g. the user's data file and
columns from ``kit run --data ...``, the scale, the precision) is set for the
notebook's kernel.

Where no Jupyter kernel is installed (a bare GPU box with only Python),
``in_process=True`` runs the code cells in this Python process instead, one
after the other in one namespace, and still writes an executed ``.ipynb`` with
each cell's printed output and figures.

>>> import pathlib, tempfile
>>> my_csv = pathlib.Path(tempfile.mkdtemp()) / "my.csv"
>>> _ = my_csv.write_text("review,stars\ngreat film,5\n")
>>> env = notebook_env(data=my_csv, text="review", label="stars")
>>> sorted(env), env["KIT_TEXT"], env["KIT_LABEL"]
(['KIT_DATA_FILE', 'KIT_LABEL', 'KIT_TEXT'], 'review', 'stars')
"""

from __future__ import annotations

import ast
import base64
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import time
import traceback
import types
from pathlib import Path

from .data.conllu import field_number
from .data.file_formats import is_hf_disk
from .data.own import KIND_NAMES, OWN_DATA_ENV, OwnData, check_kind, data_kind


def notebooks_dir() -> Path:
    """The ``notebooks/`` folder beside the kit (a source checkout), else the one in the working folder."""
    here = Path(__file__).resolve().parent.parent / "notebooks"
    return here if here.is_dir() else Path.cwd() / "notebooks"


def find_notebook(name: str) -> Path:
    """A notebook by its path or its number, as ``kit run`` takes it.

    Args:
        name: a ``.ipynb`` path, or the start of a notebook's name in :func:`notebooks_dir` ("00", "02_tlm").

    Returns:
        The notebook's path (the first match, in name order).

    Raises:
        FileNotFoundError: no such notebook (the message lists the notebooks there are).
    """
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


def notebook_env(
    data=None, text=None, label=None, text_a=None, text_b=None, task=None, encoding=None, delimiter=None,
    skip_empty=False, tag_column=None,
) -> dict:  # fmt: skip
    """The environment ``kit run --data FILE --text COL --label COL`` sets for the notebook's kernel.

    Checks the flags together, so a mistake stops before a kernel starts. A relative path is read from the folder
    the command was typed in (the kernel gets the absolute path).

    Args:
        data: the user's file (``--data``); None: the notebook's own data set, and no other flag may be given.
        text: the column with the texts (single texts).
        label: the column with the labels or scores.
        text_a: sentence pairs: the first text's column.
        text_b: sentence pairs: the second text's column.
        task: overrides the task the kit infers ("tagging": CoNLL tagged tokens, as a ``.conll`` name says).
        encoding: the file's encoding when it is not UTF-8 (CSV, JSON Lines, CoNLL, CoNLL-U).
        delimiter: a CSV's delimiter when it is not found from the header ("tab", "TAB" or backslash-t: a tab).
        skip_empty: drop rows with an empty text instead of stopping.
        tag_column: tagged tokens: the tags' column (CoNLL: a number from 0; CoNLL-U: a field's name or 1-10).

    Returns:
        ``{KIT_DATA_FILE: absolute path, KIT_TEXT: ..., ...}`` for the flags given; ``{}`` without ``data``.

    Raises:
        FileNotFoundError: ``data`` is not there.
        IsADirectoryError: ``data`` is a folder of none of the kinds read.
        ValueError: flags that do not go together, or a flag without ``--data``.
    """
    given = {
        "text": text,
        "label": label,
        "text_a": text_a,
        "text_b": text_b,
        "task": task,
        "encoding": encoding,
        "delimiter": delimiter,
        "skip_empty": "1" if skip_empty else None,
        "tag_column": None if tag_column is None else str(tag_column),
    }
    if data is None:
        stray = _flags_given(given, given)
        if stray:
            raise ValueError(
                f"{', '.join(stray)} need --data FILE (your CSV/TSV, JSON Lines, Parquet, a saved Hugging Face "
                "dataset's folder, or a CoNLL/CoNLL-U file of tagged tokens)."
            )
        return {}
    path = _data_path(data)
    kind = _data_kind(path, data, task)
    if kind in ("conll", "conllu"):
        return _tagged_env(path, given, kind)
    return _columns_env(path, given, kind)


def _data_kind(path: Path, data, task) -> str:
    """The reader of ``path`` (:func:`kit.data.own.data_kind`).

    Raises:
        IsADirectoryError: a folder of none of the kinds read.
    """
    kind = data_kind(path, task)
    if path.is_dir() and kind not in ("conll", "conllu", "hf_disk"):
        raise IsADirectoryError(
            f"--data {data} is a folder. kit run reads a file (CSV/TSV, .jsonl, .parquet, .conll, .conllu), or a "
            "folder of a treebank's .conllu files, a CoNLL-2003 folder (with --task tagging), or one that "
            "datasets' save_to_disk wrote."
        )
    return kind


def _data_path(data) -> Path:
    """``--data`` as an absolute path, checked to be there; a file inside a saved Hugging Face dataset is its folder's.

    Raises:
        FileNotFoundError: there is no such file or folder, or it is a file that ``save_to_disk`` wrote.
    """
    path = Path(data).expanduser().resolve()
    if not path.exists():
        raise FileNotFoundError(f"--data {data}: no such file (looked for {path}).")
    inside = next((p for p in (path.parent, path.parent.parent) if path.is_file() and is_hf_disk(p)), None)
    if inside is not None:
        raise FileNotFoundError(
            f"--data {data} is a file inside a saved Hugging Face dataset: pass its folder, --data {inside}."
        )
    return path


def _do_not_apply(flags: list[str]) -> str:
    """``"--text does not apply"`` or ``"--text, --label do not apply"``."""
    return f"{', '.join(flags)} {'does' if len(flags) == 1 else 'do'} not apply"


def _flags_given(given: dict, names) -> list[str]:
    """The command-line spelling (``--text-a``) of each of ``names`` that ``given`` sets, in the order of ``names``."""
    return [f"--{k.replace('_', '-')}" for k in names if given[k]]


def _tagged_env(path: Path, given: dict, kind: str) -> dict:
    """:func:`notebook_env` for tagged tokens (CoNLL or CoNLL-U): only ``--encoding`` and ``--tag-column`` apply.

    Args:
        path: the file's absolute path.
        given: every flag's value as the environment takes it (None: not given).
        kind: ``"conll"`` or ``"conllu"``.

    Returns:
        The file, the task "tagging", and the encoding and tag column where given.

    Raises:
        ValueError: a flag for columns of texts and labels was given, or a tag column that does not fit the kind.
    """
    stray = _flags_given(given, ("text", "label", "text_a", "text_b", "delimiter", "skip_empty"))
    column = given["tag_column"]
    if kind == "conllu":
        if stray:
            raise ValueError(
                f"{_do_not_apply(stray)} to CoNLL-U: a word per line in ten fields, the tags in one of "
                "them (--tag-column upos, the default, or xpos, deprel, ...; or its number 1-10, 4 = UPOS)."
            )
        field_number(column or "upos", path.name)  # an unknown field stops here
    else:
        if stray:
            raise ValueError(
                f"{_do_not_apply(stray)} to tagged tokens: a CoNLL file has a token per line and "
                "its tag in a column (--tag-column N, from 0 = the token; default -1, the last)."
            )
        if column is not None and not column.lstrip("-").isdigit():
            raise ValueError(
                f"--tag-column {column}: a CoNLL file's tag column is a number (0 = the token, -1 = the last). "
                "Field names (upos, xpos ...) are for CoNLL-U: name the file .conllu."
            )
    return {
        OWN_DATA_ENV["file"]: str(path),
        OWN_DATA_ENV["task"]: "tagging",
        **{OWN_DATA_ENV[k]: given[k] for k in ("encoding", "tag_column") if given[k] is not None},
    }


def _columns_env(path: Path, given: dict, kind: str) -> dict:
    """:func:`notebook_env` for labelled rows (CSV, JSON Lines, Parquet, a saved Hugging Face dataset).

    Args:
        path: the file's or folder's absolute path.
        given: every flag's value as the environment takes it (None: not given).
        kind: ``"csv"``, ``"jsonl"``, ``"parquet"`` or ``"hf_disk"``.

    Returns:
        The file and every flag given (a delimiter spelt as a shell passes a tab becomes a tab).

    Raises:
        ValueError: no ``--label``, half a pair, both ``--text`` and a pair or neither, ``--tag-column``, or
            ``--delimiter``/``--encoding`` for a format that has none.
    """
    if given["tag_column"] is not None:
        raise ValueError(
            "--tag-column is for tagged tokens (a CoNLL file: --task tagging or a .conll name; CoNLL-U: .conllu)."
        )
    text_flags = {"delimiter": ("csv",), "encoding": ("csv", "jsonl")}  # the formats each flag applies to
    unfit = [f for f, kinds in text_flags.items() if given[f] and kind not in kinds]
    if unfit:
        raise ValueError(
            f"{_do_not_apply(_flags_given(given, unfit))} to {KIND_NAMES[kind]}: "
            + ("--delimiter is for CSV/TSV files. " if "delimiter" in unfit else "")
            + ("--encoding is for text files (CSV, JSON Lines, CoNLL, CoNLL-U)." if "encoding" in unfit else "")
        )
    if given["label"] is None:
        raise ValueError("--data needs --label COL (the column with the labels or scores).")
    pair = given["text_a"] is not None or given["text_b"] is not None
    if pair and (given["text_a"] is None or given["text_b"] is None):
        raise ValueError("Sentence pairs need both --text-a COL and --text-b COL.")
    if pair == (given["text"] is not None):
        raise ValueError("Give --text COL for single texts, or --text-a COL --text-b COL for pairs (not both).")
    if given["delimiter"] in ("\\t", "tab", "TAB"):  # what a shell passes for a tab
        given["delimiter"] = "\t"
    env = {OWN_DATA_ENV["file"]: str(path)}
    env.update({OWN_DATA_ENV[k]: v for k, v in given.items() if v is not None})
    return env


#: What each notebook's experiments can take (the ``tasks`` of its ``kit.data.notebook_dataset`` call; a test keeps
#: them equal), so ``kit run`` can refuse another kind before a kernel starts.
NOTEBOOK_TASKS = {
    "00": ("classification", "regression", "pairs", "pair_regression"),
    "01": ("classification",),
    "02": ("classification",),
    "03": ("tagging", "classification", "pairs"),
    "04": ("classification", "pairs", "pair_regression", "regression"),
}


def check_data(notebook: Path, env: dict):
    """Read the user's file (``env`` from :func:`notebook_env`) here, as the notebook will, before a kernel starts.

    Every problem with the file (encoding, columns, empty texts, a class too small, the wrong kind of data for the
    notebook) stops within seconds with the notebook's own message.

    Args:
        notebook: the notebook's path; its number picks the kinds of data it takes (:data:`NOTEBOOK_TASKS`).
        env: the run's environment, from :func:`notebook_env`.

    Returns:
        The user's data set, or None without ``--data``.

    Raises:
        ValueError: the file does not read as the flags say, or holds a kind of data the notebook cannot use.
        KeyError: a column named by a flag is not in the file's header.
    """
    if OWN_DATA_ENV["file"] not in env:
        return None
    with _environ(env):
        ds = OwnData.from_env().load()
    tasks = NOTEBOOK_TASKS.get(Path(notebook).name[:2])
    return check_kind(ds, tasks, f"Notebook {Path(notebook).stem}") if tasks else ds


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
    """Execute ``path`` with ``KIT_OUT=out`` (and ``env``); write the executed copy into ``out``.

    Args:
        path: the notebook.
        out: the run's folder (``KIT_OUT``): what the notebook writes, and the executed copy.
        timeout: seconds per cell, under a Jupyter kernel.
        env: environment variables set while the notebook runs (e.g. :func:`notebook_env`'s).
        in_process: run the code cells in this Python process, in one namespace, instead of a Jupyter kernel.

    Returns:
        The executed notebook's path, in ``out`` (written even when a cell fails or the run is stopped).

    Raises:
        CellError: a cell failed in an in-process run.
        nbclient.exceptions.CellExecutionError: a cell failed under a kernel.
        KeyboardInterrupt: the run was stopped (Ctrl-C or ``kill``).
    """
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    # TensorFlow's C++ start-up lines (oneDNN, CUDA probing: INFO and WARNING) would land in the first cell's output:
    # the kernel writes them to its own stderr, which ipykernel forwards. Errors still show; a value you set wins.
    quiet = {} if "TF_CPP_MIN_LOG_LEVEL" in os.environ else {"TF_CPP_MIN_LOG_LEVEL": "2"}
    with _environ({**quiet, **(env or {}), "KIT_OUT": str(out)}):
        if in_process:
            dest = _run_in_process(Path(path), out, start)
        else:
            dest = _run_with_kernel(Path(path), out, timeout, start)
    print(
        f"[{time.time() - start:6.1f}s] done: {Path(path).name} "
        f"(backend {os.environ.get('KERAS_BACKEND', 'tensorflow')}, scale {os.environ.get('KIT_SCALE', 'smoke')})"
    )
    return dest


def _first_line(source: str) -> str:
    lines = [ln for ln in source.strip().splitlines() if not ln.startswith("# NBVAL")]
    return (lines or [""])[0][:60]


def _run_with_kernel(path: Path, out: Path, timeout: int, start: float) -> Path:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    _clear_outputs(code_cells)
    state = {"i": 0}

    def on_start(cell, cell_index, **kw):
        if cell.cell_type != "code":
            return
        state["i"] += 1
        print(
            f"[{time.time() - start:6.1f}s] cell {state['i']}/{len(code_cells)}: {_first_line(cell.source)}", flush=True
        )

    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.resolve())}},
        on_cell_start=on_start,
    )
    log = out / KERNEL_LOG
    with open(log, "w") as kernel_output:  # the kernel's own lines (TensorFlow's CUDA probing, Jupyter's warnings)
        try:
            client.execute(stdout=kernel_output, stderr=subprocess.STDOUT)
        except BaseException:
            _show_kernel_log(log)
            raise
        finally:
            dest = out / path.name
            nbformat.write(merge_streams(nb), dest)
    return dest


_OVERWRITTEN = re.compile(r"[^\n]*\r(?=[^\n])")  # a line's text before a carriage return that rewrites it


def merge_streams(nb):
    r"""One output per run of consecutive stream writes of a cell, with what a carriage return overwrote removed.

    A progress bar rewrites its line with ``\r`` hundreds of times; a terminal or JupyterLab shows the last state, a
    saved notebook would keep them all. This keeps what a person saw (as nbconvert's ``CoalesceStreamsPreprocessor``).

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


def _clear_outputs(cells) -> None:
    """Empty every code cell's outputs and execution count before a run.

    A run stopped or failed half-way must not leave the published notebook's outputs (another scale's, another
    machine's) under the cells it never reached.

    Args:
        cells: the notebook's code cells, emptied in place.
    """
    for cell in cells:
        cell["outputs"] = []
        cell["execution_count"] = None


class CellError(RuntimeError):
    """A cell failed in an in-process run (the executed notebook up to that cell is saved)."""


def _display_shim(outputs):
    """``display``/``HTML`` for a process without IPython: text goes to the cell's output."""

    def display(*objs, **kw):
        for obj in objs:
            html = getattr(obj, "_repr_html_", None)
            text = obj.to_string() if hasattr(obj, "to_string") else str(obj)
            data = {"text/plain": text}
            if html is not None:
                try:
                    data["text/html"] = html()
                except Exception:  # plain text is enough
                    pass
            outputs.append({"output_type": "display_data", "data": data, "metadata": {}})

    class HTML:
        def __init__(self, data):
            self.data = data

        def _repr_html_(self):
            return self.data

        def __str__(self):
            return self.data

    return display, HTML


def _install_display(display, HTML):
    """Point ``IPython.display.display``/``HTML`` at the shim (a stand-in module where IPython is absent)."""
    try:
        import IPython.display as real
    except ImportError:
        ipy, ipy_display = types.ModuleType("IPython"), types.ModuleType("IPython.display")
        ipy_display.display, ipy_display.HTML = display, HTML
        ipy.display, ipy.get_ipython, ipy.version_info = ipy_display, (lambda: None), (9, 0)  # as matplotlib asks
        sys.modules["IPython"], sys.modules["IPython.display"] = ipy, ipy_display

        def restore():
            sys.modules.pop("IPython", None)
            sys.modules.pop("IPython.display", None)

        return restore
    saved = real.display, real.HTML
    real.display, real.HTML = display, HTML

    def restore():
        real.display, real.HTML = saved

    return restore


def _run_in_process(path: Path, out: Path, start: float) -> Path:
    """Run the notebook's code cells in this process, one after the other in one namespace, as a kernel would.

    Each cell's printed text, displayed objects and figures become its outputs; the executed notebook is written to
    ``out`` even when a cell fails or the run is stopped.

    Args:
        path: the notebook (its cells run in its folder).
        out: the folder the executed copy goes to.
        start: when the run started (``time.time()``), for the progress lines.

    Returns:
        The executed notebook's path.

    Raises:
        CellError: a cell failed (the notebook up to it is saved).
        KeyboardInterrupt: the run was stopped (Ctrl-C or ``kill``) inside a cell.
    """
    plt = _agg_pyplot()
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    _clear_outputs(cells)
    outputs: list = []
    display, HTML = _display_shim(outputs)
    # the cells' `from IPython.display import display, HTML` get the shim, which records rich output
    restore = _install_display(display, HTML)
    show = plt.show = _show_figures(plt, outputs)
    namespace = {"__name__": "__main__", "display": display}
    old_cwd = os.getcwd()
    os.chdir(path.parent.resolve())
    dest = out / path.name
    failed = stopped = None
    try:
        for i, cell in enumerate(cells, 1):
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            print(f"[{time.time() - start:6.1f}s] cell {i}/{len(cells)}: {_first_line(source)}", flush=True)
            outputs.clear()
            text, failed, stopped = _run_cell(source, i, namespace, display)
            show()
            cell["execution_count"] = i
            cell["outputs"] = _cell_outputs(text, outputs, failed, stopped)
            if failed or stopped:
                break
    finally:
        os.chdir(old_cwd)
        restore()
        dest.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    if stopped:
        raise KeyboardInterrupt
    if failed:
        raise CellError(f"cell {failed[0]} failed:\n{failed[1]}")
    return dest


def _agg_pyplot():
    """``matplotlib.pyplot`` on the Agg backend: figures are drawn to memory, never to a window."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _show_figures(plt, outputs: list):
    """A ``plt.show`` that records every open figure as a PNG in ``outputs``, then closes them."""

    def show(*a, **kw):
        for num in plt.get_fignums():
            buf = io.BytesIO()
            plt.figure(num).savefig(buf, format="png", dpi=80)
            outputs.append(
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"image/png": base64.b64encode(buf.getvalue()).decode()},
                }
            )
        plt.close("all")

    return show


def _run_cell(source: str, i: int, namespace: dict, display) -> tuple[str, tuple | None, int | None]:
    """Run cell ``i``'s ``source`` in ``namespace``, its printing shown and recorded, its last value displayed.

    Args:
        source: the cell's code.
        i: the cell's number (in its tracebacks' file name, ``<cell i>``).
        namespace: the run's one namespace (every cell's names).
        display: shows the value of a final bare expression (the shim's ``display``).

    Returns:
        ``(printed, failed, stopped)``: what the cell printed; ``(i, traceback)`` when it raised, else None; ``i``
        when it was stopped (Ctrl-C, or ``kill`` through kit run), else None.
    """
    buf = io.StringIO()
    failed = stopped = None
    try:
        with contextlib.redirect_stdout(_Tee(buf, sys.stdout)):
            body, last = _split_last_expression(source)
            exec(compile(body, f"<cell {i}>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, f"<cell {i}>", "eval"), namespace)
                if value is not None:
                    display(value)
    except KeyboardInterrupt:  # Ctrl-C, or `kill` through kit run: keep what the cell printed so far
        stopped = i
    except Exception:  # reported and saved, then raised
        failed = (i, traceback.format_exc())
    return buf.getvalue(), failed, stopped


def _cell_outputs(printed: str, outputs: list, failed: tuple | None, stopped: int | None) -> list:
    """A run cell's outputs: its printed text, its displays and figures, then its error or where the run stopped."""
    cell_outputs = ([{"output_type": "stream", "name": "stdout", "text": printed}] if printed else []) + list(outputs)
    if failed:
        cell_outputs.append(
            {
                "output_type": "error",
                "ename": "Error",
                "evalue": failed[1][-500:],
                "traceback": failed[1].splitlines(),
            }
        )
    elif stopped:
        cell_outputs.append(
            {"output_type": "stream", "name": "stderr", "text": "stopped here: the cells below did not run\n"}
        )
    return cell_outputs


def _split_last_expression(source: str):
    """A cell as (statements, last expression or None): Jupyter shows the value of a final bare expression."""
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
        return tree, ast.Expression(last.value)
    return tree, None


class _Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)
        return len(s)

    def flush(self):
        for st in self.streams:
            st.flush()
