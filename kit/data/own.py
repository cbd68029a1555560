"""Your own data in one cell: a CSV file to the same :class:`TextDataset` the built-ins use.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "mine.csv")
>>> _ = open(path, "w").write("review,stars\\n" + "\\n".join(f"text {i},{'good' if i % 2 else 'bad'}" for i in range(40)))
>>> ds = from_csv(path, text="review", label="stars")
>>> ds.label_names, ds.sizes()
(['bad', 'good'], {'train': 32, 'dev': 4, 'test': 4})
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from .dataset import Split, TextDataset
from .splits import split_indices


def from_csv(path, text: str | None = None, label: str | None = None, *, text_a: str | None = None,
             text_b: str | None = None, task: str | None = None, label_names: list[str] | None = None,
             split: str | None = None, dev: float = 0.1, test: float = 0.1, seed: int = 0,
             delimiter: str | None = None, name: str | None = None) -> TextDataset:
    """Read a CSV/TSV with a header row into a :class:`TextDataset`.

    - single texts: ``from_csv(path, text="review", label="stars")``;
    - pairs: ``from_csv(path, text_a="q1", text_b="q2", label="dup")``.

    ``task`` is inferred when omitted: labels that are all numbers with a
    fraction part give ``regression`` (``pair_regression`` for pairs); anything
    else gives classes (``label_names`` sorted, or the order you pass). Rows are
    split train/dev/test with ``dev``/``test`` fractions (seeded, stratified),
    or by a ``split`` column holding ``train``/``dev``/``test``.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"No such file: {path}. Check the path (relative paths start at {Path.cwd()}).")
    pair = text_a is not None or text_b is not None
    if pair and (text_a is None or text_b is None):
        raise ValueError("For sentence pairs give both text_a=... and text_b=... column names.")
    if not pair and text is None:
        raise ValueError("Name the text column: from_csv(path, text='column', label='column').")
    if label is None:
        raise ValueError("Name the label column: label='column'.")

    raw = path.read_text(encoding="utf-8-sig")
    if delimiter is None:
        delimiter = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    reader = csv.reader(raw.splitlines(), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise ValueError(f"{path.name} is empty: it needs a header row and at least one data row.") from None
    header = [h.strip() for h in header]
    wanted = [c for c in ([text_a, text_b] if pair else [text]) + [label] + ([split] if split else [])]
    for col in wanted:
        if col not in header:
            raise KeyError(f"{path.name} has no column {col!r}. Its columns are {header}.")
    idx = {c: header.index(c) for c in wanted}

    cols: dict[str, list[str]] = {c: [] for c in wanted}
    for lineno, row in enumerate(reader, 2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise ValueError(
                f"{path.name}, line {lineno}: expected {len(header)} fields ({header}), got {len(row)}. "
                "Quote fields that contain the delimiter, e.g. \"a, b\".")
        for c in wanted:
            value = row[idx[c]].strip()
            if c == label and value == "":
                raise ValueError(f"{path.name}, line {lineno}: empty label in column {label!r}.")
            cols[c].append(value)
    n = len(cols[label])
    if n == 0:
        raise ValueError(f"{path.name} has a header but no data rows.")

    raw_labels = cols[label]
    if task is None:
        task = _infer_task(raw_labels, label_names, pair)
    if task in ("regression", "pair_regression"):
        try:
            labels = np.asarray([float(v) for v in raw_labels], dtype="float32")
        except ValueError:
            bad = next(i for i, v in enumerate(raw_labels) if not _is_number(v))
            raise ValueError(f"{path.name}, data row {bad + 1}: label {raw_labels[bad]!r} is not a number "
                             f"(task={task!r} needs numbers).") from None
        names = None
    else:
        names = list(label_names) if label_names is not None else sorted(set(raw_labels), key=_natural)
        lookup = {v: i for i, v in enumerate(names)}
        for i, v in enumerate(raw_labels):
            if v not in lookup:
                raise ValueError(f"{path.name}, data row {i + 1}: unknown label {v!r}; label_names are {names}. "
                                 "Add it to label_names or fix the row.")
        labels = np.asarray([lookup[v] for v in raw_labels], dtype="int32")

    texts = cols[text_a] if pair else cols[text]
    texts_b = cols[text_b] if pair else None
    pool = Split(texts, labels, texts_b)
    if split:
        tags = cols[split]
        bad = sorted(set(tags) - {"train", "dev", "test"})
        if bad:
            raise ValueError(f"{path.name}: column {split!r} may hold only train/dev/test, found {bad}.")
        parts = {k: np.flatnonzero(np.asarray(tags) == k) for k in ("train", "dev", "test")}
    else:
        parts = split_indices(n, dev=dev, test=test, seed=seed,
                              stratify=labels if task in ("classification", "pairs") else None)
    splits = {k: pool.take(v) for k, v in parts.items()}
    return TextDataset(name or path.stem, task, splits, names, source=str(path),
                       description=f"your data: {path.name}")


def _is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


def _natural(v: str):
    return (0, float(v), v) if _is_number(v) else (1, 0.0, v)


def _infer_task(values, label_names, pair) -> str:
    if label_names is None and all(_is_number(v) for v in values) and any(
            float(v) != int(float(v)) for v in values):
        return "pair_regression" if pair else "regression"
    return "pairs" if pair else "classification"
