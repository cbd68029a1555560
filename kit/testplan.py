"""What ``kit test`` runs (CI): pytest once per backend, each notebook under nbval on its backend, the solutions.

:mod:`kit.cli` calls :func:`run`; notebooks, CI backends and minutes: :mod:`kit.notebooks`; why: benchmarks/README.md.

>>> plan = notebook_plan(REPO)
>>> plan["tensorflow"], plan["jax"]
(['notebooks/00_start_here.ipynb'], ['notebooks/01_pretrain_or_not.ipynb'])
>>> [job[0] for job in longest_first(test_jobs(REPO, ["torch"], [], plan))][:2]
['pytest torch', '02_tlm on torch']
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import notebooks

#: The repository's root (a source checkout): its ``notebooks/``, ``tests/`` and ``runs/``.
REPO = Path(__file__).resolve().parent.parent
#: The minutes :func:`expected_minutes` gives a run it does not know.
UNKNOWN_MINUTES = 5
#: nbval's limit on one notebook cell, in seconds: a hang fails, a slow sweep does not. On a 2-core CPU at one thread,
#: beside another job, 04's sweep on tensorflow (``--all-notebooks-on tensorflow``) took 58.5 minutes and 03's about
#: 42 (benchmarks/README.md); on CI's backends the longest takes about 13.
CELL_TIMEOUT_S = 5400


def notebook_backends() -> dict[str, str]:
    """Notebook number -> the backend ``kit test`` runs it on (:data:`kit.notebooks.NOTEBOOKS`).

    Example:
        >>> notebook_backends()["00"]
        'tensorflow'
    """
    return {nb.number: nb.backend for nb in notebooks.NOTEBOOKS}


def notebook_plan(root: Path, mapping: dict | None = None, every: list[str] | None = None) -> dict[str, list[str]]:
    """Backend -> notebook paths (relative to ``root``, registry order): each notebook on its CI backend.

    ``mapping`` (``{"00": "jax"}``) replaces a notebook's backend; ``every``: every notebook on each of these backends.
    Raises ValueError when the registry and ``root/notebooks`` disagree (:func:`kit.notebooks.check_folder`).

    Example:
        >>> notebook_plan(REPO, {"00": "jax"}, None)["jax"]
        ['notebooks/00_start_here.ipynb', 'notebooks/01_pretrain_or_not.ipynb']
    """
    backends = {**notebook_backends(), **(mapping or {})}
    plan: dict[str, list[str]] = {}
    for nb in notebooks.check_folder(Path(root) / "notebooks"):
        for backend in every or [backends[nb.name[:2]]]:
            plan.setdefault(backend, []).append(str(nb.relative_to(root)))
    return plan


def plan_with_overrides(root: Path, overrides: str = "", every: str = "") -> dict[str, list[str]]:
    """:func:`notebook_plan` from ``kit test``'s flags.

    ``overrides``: ``--notebook-backends`` (``"02=torch,03=tensorflow"``); ``every``: ``--all-notebooks-on``
    (``"jax,tensorflow,torch"``; empty: each notebook on its backend).

    Example:
        >>> sorted(plan_with_overrides(REPO, "00=torch", ""))
        ['jax', 'torch']
    """
    mapping = {}
    for item in filter(None, (x.strip() for x in overrides.split(","))):
        nb, _, backend = item.partition("=")
        mapping[nb] = backend
    backends = [b.strip() for b in every.split(",") if b.strip()] or None
    return notebook_plan(root, mapping, backends)


def test_jobs(root: Path, backends, pytest_args, plan: dict[str, list[str]]) -> list[tuple[str, list, dict]]:
    """``(label, command, env)`` for each run of ``kit test``: pytest per backend, then notebooks, then the solutions.

    The first of ``backends`` also runs the ``one_backend`` tests and the solutions (a run per planned notebook: each
    has exercises, tests/test_exercises.py); ``pytest_args`` go to each pytest run; an empty ``plan``
    (:func:`notebook_plan`): no notebooks, no solutions. Temp and output folders: ``root/runs``.
    """
    jobs = [_pytest_job(root, b, pytest_args, one_backend=i == 0) for i, b in enumerate(backends)]
    for b, targets in plan.items():
        for nb in targets:
            jobs.append(_notebook_job(root, b, nb))
    if plan:  # every exercise's solution (kit/exercises.py), at smoke, under the first backend: a run per notebook
        planned = {Path(nb).name for targets in plan.values() for nb in targets}
        for nb in notebooks.check_folder(Path(root) / "notebooks"):
            if nb.name in planned:
                jobs.append(_solutions_job(root, backends[0], nb))
    return jobs


def _solutions_job(root: Path, backend: str, notebook: Path) -> tuple[str, list, dict]:
    """``kit test``'s run of one notebook's exercise solutions on ``backend``, at smoke.

    One run per notebook, not one for all: short runs at the end of the queue keep both workers busy to the last minute
    (benchmarks/README.md, 2026-11-30).
    """
    return (
        f"solutions {notebook.name[:2]} on {backend}",
        [sys.executable, "-m", "kit.exercises", notebook.name[:2]],
        {"KERAS_BACKEND": backend, "KIT_SCALE": "smoke", "KIT_OUT_ROOT": str(root / "runs" / "solutions")},
    )


def _pytest_job(root: Path, backend: str, pytest_args, one_backend: bool) -> tuple[str, list, dict]:
    """``kit test``'s pytest run on ``backend``, in a temp folder of its own (side by side runs never share one)."""
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
    """``kit test``'s nbval run of ``notebook`` on ``backend``, at smoke, its outputs under ``runs/nbval-<backend>``."""
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
            str(CELL_TIMEOUT_S),
            "--nbval-sanitize-with",
            "tests/nbval_sanitize.cfg",
            notebook,
        ],
        {"KERAS_BACKEND": backend, "KIT_SCALE": "smoke", "KIT_OUT_ROOT": str(root / "runs" / f"nbval-{backend}")},
    )


