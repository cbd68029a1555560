"""What a run produced (:class:`RunResult`), and the results file that never loses a finished run.

``results.csv``: one row per (run, metric): keys, ``metric``, ``value``, ``config`` fingerprint, ``run`` (id of the
keys), ``rows`` (rows the run wrote at once). A run's rows land in one write (:func:`kit.files.append_whole`); a rerun
rewrites the file (:func:`kit.files.atomic_write`). A run with fewer rows than ``rows`` (killed writer) is dropped with
a warning, removed on the next write, and run again; older files without ``run``/``rows`` are upgraded on write.

>>> import pathlib, tempfile
>>> store = ResultsFile(pathlib.Path(tempfile.mkdtemp()) / "results.csv", keys=("model", "seed"), config="c0")
>>> store.write({"model": "lstm", "seed": 0}, RunResult({"accuracy": 0.75}, trained={"epochs": 3}))
>>> store.frame()[["model", "seed", "metric", "value", "rows"]].values.tolist()
[['lstm', '0', 'accuracy', 0.75, '2'], ['lstm', '0', 'trained_epochs', 3.0, '2']]
"""

from __future__ import annotations

import csv
import hashlib
import io
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import append_whole, atomic_write, hold_writer_lock

#: The columns after a results file's keys.
TAIL = ("metric", "value", "config", "run", "rows")


@dataclass
class RunResult:
    """What one run of an experiment produced: its scores, what it trained, its predictions, its model.

    ``metrics`` (``{name: number}``) and ``seconds`` (unless in ``metrics``) are recorded under the run's keys;
    ``trained`` (e.g. ``{"epochs": 4, "steps": 120}``, as ``trained_<name>``) is the budget a verdict compares, read
    from the run, not its recipe; ``parts`` are rows under other values of ``part_key`` (per-task scores
    ``{"sst": {"test_score": 0.4}}``) in the run's block. ``predictions`` (``{name: array}``, saved by the experiment),
    ``model`` and ``details`` aren't written.
    """

    metrics: dict
    seconds: float = 0.0
    trained: dict = field(default_factory=dict)
    predictions: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)
    part_key: str = "task"
    model: Any = None
    details: dict = field(default_factory=dict)

    def rows(self, run: dict) -> list[tuple[dict, str, float]]:
        """``(keys, metric, value)`` for every row this result writes for ``run``: its own rows, then the parts'."""
        own = dict(self.metrics)
        own.update({f"trained_{k}": v for k, v in self.trained.items()})
        if self.seconds and "seconds" not in own:
            own["seconds"] = self.seconds
        out = [(run, m, v) for m, v in own.items()]
        for part, metrics in self.parts.items():
            out += [({**run, self.part_key: part}, m, v) for m, v in metrics.items()]
        return out


def run_id(key: tuple) -> str:
    """A short id of a run's keys (their string values, in order): the ``run`` column."""
    return hashlib.sha256("\x1f".join(key).encode()).hexdigest()[:12]


def _number(v) -> str:
    """A metric's value as the CSV holds it (full precision)."""
    return repr(float(v))


def read_results(path):
    """Every whole run (any keys, all fingerprints) of the results file ``path``, a DataFrame; None if no file."""
    path = Path(path)
    if not path.exists():
        return None
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        header = next(csv.reader([f.readline()]), [])
    if "metric" not in header:
        raise ValueError(f"{path} has no 'metric' column: it is not a results file a sweep wrote.")
    return ResultsFile(path, header[: header.index("metric")], config="").frame()


