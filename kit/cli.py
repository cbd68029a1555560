"""The ``kit`` command: ``kit info | data list|fetch|show | run NN | test``.

>>> main(["data", "list"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import sys
import time
from pathlib import Path

from . import config, course_site, lab, runner, testplan
from .data import Columns, OwnData, registry
from .devices import describe_devices
from .inprocess import CellError, Stopped
from .session import tensorflow_status


def _info(args) -> int:
    scale = config.scale()
    backend = os.environ.get("KERAS_BACKEND", "tensorflow (Keras default)")
    print(f"kit           {__import__('kit').__version__}")
    print(f"backend       {backend}   (switch: export KERAS_BACKEND=jax|tensorflow|torch)")
    print(f"scale         {scale}: {config.SCALES[scale]['description']}   (KIT_SCALE=smoke|medium|full)")
    print(f"precision     {config.precision()}   (KIT_PRECISION=float32|mixed_bfloat16|mixed_float16)")
    print(f"tensorflow    {tensorflow_status()}")
    print("data options  KIT_DATA_DIR, KIT_OFFLINE=1, KIT_ALLOW_UNVERIFIED=1, KIT_DATA_<NAME>=path; sizes: KIT_SIZES")
    print(f"cache dir     {config.data_dir()}   (KIT_DATA_DIR)")
    for pkg in ("keras", "keras-hub", "tokenizers", "tensorflow", "jax", "torch", "numpy", "scikit-learn", "rank-bm25"):
        try:
            print(f"{pkg:<13} {md.version(pkg)}")
        except md.PackageNotFoundError:
            print(f"{pkg:<13} (not installed)")
    print(f"devices       {describe_devices()}")
    return 0


def _data(args) -> int:
    if args.action == "list":
        print(f"{'name':<19} {'offline':<8} {'task':<16} {'size':<34} licence")
        for name, s in registry.REGISTRY.items():
            print(f"{name:<19} {'yes' if s.offline else 'no':<8} {s.task:<16} {s.size:<34} {s.licence}")
        print(f"{'general_corpus':<19} {'yes':<8} {'corpus':<16} {'the four corpora above, joined':<34} see parts")
        print("\nOptions: the *_snippets and tweets sets take target=binary|5class|rating.")
        return 0
    if not args.name:
        print("kit data fetch|show needs a dataset name; see `kit data list`.", file=sys.stderr)
        return 2
    try:
        if args.action == "fetch":
            where = registry.fetch(args.name, path=args.path)
            where = ", ".join(map(str, where)) if isinstance(where, list) else where
            print(f"{args.name}: ready at {where}")
            return 0
        opts = {"target": args.target} if args.target else {}
        ds = registry.load(args.name, path=args.path, **opts)
    except (KeyError, ValueError, FileNotFoundError, TypeError) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 1
    print(ds.summary())
    print(f"source: {ds.source}")
    split = "all" if ds.task == "corpus" else "train"
    frame = ds.to_frame(split).head(args.n)
    for col in frame.columns:
        if frame[col].dtype == object:
            frame[col] = frame[col].map(lambda v: " / ".join(v.split("\n")) if isinstance(v, str) else v)
    import pandas as pd

    with pd.option_context("display.max_colwidth", 100, "display.width", 160):
        print(frame.to_string())
    return 0


def _run(args) -> int:
    try:
        nb = runner.find_notebook(args.notebook)
        env = _data_env(args, nb)  # a bad file stops here, in seconds, before a kernel starts
    except (FileNotFoundError, ValueError, KeyError, IsADirectoryError, ImportError) as exc:
        print(f"error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 1
    if args.scale:
        env["KIT_SCALE"] = args.scale
    if args.precision:
        env["KIT_PRECISION"] = args.precision
    out = Path(args.out) if args.out else Path("runs") / f"{nb.stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    try:  # Ctrl-C or SIGTERM: the kernel stops, the notebook so far is saved, one line says where
        result = runner.run_notebook(nb, out, timeout=args.timeout, env=env, in_process=args.in_process)
    except Stopped as stop:
        print(stop, file=sys.stderr)
        return stop.exit_code
    except KeyboardInterrupt:
        print(f"stopped; the notebook so far is in {out}", file=sys.stderr)
        return 130
    except Exception as exc:  # a cell failed: the partial notebook is saved for reading
        failed = isinstance(exc, CellError)
        if not failed:
            from nbclient.exceptions import CellExecutionError

            failed = isinstance(exc, CellExecutionError)
        if not failed:
            raise
        print(
            f"\nerror: a cell of {nb.name} failed; the executed notebook up to that cell is in {out}.\n"
            f"{str(exc)[-2000:]}",
            file=sys.stderr,
        )
        return 1
    print(f"\nwrote {result}")
    for f in sorted(out.iterdir()):
        print(f"  {f.name}")
    return 0


def _test(args) -> int:
    """Pytest once per backend (fresh processes) and every notebook with nbval on its backend (:mod:`kit.testplan`)."""
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    root = testplan.REPO
    overrides = (args.notebook_backends, args.all_notebooks_on)
    try:
        plan = testplan.plan_with_overrides(root, *overrides) if args.notebooks else {}
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return testplan.run(root, testplan.test_jobs(root, backends, args.pytest_args, plan), args.jobs)


def _parser() -> argparse.ArgumentParser:
    """The ``kit`` command's parser: a sub-command each for ``info``, ``data``, ``run``, ``lab``, ``site``, ``test``."""
    parser = argparse.ArgumentParser(prog="kit", description="NLP course kit: data, models and notebooks.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("info", help="backend, devices, versions, scale, cache dir")
    _add_data_parser(sub)
    _add_run_parser(sub)
    _add_lab_parser(sub)
    s = sub.add_parser("site", help="build the course's web site into site/ (from the notebooks as committed)")
    s.add_argument("--out", help="the output folder (default site/)")
    _add_test_parser(sub)
    return parser


def _add_data_parser(sub) -> None:
    """``kit data list|fetch|show [name]``."""
    d = sub.add_parser("data", help="list, fetch or show data sets")
    d.add_argument("action", choices=["list", "fetch", "show"])
    d.add_argument("name", nargs="?")
    d.add_argument("--path", help="your own copy of the data (folder or original archive)")
    d.add_argument("--target", help="binary|5class|rating for the VADER sets")
    d.add_argument("-n", type=int, default=5, help="rows to show")


def _add_run_parser(sub) -> None:
    """``kit run NN``: the run's folder, scale and precision, then the user's data (:func:`_add_run_data_flags`)."""
    r = sub.add_parser(
        "run",
        help="execute a notebook headless at the current scale (KIT_SCALE)",
        description="Execute a notebook headless. With --data it reruns on your data: "
        "kit run 01 --data my.csv --text review --label stars (also .jsonl, .parquet or a save_to_disk folder; "
        "pairs: --text-a q1 --text-b q2; notebook 03's tagging: kit run 03 --data treebank.conllu, or my.conll).",
    )
    r.add_argument("notebook", help="its number (00, 01, ...) or a path")
    r.add_argument("--out", help="output folder (default runs/<notebook>-<time>)")
    r.add_argument("--timeout", type=int, default=3600, help="seconds per cell")
    r.add_argument("--scale", choices=["smoke", "medium", "full"], help="sets KIT_SCALE for this run")
    r.add_argument(
        "--precision", choices=["float32", "mixed_bfloat16", "mixed_float16"], help="sets KIT_PRECISION for this run"
    )
    _add_run_data_flags(r)
    r.add_argument(
        "--in-process",
        dest="in_process",
        action="store_true",
        help="run the cells in this Python process (no Jupyter kernel needed, e.g. on a bare GPU box)",
    )


def _data_env(args, notebook: Path) -> dict:
    """The kernel's variables for the user's data (``{}`` without ``--data``), its flags checked and its file read."""
    columns = Columns(text=args.text, label=args.label, text_a=args.text_a, text_b=args.text_b)
    flags = {"encoding": args.encoding, "delimiter": args.delimiter, "tag_column": args.tag_column}
    data = OwnData.from_flags(args.data, columns, task=args.task, skip_empty=args.skip_empty, **flags)
    env = data.env() if data else {}
    runner.check_data(notebook, env)
    return env


def _add_run_data_flags(r) -> None:
    """``kit run``'s flags for the user's own file: ``--data``, how to read it, and its columns or tags."""
    r.add_argument(
        "--data",
        help="your data instead of the notebook's data set: a CSV/TSV file (with a header row), JSON Lines "
        "(.jsonl), Parquet (.parquet), or a folder written by datasets' save_to_disk (its splits kept), with "
        "--text/--label or --text-a/--text-b; for notebook 03's tagging, CoNLL-U (.conllu, a Universal "
        "Dependencies treebank, or a folder of its train/dev/test files) or a CoNLL file (a token per line, "
        "its tag in a column)",
    )
    r.add_argument("--encoding", help="a text file's encoding when it is not UTF-8 (e.g. cp1252, latin-1)")
    r.add_argument("--delimiter", help="a CSV's delimiter when it is not found from the header (, TAB ; |)")
    r.add_argument("--skip-empty", action="store_true", help="drop rows with an empty text instead of stopping")
    r.add_argument("--text", help="the column with the texts")
    r.add_argument("--label", help="the column with the labels (classes) or scores (regression)")
    r.add_argument("--text-a", dest="text_a", help="sentence pairs: the first text's column")
    r.add_argument("--text-b", dest="text_b", help="sentence pairs: the second text's column")
    r.add_argument(
        "--task",
        choices=["classification", "regression", "pairs", "pair_regression", "tagging"],
        help="override the task the kit infers from the labels (tagging: a CoNLL file of tagged tokens)",
    )
    r.add_argument(
        "--tag-column",
        dest="tag_column",
        help="tagged tokens: the tags' column. CoNLL: a number from 0 (0 = the token; default -1, the last). "
        "CoNLL-U: a field's name (upos, the default; xpos, deprel ...) or its number as CoNLL-U numbers its "
        "fields, 1-10 (1 ID, 2 FORM, 3 LEMMA, 4 UPOS, 5 XPOS ...)",
    )


def _add_lab_parser(sub) -> None:
    """``kit lab``: JupyterLab on the notebooks, the kernels' backend and scale, and the user's data."""
    lab = sub.add_parser(
        "lab",
        help="open the notebooks in JupyterLab, with a kernel of the kit's environment",
        description="Start JupyterLab on notebooks/. Its kernels get this environment: the backend (--backend or "
        "KERAS_BACKEND), the scale (--scale or KIT_SCALE) and your data (--data ... as for kit run).",
    )
    lab.add_argument("--backend", choices=["jax", "tensorflow", "torch"], help="sets KERAS_BACKEND for the kernels")
    lab.add_argument("--scale", choices=["smoke", "medium", "full"], help="sets KIT_SCALE for the kernels")
    lab.add_argument("--notebooks", help="the folder to open (default: the kit's notebooks/)")
    lab.add_argument("--port", type=int, help="the server's port (default 8888, or the next free one)")
    lab.add_argument("--token", help="the login token (default: a new one, printed in the URL)")
    lab.add_argument("--no-browser", dest="open_browser", action="store_false", help="do not open a browser tab")
    _add_run_data_flags(lab)


def _lab(args) -> int:
    try:
        lab.check_installed()
        data = _data_env(args, Path("lab"))  # a bad file stops here, before the server starts
    except (FileNotFoundError, ValueError, KeyError, IsADirectoryError, ImportError) as exc:
        print(f"error: {exc.args[0] if isinstance(exc, KeyError) else exc}", file=sys.stderr)
        return 1
    root = Path(args.notebooks) if args.notebooks else runner.notebooks_dir()
    env = lab.lab_env(args.backend, args.scale, data)
    print(lab.lab_banner(env, root), flush=True)
    command = lab.lab_command(root, port=args.port, token=args.token, open_browser=args.open_browser)
    return lab.start(command, env)


def _site(args) -> int:
    start = time.time()
    try:
        index = course_site.build_site(out=args.out)
    except (ModuleNotFoundError, RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"the site: {index} (built in {time.time() - start:.0f} s; open it in a browser, no server needed)")
    return 0


def _add_test_parser(sub) -> None:
    """``kit test``: the backends, which notebooks run where, how many runs at a time, extra pytest arguments."""
    t = sub.add_parser("test", help="the test suite on every backend, then the notebooks (what CI runs)")
    t.add_argument(
        "--backends",
        default="torch,jax,tensorflow",
        help="pytest once per backend; the first also runs the tests marked one_backend (torch: it runs "
        "the whole suite in ~3 minutes on a CPU, where jax and tensorflow spend 15-20 compiling)",
    )
    t.add_argument(
        "--notebook-backends",
        default="",
        help="override which backend runs a notebook, e.g. 02=torch,03=tensorflow (defaults: "
        + ", ".join(f"{k}={v}" for k, v in testplan.notebook_backends().items())
        + ")",
    )
    t.add_argument(
        "--all-notebooks-on",
        dest="all_notebooks_on",
        default="",
        help="run every notebook on each of these backends instead, e.g. jax,tensorflow,torch",
    )
    t.add_argument("--no-notebooks", dest="notebooks", action="store_false")
    t.add_argument(
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="runs at a time (default: 2 where there are 2 or more CPU cores); each gets cores / jobs threads",
    )
    t.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")


def main(argv=None) -> int:
    """The ``kit`` command on ``argv`` (default: command line); exit 0, 1 (a run or data set failed), 2 (bad input)."""
    args = _parser().parse_args(argv)
    try:
        config.scale()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return {"info": _info, "data": _data, "run": _run, "lab": _lab, "site": _site, "test": _test}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