def longest_first(jobs: list) -> list:
    """``jobs`` (labels read) as a new list, longest :func:`expected_minutes` first (stable): no long run starts last.

    Example:
        >>> [j[0] for j in longest_first([("solutions 01 on torch",), ("00_start_here on jax",), ("pytest jax",)])]
        ['pytest jax', '00_start_here on jax', 'solutions 01 on torch']
    """
    return sorted(jobs, key=lambda job: expected_minutes(job[0]), reverse=True)


def expected_minutes(label: str) -> float:
    """The minutes a run took in CI (:mod:`kit.notebooks`), else :data:`UNKNOWN_MINUTES`.

    ``label`` is looked up whole in :data:`kit.notebooks.OTHER_RUN_MINUTES` ("pytest jax"), then its name before " on "
    ("solutions 02 on torch"), then its notebook number ("02_tlm on jax").

    Example:
        >>> expected_minutes("02_tlm on jax") == notebooks.notebook("02").minutes, expected_minutes("new job")
        (True, 5)
    """
    for key in (label, label.split(" on ")[0]):
        if key in notebooks.OTHER_RUN_MINUTES:
            return notebooks.OTHER_RUN_MINUTES[key]
    return next((nb.minutes for nb in notebooks.NOTEBOOKS if nb.number == label[:2]), UNKNOWN_MINUTES)


def run(root: Path, jobs: list, width: int) -> int:
    """Run ``jobs``, ``width`` at a time, longest first; print each end and a summary; 0 if all passed, else 1.

    With ``width`` > 1 each run logs to ``root/runs/test-logs/<run>.log`` (shown when it ends, whole on failure) and
    gets ``cpu_count // width`` threads (``OMP_NUM_THREADS``, XLA's flags).
    """
    width = max(1, min(width, len(jobs)))
    threads = max(1, (os.cpu_count() or 1) // width)
    extra = _thread_env(threads) if width > 1 else {}
    logs = root / "runs" / "test-logs"
    logs.mkdir(parents=True, exist_ok=True)
    (root / "runs" / "pytest-tmp").mkdir(parents=True, exist_ok=True)  # pytest makes --basetemp, not its parents
    pool = _JobPool(root, logs, width, extra)
    print(
        f"kit test: {len(jobs)} runs, {width} at a time" + (f" ({threads} thread(s) each)" if width > 1 else ""),
        flush=True,
    )
    failed = pool.run(longest_first(jobs))
    print(
        f"\nkit test: {len(failed)} of {len(jobs)} runs failed "
        f"in {time.time() - pool.total:.0f}s" + ("".join(f"\n  FAILED: {f}" for f in failed))
    )
    return 1 if failed else 0


def _thread_env(threads: int) -> dict[str, str]:
    """The thread limits each of several side-by-side runs gets (what the environment already sets wins)."""
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
    """``kit test``'s runs, ``width`` at a time on as many threads, each run a fresh process."""

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