class ResultsFile:
    """A long-format results CSV whose runs land whole: one writer process, each run's rows in one write.

    ``keys`` name a run; ``config`` is the fingerprint written on every row (other fingerprints' rows are kept, not
    own).
    """

    def __init__(self, path, keys, config: str):
        self.path, self.keys, self.config = Path(path), tuple(keys), str(config)
        self.columns = (*self.keys, *TAIL)
        self._warned: set = set()

    # -- reading -------------------------------------------------------------------------------------------------
    def _records(self) -> tuple[list[str], list[list[str]], list[str]]:
        """The header, the rows that belong to whole runs, and a note per dropped piece (a cut run, a torn line)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return list(self.columns), [], []
        text = self.path.read_bytes().decode("utf-8", errors="replace")
        notes = []
        if not text.endswith("\n"):
            cut = text.rsplit("\n", 1)
            text = cut[0] + "\n" if len(cut) == 2 else ""
            notes.append("a last line cut short")
        records = list(csv.reader(io.StringIO(text)))
        if not records:
            return list(self.columns), [], notes
        header, body = records[0], [r for r in records[1:] if r]
        missing = [k for k in (*self.keys, "metric", "value", "config") if k not in header]
        if missing:
            raise ValueError(
                f"{self.path} has no column(s) {missing}: it was written by something else, or by a sweep with other "
                "keys. Move it away or give the sweep another path."
            )
        good = [r for r in body if len(r) == len(header)]
        if len(good) < len(body):
            notes.append(f"{len(body) - len(good)} line(s) with a wrong number of fields")
        return header, self._whole_runs(header, good, notes), notes

    def _whole_runs(self, header: list[str], body: list[list[str]], notes: list[str]) -> list[list[str]]:
        """``body`` less the runs whose block has fewer rows than its ``rows`` column says (a write cut short)."""
        if "rows" not in header or "run" not in header:
            return body  # written before blocks were counted: every well-formed line is taken as it is
        r_i, n_i, c_i = header.index("run"), header.index("rows"), header.index("config")
        out, i = [], 0
        while i < len(body):
            first = body[i]
            n = int(first[n_i]) if first[n_i].isdigit() and int(first[n_i]) > 0 else 1
            block = body[i : i + n]
            if len(block) == n and all((r[r_i], r[n_i], r[c_i]) == (first[r_i], first[n_i], first[c_i]) for r in block):
                out += block
                i += n
                continue
            j = i + 1  # a cut block: skip its rows (those of the same run and count)
            while j < len(body) and (body[j][r_i], body[j][n_i]) == (first[r_i], first[n_i]):
                j += 1
            notes.append(f"a run cut short ({j - i} of its {n} rows)")
            i = j
        return out

    def frame(self):
        """Every whole run's rows (all fingerprints) as strings, ``value`` float; ValueError without key columns."""
        import pandas as pd

        header, rows, notes = self._records()
        self._warn(notes)
        frame = pd.DataFrame(rows, columns=header, dtype=object)
        if "run" not in frame.columns:
            frame["run"] = [run_id(tuple(r)) for r in frame[list(self.keys)].itertuples(index=False)]
        if "rows" not in frame.columns:
            frame["rows"] = frame.groupby(["run", "config"])["metric"].transform("size").astype(str)
        frame["value"] = pd.to_numeric(frame["value"], errors="coerce").astype(float)
        return frame

    def _warn(self, notes: list[str]) -> None:
        """Warn once per note that reading dropped something (the next write removes it from the file)."""
        fresh = [n for n in notes if n not in self._warned]
        if fresh:
            self._warned.update(fresh)
            warnings.warn(
                f"{self.path}: dropped {'; '.join(fresh)}, left by a writer that was stopped mid-write; "
                "those runs count as not done and run again.",
                stacklevel=3,
            )

    # -- writing -------------------------------------------------------------------------------------------------
    def _lines(self, rows: list[list]) -> str:
        """``rows`` as CSV text, a newline after each."""
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        return buf.getvalue()

    def _block(self, run: dict, result: RunResult) -> list[list]:
        """The CSV rows of ``result`` for ``run``, each with the run's id and the block's size."""
        rid = run_id(tuple(str(run[k]) for k in self.keys))
        rows = result.rows(run)
        return [[*(str(keys[k]) for k in self.keys), m, _number(v), self.config, rid, len(rows)] for keys, m, v in rows]

    def write(self, run: dict, result: RunResult) -> None:
        """Write ``result``'s rows for ``run``: appended whole, or (a run already there) the file rewritten without it.

        Takes the writer lock first: :class:`kit.files.WriterBusy` when another process writes the file; ValueError when
        it was written with other keys.
        """
        hold_writer_lock(self.path)
        block = self._block(run, result)
        header, rows, notes = self._records()
        if header != list(self.columns):
            self._check_upgradable(header)
        rid = block[0][len(self.keys) + 3]
        if notes or header != list(self.columns) or any(self._id(header, r) == (rid, self.config) for r in rows):
            self._warn(notes)
            kept = [self._upgraded(header, r) for r in rows if self._id(header, r) != (rid, self.config)]
            atomic_write(self.path, self._lines([list(self.columns), *kept, *block]))
        elif not rows and (not self.path.exists() or self.path.stat().st_size == 0):
            atomic_write(self.path, self._lines([list(self.columns), *block]))
        else:
            append_whole(self.path, self._lines(block))

    def _check_upgradable(self, header: list[str]) -> None:
        """Refuse a file whose columns are not this file's, nor those of an older file with the same keys."""
        if [c for c in header if c not in ("run", "rows")] != list(self.columns[:-2]):
            raise ValueError(
                f"{self.path} holds runs with the columns {header}, not this sweep's {list(self.columns)}: it was "
                "written by a sweep with other keys. Move it away or give the sweep another path."
            )

    def _id(self, header: list[str], row: list[str]) -> tuple[str, str]:
        """``(run id, config)`` of a row of a file with ``header``."""
        at = {c: i for i, c in enumerate(header)}
        rid = row[at["run"]] if "run" in at else run_id(tuple(row[at[k]] for k in self.keys))
        return rid, row[at["config"]]

    def _upgraded(self, header: list[str], row: list[str]) -> list:
        """``row`` in this file's columns (an older file's row gets its run id and a count of 1 per row)."""
        if header == list(self.columns):
            return row
        at = {c: i for i, c in enumerate(header)}
        rid = self._id(header, row)[0]
        return [*(row[at[c]] for c in self.columns[:-2]), rid, row[at["rows"]] if "rows" in at else 1]
