"""The ``kit`` command: ``kit info | data list|fetch|show | run NN | test``.

>>> main(["data", "list"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import config, lab, runner, site
from .data import Columns, OwnData, registry
from .devices import describe_devices
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

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)  # `kill` stops like Ctrl-C: the notebook so far is kept
    try:
        result = runner.run_notebook(nb, out, timeout=args.timeout, env=env, in_process=args.in_process)
    except KeyboardInterrupt:
        print(f"\nstopped; the notebook so far is in {out}", file=sys.stderr)
        return 130
    except Exception as exc:  # a cell failed: the partial notebook is saved for reading
        failed = isinstance(exc, runner.CellError)
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


#: The backend each notebook runs on in `kit test` (CI): every notebook on one, all three backends covered, each
#: on the one that runs it fastest on a 2-core CPU (measured in CI's setting, 1 thread): 01 on torch (the BiLSTM's
#: fused fast path), 02 on torch (13.5 minutes against 21.7-27.7 on jax, 2026-11-26), 03 on torch (it builds 8 kinds of
#: model and jax compiles each: 18 minutes against 27.6 on jax), 04 on jax (5.4 minutes from a cold compile cache
#: against 10.9 on torch, 2026-11-26), 00 on tensorflow (so the TensorFlow path of a whole lesson runs). Same checks
#: and verdicts on either backend (notebook 02 at 240 stage-1 steps: all but TLM vs MiniLM on RT, p = .005 on torch,
#: .055 on jax; its 160-step smoke sizes of 2026-11-26 have run on torch only).
NOTEBOOK_BACKENDS = {"00": "tensorflow", "01": "torch", "02": "torch", "03": "torch", "04": "jax"}

#: Minutes each run of ``kit test`` took in a clean-clone ``.ci/run`` on 2026-11-26 (2 cores, 2 runs side by side, 1
#: thread each; the whole run 2,055 s): only the order of the queue reads them
#: (the longest first, so no long run starts last while the other worker idles).
EXPECTED_MINUTES = {  # measured in CI (benchmarks/README.md, 2026-11-26, commit a0c7189)
    "pytest jax": 10.2,
    "pytest tensorflow": 10.1,
    "pytest torch": 6.6,  # with notebook 03 on a treebank, the lab and site browser tests
    "00": 3.2,
    "01": 6.4,
    "02": 6.4,
    "03": 7.3,
    "04": 10.0,
    "solutions": 2.7,
}


def notebook_plan(root: Path, mapping: dict, every: list[str] | None = None) -> dict[str, list[str]]:
    """Backend -> notebooks to run on it: each notebook on its backend in ``mapping`` (or on all of ``every``).

    Args:
        root: the repository's root (its ``notebooks/NN_*.ipynb`` are planned).
        mapping: notebook number (``"00"``) -> its backend; a notebook not in it runs on torch.
        every: run every notebook on each of these backends instead; None: ``mapping``.

    Returns:
        Backend -> the notebooks' paths relative to ``root``, in name order.

    Example:
        >>> plan = notebook_plan(Path(__file__).resolve().parent.parent, {"00": "jax", "01": "torch"})
        >>> plan["jax"][:1], plan["torch"][:1]
        (['notebooks/00_start_here.ipynb'], ['notebooks/01_pretrain_or_not.ipynb'])
    """
    plan: dict[str, list[str]] = {}
    for nb in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        rel = str(nb.relative_to(root))
        for backend in every or [mapping.get(nb.name[:2], "torch")]:
            plan.setdefault(backend, []).append(rel)
    return plan


def test_jobs(root: Path, backends, pytest_args, notebooks: dict[str, list[str]]) -> list[tuple[str, list, dict]]:
    """``(label, command, env)`` for every run of ``kit test``, pytest first, then the notebooks, then the solutions.

    Pytest runs once per backend (the tests marked ``one_backend`` under the first backend only), each notebook under
    nbval on its backend, and the notebooks' exercise solutions under the first backend.

    Args:
        root: the repository's root (the runs' temp and output folders go under ``root/runs``).
        backends: the backends pytest runs on, the first one running the ``one_backend`` tests too.
        pytest_args: extra pytest arguments, added to each pytest run.
        notebooks: backend -> notebooks to run on it (:func:`notebook_plan`); empty: no notebooks, no solutions.

    Returns:
        One ``(label, command, env)`` per run: its name, its argument list, the environment variables it sets.
    """
    jobs = [_pytest_job(root, b, pytest_args, one_backend=i == 0) for i, b in enumerate(backends)]
    for b, targets in notebooks.items():
        for nb in targets:
            jobs.append(_notebook_job(root, b, nb))
    if notebooks:  # every exercise's solution (kit/exercises.py), at smoke, under the first backend
        jobs.append(
            (
                f"solutions on {backends[0]}",
                [sys.executable, "-m", "kit.exercises", "--all"],
                {"KERAS_BACKEND": backends[0], "KIT_SCALE": "smoke", "KIT_OUT_ROOT": str(root / "runs" / "solutions")},
            )
        )
    return jobs


def _pytest_job(root: Path, backend: str, pytest_args, one_backend: bool) -> tuple[str, list, dict]:
    """``kit test``'s pytest run on ``backend``, in a temp folder of its own (side by side runs never share one).

    Args:
        root: the repository's root.
        backend: the run's ``KERAS_BACKEND``.
        pytest_args: extra pytest arguments, last on the command line.
        one_backend: whether this run also takes the tests marked ``one_backend`` (the first backend's run does).

    Returns:
        ``("pytest <backend>", command, env)``.
    """
    return (
        f"pytest {backend}",
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",  # own temp folder: runs
            f"--basetemp={root / 'runs' / 'pytest-tmp' / backend}",
            "tests",  # side by side never share
            *([] if one_backend else ["-m", "not one_backend"]),
            *pytest_args,
        ],  # see pyproject's one_backend
        {"KERAS_BACKEND": backend},
    )


def _notebook_job(root: Path, backend: str, notebook: str) -> tuple[str, list, dict]:
    """``kit test``'s nbval run of ``notebook`` on ``backend``, at smoke, its outputs under ``runs/nbval-<backend>``.

    Args:
        root: the repository's root.
        backend: the run's ``KERAS_BACKEND``.
        notebook: the notebook's path, relative to ``root``.

    Returns:
        ``("<notebook's name> on <backend>", command, env)``.
    """
    return (
        f"{Path(notebook).stem} on {backend}",
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval-lax",
            "--nbval-current-env",
            "--nbval-cell-timeout",
            "1800",
            "--nbval-sanitize-with",
            "notebooks/nbval_sanitize.cfg",
            notebook,
        ],
        {"KERAS_BACKEND": backend, "KIT_SCALE": "smoke", "KIT_OUT_ROOT": str(root / "runs" / f"nbval-{backend}")},
    )


def longest_first(jobs: list) -> list:
    """``jobs`` in the order ``kit test`` starts them: by :data:`EXPECTED_MINUTES`, longest first (unknown: 5).

    The longest first, so no long run starts last while the other worker idles.

    Args:
        jobs: ``(label, command, env)`` runs (:func:`test_jobs`); only the label is read (:func:`expected_minutes`).

    Returns:
        A new list, sorted.

    Example:
        >>> [j[0] for j in longest_first([("solutions on torch",), ("00_start_here on tensorflow",), ("pytest jax",)])]
        ['pytest jax', '00_start_here on tensorflow', 'solutions on torch']
    """
    return sorted(jobs, key=lambda job: expected_minutes(job[0]), reverse=True)


def expected_minutes(label: str) -> float:
    """A run's :data:`EXPECTED_MINUTES`, found by its label, its name or its notebook number; 5 when unknown.

    Args:
        label: the run's label: looked up whole ("pytest jax"), by its name before " on " ("solutions on torch"),
            then by its notebook number ("02_tlm on jax").

    Returns:
        The minutes the run took in CI, or 5 for a run not in the table.

    Example:
        >>> expected_minutes("02_tlm on jax") == EXPECTED_MINUTES["02"], expected_minutes("new job")
        (True, 5)
    """
    for key in (label, label.split(" on ")[0], label[:2]):
        if key in EXPECTED_MINUTES:
            return EXPECTED_MINUTES[key]
    return 5


def _test(args) -> int:
    """Pytest once per backend (fresh processes) and every notebook with nbval on its backend, ``--jobs`` at a time.

    With more than one job at a time, each job's output goes to ``runs/test-logs/<job>.log`` and is shown when the job
    ends (in full when it failed); each job gets ``cpu_count // jobs`` threads (``OMP_NUM_THREADS``, XLA's flags).
    """
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    root = Path(__file__).resolve().parent.parent
    plan = _test_notebook_plan(root, args) if args.notebooks else {}
    jobs = test_jobs(root, backends, args.pytest_args, plan)
    width = max(1, min(args.jobs, len(jobs)))
    threads = max(1, (os.cpu_count() or 1) // width)
    extra = _thread_env(threads) if width > 1 else {}
    logs = root / "runs" / "test-logs"
    logs.mkdir(parents=True, exist_ok=True)
    (root / "runs" / "pytest-tmp").mkdir(parents=True, exist_ok=True)  # pytest makes --basetemp, not its parents
    pool = _JobPool(root, logs, width, extra)
    queue = longest_first(jobs)
    print(
        f"kit test: {len(jobs)} runs, {width} at a time" + (f" ({threads} thread(s) each)" if width > 1 else ""),
        flush=True,
    )
    failed = pool.run(queue)
    print(
        f"\nkit test: {len(failed)} of {len(jobs)} runs failed "
        f"in {time.time() - pool.total:.0f}s" + ("".join(f"\n  FAILED: {f}" for f in failed))
    )
    return 1 if failed else 0


def _test_notebook_plan(root: Path, args) -> dict[str, list[str]]:
    """The notebooks ``kit test`` runs: :data:`NOTEBOOK_BACKENDS`, changed by the flags that override it.

    Args:
        root: the repository's root (its ``notebooks/`` folder is planned).
        args: the parsed ``kit test`` flags (``--notebook-backends``, ``--all-notebooks-on``).

    Returns:
        Backend -> notebooks to run on it, as :func:`notebook_plan` gives it.
    """
    mapping = dict(NOTEBOOK_BACKENDS)
    for item in filter(None, (x.strip() for x in args.notebook_backends.split(","))):
        nb, _, b = item.partition("=")
        mapping[nb] = b
    every = [b.strip() for b in args.all_notebooks_on.split(",") if b.strip()] if args.all_notebooks_on else None
    return notebook_plan(root, mapping, every)


def _thread_env(threads: int) -> dict[str, str]:
    """The thread limits each of several side-by-side runs gets (what the environment already sets wins).

    Args:
        threads: threads per run (``cpu_count // jobs``); at 1, XLA's multi-threaded Eigen is turned off too.

    Returns:
        ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` and ``XLA_FLAGS``, less those empty or set in ``os.environ``.
    """
    extra = {
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "XLA_FLAGS": (
            os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false"
            if threads == 1
            else os.environ.get("XLA_FLAGS", "")
        ).strip(),
    }
    return {k: v for k, v in extra.items() if v and k not in os.environ}


class _JobPool:
    """``kit test``'s runs, ``width`` at a time on as many threads, each run a fresh process.

    One at a time, a run prints straight to the terminal; side by side, each writes to ``logs/<label>.log``, shown
    when it ends (its last 3 lines, or all of it when it failed).

    Args:
        root: the folder every run starts in (the repository's root).
        logs: where the side-by-side runs' logs go.
        width: runs at a time.
        extra: environment variables every run gets (thread limits, from :func:`_thread_env`).
    """

    def __init__(self, root: Path, logs: Path, width: int, extra: dict):
        self.root, self.logs, self.width, self.extra = root, logs, width, extra
        self.failed, self.lock, self.total = [], threading.Lock(), time.time()

    def run(self, queue: list) -> list[str]:
        """Run every ``(label, command, env)`` of ``queue`` (emptied, in order); returns the failed runs' commands."""
        pool = [threading.Thread(target=self._worker, args=(queue,)) for _ in range(self.width)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        return self.failed

    def _worker(self, queue: list) -> None:
        """Take the next run from ``queue`` and run it, until none is left."""
        while True:
            with self.lock:
                if not queue:
                    return
                job = queue.pop(0)
            self._run_one(*job)

    def _run_one(self, label: str, cmd: list, env_extra: dict) -> None:
        """Run ``cmd`` with ``env_extra`` set, show how it ended, and note the run when it failed."""
        env = dict(os.environ, **self.extra, **env_extra)
        shown = " ".join(f"{k}={v}" for k, v in env_extra.items()) + " " + " ".join(cmd)
        t = time.time()
        if self.width == 1:
            print(f"\n$ {shown}", flush=True)
            code = subprocess.call(cmd, env=env, cwd=self.root)
            text = ""
        else:
            code, text = self._run_logged(label, cmd, env)
        with self.lock:
            if self.width > 1:
                lines = text.rstrip().splitlines()
                print(f"\n$ {shown}\n" + "\n".join(lines if code else lines[-3:]), flush=True)
            print(f"-> {label}: exit {code} in {time.time() - t:.0f}s", flush=True)
            if code != 0:
                self.failed.append(shown)

    def _run_logged(self, label: str, cmd: list, env: dict) -> tuple[int, str]:
        """Run ``cmd`` with its output in its log file; returns its exit code and the log's text."""
        with self.lock:
            print(f"[{time.time() - self.total:5.0f}s] start: {label}", flush=True)
        log = self.logs / (label.replace(" ", "_") + ".log")
        with open(log, "w") as f:
            code = subprocess.call(cmd, env=env, cwd=self.root, stdout=f, stderr=subprocess.STDOUT)
        return code, log.read_text(errors="replace")


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
        index = site.build_site(out=args.out)
    except (ModuleNotFoundError, RuntimeError) as exc:
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
        + ", ".join(f"{k}={v}" for k, v in NOTEBOOK_BACKENDS.items())
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
    """The ``kit`` command: parse ``argv`` (default: the command line), check ``KIT_SCALE``, run the sub-command.

    Args:
        argv: the arguments after ``kit``, e.g. ``["data", "list"]``; None reads ``sys.argv``.

    Returns:
        The exit code: 0 when it worked, 1 when a run or a data set failed, 2 for a bad ``KIT_SCALE`` or a missing
        data set name.
    """
    args = _parser().parse_args(argv)
    try:
        config.scale()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return {"info": _info, "data": _data, "run": _run, "lab": _lab, "site": _site, "test": _test}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
