"""Your own data in one cell: a CSV file to the same :class:`TextDataset` the built-ins use.

The file is read with Python's CSV reader over the whole file, so a quoted
field may hold line breaks, delimiters and doubled quotes, and texts come back
exactly as written (CRLF, BOM and UTF-16 with a BOM are handled). Nothing is
guessed silently: an encoding that is not UTF-8, a file that is not text, an
empty or "nan" label, a text column named twice, each stops with a message that
names the file, the line and the fix.

>>> import tempfile, os, csv
>>> path = os.path.join(tempfile.mkdtemp(), "mine.csv")
>>> with open(path, "w", newline="", encoding="utf-8") as f:
...     w = csv.writer(f)
...     _ = w.writerow(["review", "stars"])
...     w.writerows([[f"line one\\nline {i}, two", "good" if i % 2 else "bad"] for i in range(40)])
>>> ds = from_csv(path, text="review", label="stars", verbose=False)
>>> ds.label_names, ds.sizes()
(['bad', 'good'], {'train': 32, 'dev': 4, 'test': 4})
>>> ds.train.texts[0].split("\\n")[0]
'line one'
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from .dataset import Split, TextDataset
from .encoding import decode_text
from .splits import split_indices

#: Label values read as missing (compared case-insensitively); name them in ``label_names`` to keep one as a class.
MISSING_LABELS = ("", "nan", "na", "n/a", "null", "none")
#: All-integer labels with at most this many distinct values are classes; more are a regression target.
MAX_INTEGER_CLASSES = 20
#: Rows a class needs at least (one each for train, dev and test).
MIN_CLASS_ROWS = 3
_DELIMITERS = (",", "\t", ";", "|")


def _pick_delimiter(path: Path, first_line: str, wanted: list[str]) -> str:
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    best = max(
        _DELIMITERS,
        key=lambda d: (
            sum(c.strip() in wanted for c in next(csv.reader([first_line], delimiter=d))),
            first_line.count(d),
        ),
    )
    return best if best in first_line else ","


def from_csv(
    path,
    text: str | None = None,
    label: str | None = None,
    *,
    text_a: str | None = None,
    text_b: str | None = None,
    task: str | None = None,
    label_names: list[str] | None = None,
    split: str | None = None,
    dev: float = 0.1,
    test: float = 0.1,
    seed: int = 0,
    delimiter: str | None = None,
    encoding: str | None = None,
    skip_empty: bool = False,
    name: str | None = None,
    verbose: bool = True,
) -> TextDataset:
    """Read a CSV/TSV with a header row into a :class:`TextDataset`.

    - single texts: ``from_csv(path, text="review", label="stars")``;
    - pairs: ``from_csv(path, text_a="q1", text_b="q2", label="dup")``.

    ``task`` (``"classification"`` or ``"regression"``; pairs: ``"pairs"`` or
    ``"pair_regression"``) is inferred when omitted, and the choice is printed:
    numbers with a fraction part, or more than 20 distinct integers, give
    regression; anything else gives classes (``label_names`` sorted, or the
    order you pass). Rows are split train/dev/test with ``dev``/``test``
    fractions (seeded, stratified), or by a ``split`` column holding
    ``train``/``dev``/``test``. The delimiter is tab for ``.tsv``, else the one
    of ``, TAB ; |`` that finds your columns in the header. ``encoding`` is
    UTF-8 unless a BOM says otherwise; pass e.g. ``"cp1252"`` for other files.
    Rows with an empty text are an error unless ``skip_empty=True`` drops them.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"No such file: {path}. Check the path (relative paths start at {Path.cwd()}).")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; from_csv reads one CSV or TSV file.")
    pair = text_a is not None or text_b is not None
    if pair and (text_a is None or text_b is None):
        raise ValueError("For sentence pairs give both text_a=... and text_b=... column names.")
    if pair and text is not None:
        raise ValueError("Give either text=... (single texts) or text_a=... and text_b=... (pairs), not both.")
    if not pair and text is None:
        raise ValueError("Name the text column: from_csv(path, text='column', label='column').")
    if label is None:
        raise ValueError("Name the label column: label='column'.")
    text_cols = [text_a, text_b] if pair else [text]
    wanted = text_cols + [label] + ([split] if split else [])
    if len(set(wanted)) != len(wanted):
        dup = next(c for i, c in enumerate(wanted) if c in wanted[:i])
        raise ValueError(
            f"Column {dup!r} is named twice (text, label and split must be different columns): "
            f"you gave {dict(zip(['text_a', 'text_b'] if pair else ['text'], text_cols))}, "
            f"label={label!r}" + (f", split={split!r}" if split else "") + "."
        )
    if task is not None:
        allowed = ("pairs", "pair_regression") if pair else ("classification", "regression")
        if task not in allowed:
            raise ValueError(f"task={task!r} does not fit {'pairs' if pair else 'single texts'}: use one of {allowed}.")

    content, encoding = decode_text(path, path.read_bytes(), encoding)
    if not content.strip():
        raise ValueError(f"{path.name} is empty: it needs a header row and at least one data row.")
    first_line = content.lstrip("\ufeff").splitlines()[0]
    if delimiter is None:
        delimiter = _pick_delimiter(path, first_line, wanted)
    reader = csv.reader(io.StringIO(content.lstrip("\ufeff"), newline=""), delimiter=delimiter, strict=True)
    csv.field_size_limit(max(csv.field_size_limit(), len(content) + 1))  # a long text is data, not an error
    try:
        header = [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise ValueError(f"{path.name}, line 1: the header row is not valid CSV ({exc}).") from None
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise ValueError(f"{path.name}: the header repeats the column name(s) {dup}; rename them so each is unique.")
    for col in wanted:
        if col not in header:
            hint = ""
            if len(header) == 1:
                hint = (
                    f" Only one column was found with delimiter {delimiter!r}: is the file separated by "
                    "something else? Pass delimiter=';' (or '\\t', '|'; kit run: --delimiter ';')."
                )
            raise KeyError(f"{path.name} has no column {col!r}. Its columns are {header}.{hint}")
    idx = {c: header.index(c) for c in wanted}

    cols: dict[str, list[str]] = {c: [] for c in wanted}
    lines: list[int] = []
    empty_text: list[int] = []
    keep_names = {str(v).strip().lower() for v in (label_names or [])}
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise ValueError(
                f"{path.name}, line {start}: not valid CSV ({exc}). A quote inside a quoted field must "
                'be doubled (""); check that every quoted field is closed.'
            ) from None
        lineno, start = start, reader.line_num + 1
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise ValueError(
                f"{path.name}, line {lineno}: expected {len(header)} fields ({header}), got {len(row)}. "
                f'Quote fields that contain the delimiter {delimiter!r} or a line break, e.g. "a, b".'
            )
        value = row[idx[label]].strip()
        if value.lower() in MISSING_LABELS and value.lower() not in keep_names:
            raise ValueError(
                f"{path.name}, line {lineno}: the label in column {label!r} is missing "
                f"({value!r}). Fill it in or drop the row"
                + (f"; to keep {value!r} as a class, list it in label_names." if value else ".")
            )
        if any(not row[idx[c]].strip() for c in text_cols):
            empty_text.append(lineno)
            if skip_empty:
                continue
        for c in wanted:
            cols[c].append(value if c == label else row[idx[c]] if c in text_cols else row[idx[c]].strip())
        lines.append(lineno)
    if empty_text and not skip_empty:
        raise ValueError(
            f"{path.name}: {len(empty_text)} row(s) have an empty text (first at line {empty_text[0]}). "
            "Fill them in, or pass skip_empty=True (kit run: --skip-empty) to drop them."
        )
    n = len(cols[label])
    if n == 0:
        raise ValueError(
            f"{path.name} has a header but no data rows"
            + (f" (all {len(empty_text)} had an empty text)." if empty_text else ".")
        )

    raw_labels = cols[label]
    chosen, reason = (task, "as you asked") if task is not None else _infer_task(raw_labels, label_names, pair)
    if chosen in ("regression", "pair_regression"):
        bad = next((i for i, v in enumerate(raw_labels) if not _is_number(v)), None)
        if bad is not None:
            raise ValueError(
                f"{path.name}, line {lines[bad]}: label {raw_labels[bad]!r} is not a number "
                f"(task={chosen!r} needs numbers)."
            )
        labels = np.asarray([float(v) for v in raw_labels], dtype="float32")
        names = None
    else:
        names = list(label_names) if label_names is not None else sorted(set(raw_labels), key=_natural)
        if len(names) < 2:
            raise ValueError(
                f"{path.name}: column {label!r} holds one class only ({names}); a classifier needs "
                "at least two. Is it the right column?"
            )
        lookup = {v: i for i, v in enumerate(names)}
        for i, v in enumerate(raw_labels):
            if v not in lookup:
                raise ValueError(
                    f"{path.name}, line {lines[i]}: unknown label {v!r}; label_names are {names}. "
                    "Add it to label_names or fix the row."
                )
        labels = np.asarray([lookup[v] for v in raw_labels], dtype="int32")

    texts = cols[text_a] if pair else cols[text]
    texts_b = cols[text_b] if pair else None
    pool = Split(texts, labels, texts_b)
    if split:
        tags = [t.lower() for t in cols[split]]
        bad = sorted(set(tags) - {"train", "dev", "test"})
        if bad:
            raise ValueError(f"{path.name}: column {split!r} may hold only train/dev/test, found {bad}.")
        parts = {k: np.flatnonzero(np.asarray(tags) == k) for k in ("train", "dev", "test")}
    else:
        parts = split_indices(
            n, dev=dev, test=test, seed=seed, stratify=labels if chosen in ("classification", "pairs") else None
        )
        if names is not None:
            counts = np.bincount(labels, minlength=len(names))
            few = [
                f"{names[i]!r} ({counts[i]}, line {lines[raw_labels.index(names[i])]})"
                for i in np.flatnonzero(counts < MIN_CLASS_ROWS)
                if counts[i]
            ]
            if few:
                raise ValueError(
                    f"{path.name}: class {', '.join(few)} has fewer than {MIN_CLASS_ROWS} rows; every "
                    "class needs one in each of train, dev and test. Add rows, merge it into another "
                    "class, or drop its rows."
                )
    splits = {k: pool.take(v) for k, v in parts.items()}
    ds = TextDataset(
        name or path.stem,
        chosen,
        splits,
        names,
        source=str(path),
        description=f"your data: {path.name}",
        info={
            "task_reason": reason,
            "encoding": encoding,
            "delimiter": delimiter,
            "skipped_empty": len(empty_text) if skip_empty else 0,
        },
    )
    if verbose:
        print(
            f"{path.name}: {n:,} rows, task {chosen!r} ({reason}); "
            + ", ".join(f"{k} {v:,}" for k, v in ds.sizes().items())
        )
    return ds


def _is_number(v: str) -> bool:
    try:
        float(v)
        return True
    except ValueError:
        return False


def _natural(v: str):
    return (0, float(v), v) if _is_number(v) else (1, 0.0, v)


def _infer_task(values, label_names, pair) -> tuple[str, str]:
    classes, regression = ("pairs", "pair_regression") if pair else ("classification", "regression")
    if label_names is not None:
        return classes, "label_names given"
    if not all(_is_number(v) for v in values):
        return classes, "the labels are names"
    numbers = np.asarray([float(v) for v in values])
    distinct = len(np.unique(numbers))
    if (numbers != np.round(numbers)).any():
        return regression, f"the labels are numbers with fractions; pass task={classes!r} to treat them as classes"
    if distinct > MAX_INTEGER_CLASSES:
        return regression, (
            f"{distinct} distinct integers, more than {MAX_INTEGER_CLASSES}; pass task={classes!r} "
            "to treat them as classes"
        )
    return classes, (
        f"{distinct} distinct integers, read as classes; pass task={regression!r} to predict the number instead"
    )
