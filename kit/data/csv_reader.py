"""Your own data in one cell: a CSV file to the same :class:`TextDataset` the built-ins use.

The file is read with Python's CSV reader over the whole file, so a quoted
field may hold line breaks, delimiters and doubled quotes, and texts come back
exactly as written (CRLF, BOM and UTF-16 with a BOM are handled). Nothing is
guessed silently: an encoding that is not UTF-8, a file that is not text, an
empty or "nan" label, a text column named twice, each stops with a message that
names the file, the line and the fix.

:func:`from_csv` reads in steps: the arguments, the file and its header, the
columns, the rows, the task and its labels, the split, the data set.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

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


def from_csv(
    path, text: str | None = None, label: str | None = None, *, text_a: str | None = None, text_b: str | None = None,
    task: str | None = None, label_names: list[str] | None = None, split: str | None = None, dev: float = 0.1,
    test: float = 0.1, seed: int = 0, delimiter: str | None = None, encoding: str | None = None,
    skip_empty: bool = False, name: str | None = None, verbose: bool = True,
) -> TextDataset:  # fmt: skip
    r"""Read a CSV/TSV with a header row into a :class:`TextDataset`.

    Single texts: ``from_csv(path, text="review", label="stars")``; pairs: ``from_csv(path, text_a="q1",
    text_b="q2", label="dup")``. Rows are split train/dev/test, seeded and stratified, or by a ``split`` column.

    Args:
        path: the CSV or TSV file.
        text: the text column (single texts).
        label: the label column.
        text_a: the first text column of a pair (give ``text_b`` too).
        text_b: the second text column of a pair.
        task: ``"classification"`` or ``"regression"`` (pairs: ``"pairs"`` or ``"pair_regression"``); inferred
            when omitted, and the choice is printed: numbers with a fraction part, or more than 20 distinct
            integers, give regression; anything else gives classes.
        label_names: the classes in their order (default: the labels sorted).
        split: a column holding ``train``/``dev``/``test``, instead of the seeded split.
        dev: the fraction of rows the seeded split puts in dev.
        test: the fraction of rows the seeded split puts in test.
        seed: the seed of the split.
        delimiter: tab for ``.tsv``, else the one of ``, TAB ; |`` that finds your columns in the header.
        encoding: UTF-8 unless a BOM says otherwise; pass e.g. ``"cp1252"`` for other files.
        skip_empty: drop the rows with an empty text (without it they are an error).
        name: the data set's name (default: the file's name without its suffix).
        verbose: print the number of rows, the task and why, and the split sizes.

    Returns:
        The data set; its ``info`` holds the task's reason, the encoding, the delimiter and the rows skipped.

    Raises:
        FileNotFoundError: there is no such file (IsADirectoryError: it is a folder).
        KeyError: a column you named is not in the header.
        ValueError: the arguments, the file or a row do not fit; the message names the line and the fix.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "mine.csv"
        >>> rows = [[f"line one\nline {i}, two", "good" if i % 2 else "bad"] for i in range(40)]
        >>> with open(path, "w", newline="", encoding="utf-8") as f:
        ...     csv.writer(f).writerows([["review", "stars"], *rows])
        >>> ds = from_csv(path, text="review", label="stars", verbose=False)
        >>> ds.label_names, ds.sizes(), ds.train.texts[0].split("\n")[0]
        (['bad', 'good'], {'train': 32, 'dev': 4, 'test': 4}, 'line one')
    """
    path = _existing_file(path)
    columns = _named_columns(text, label, text_a=text_a, text_b=text_b, split=split, task=task)
    table = _read_table(path, columns, encoding, delimiter, label_names=label_names, skip_empty=skip_empty)
    labels = _task_and_labels(path, table, task, label_names)
    parts = _split_rows(path, table, labels, dev=dev, test=test, seed=seed)
    ds = _dataset(name or path.stem, path, table, labels, parts)
    if verbose:
        sizes = ", ".join(f"{k} {v:,}" for k, v in ds.sizes().items())
        print(f"{path.name}: {len(table):,} rows, task {labels.task!r} ({labels.reason}); " + sizes)
    return ds


# --- the arguments ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Columns:
    """The columns :func:`from_csv` reads, as the caller named them.

    Attributes:
        texts: the text column, or a pair's two (``text_a``, ``text_b``).
        label: the label column.
        split: the column holding ``train``/``dev``/``test``, or None for the seeded split.
    """

    texts: list[str]
    label: str
    split: str | None

    @property
    def pair(self) -> bool:
        """Sentence pairs (``text_a`` and ``text_b``) rather than single texts."""
        return len(self.texts) == 2

    @property
    def wanted(self) -> list[str]:
        """Every named column: the texts, the label, then the split column if any."""
        return self.texts + [self.label] + ([self.split] if self.split else [])


def _existing_file(path) -> Path:
    """``path`` as a :class:`~pathlib.Path` (``~`` expanded), checked to be a file.

    Raises:
        FileNotFoundError: there is no such file.
        IsADirectoryError: it is a folder.
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"No such file: {path}. Check the path (relative paths start at {Path.cwd()}).")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; from_csv reads one CSV or TSV file.")
    return path


def _named_columns(text, label, *, text_a, text_b, split, task) -> _Columns:
    """The columns :func:`from_csv` was asked for, checked before the file is read.

    Raises:
        ValueError: a pair's column is missing, single texts and pairs are mixed, the text or label column is not
            named, a column is named twice, or ``task`` does not fit single texts or pairs.
    """
    pair = text_a is not None or text_b is not None
    if pair and (text_a is None or text_b is None):
        raise ValueError("For sentence pairs give both text_a=... and text_b=... column names.")
    if pair and text is not None:
        raise ValueError("Give either text=... (single texts) or text_a=... and text_b=... (pairs), not both.")
    if not pair and text is None:
        raise ValueError("Name the text column: from_csv(path, text='column', label='column').")
    if label is None:
        raise ValueError("Name the label column: label='column'.")
    columns = _Columns([text_a, text_b] if pair else [text], label, split)
    wanted = columns.wanted
    if len(set(wanted)) != len(wanted):
        dup = next(c for i, c in enumerate(wanted) if c in wanted[:i])
        raise ValueError(
            f"Column {dup!r} is named twice (text, label and split must be different columns): "
            f"you gave {dict(zip(['text_a', 'text_b'] if pair else ['text'], columns.texts))}, "
            f"label={label!r}" + (f", split={split!r}" if split else "") + "."
        )
    if task is not None:
        allowed = ("pairs", "pair_regression") if pair else ("classification", "regression")
        if task not in allowed:
            raise ValueError(f"task={task!r} does not fit {'pairs' if pair else 'single texts'}: use one of {allowed}.")
    return columns


# --- the file, its header and its rows -------------------------------------------------------------------------------


@dataclass
class _Table:
    """The rows :func:`from_csv` kept, column by column, and how the file was read.

    Attributes:
        columns: the columns the caller named.
        encoding: the encoding the file was decoded with.
        delimiter: the delimiter between fields.
        values: each named column's fields, one per kept row (texts as written, the others stripped).
        lines: the line each kept row starts on, for the messages.
        empty_text: the lines of the rows with an empty text.
        skipped: how many of those were dropped (``skip_empty=True``).
    """

    columns: _Columns
    encoding: str
    delimiter: str
    values: dict[str, list[str]] = field(default_factory=dict)
    lines: list[int] = field(default_factory=list)
    empty_text: list[int] = field(default_factory=list)
    skipped: int = 0

    def __len__(self) -> int:
        return len(self.values[self.columns.label])

    @property
    def labels(self) -> list[str]:
        """The label column's fields, stripped."""
        return self.values[self.columns.label]


def _read_table(path: Path, columns: _Columns, encoding, delimiter, *, label_names, skip_empty) -> _Table:
    """Decode ``path``, read its header and check the named columns, then read its rows.

    Args:
        path: the file.
        columns: the columns to read.
        encoding: the encoding, or None for UTF-8 (or a BOM's).
        delimiter: the delimiter, or None to pick it from the header.
        label_names: the classes the caller named; a missing-label value among them is a class.
        skip_empty: drop the rows with an empty text instead of stopping.

    Returns:
        The rows kept, column by column, with the encoding and delimiter used.
    """
    content, encoding = decode_text(path, path.read_bytes(), encoding)
    reader, delimiter = _csv_reader(path, content, columns.wanted, delimiter)
    header = _read_header(path, reader)
    _check_columns(path, header, columns.wanted, delimiter)
    table = _Table(columns, encoding, delimiter, {c: [] for c in columns.wanted})
    _read_rows(path, reader, header, table, label_names=label_names, skip_empty=skip_empty)
    _check_rows(path, table, skip_empty)
    table.skipped = len(table.empty_text) if skip_empty else 0
    return table


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


def _csv_reader(path: Path, content: str, wanted: list[str], delimiter: str | None):
    """A strict CSV reader over ``content`` (a BOM dropped) and its delimiter, the given one or the header's.

    Raises:
        ValueError: the file is empty.
    """
    if not content.strip():
        raise ValueError(f"{path.name} is empty: it needs a header row and at least one data row.")
    first_line = content.lstrip("\ufeff").splitlines()[0]
    if delimiter is None:
        delimiter = _pick_delimiter(path, first_line, wanted)
    reader = csv.reader(io.StringIO(content.lstrip("\ufeff"), newline=""), delimiter=delimiter, strict=True)
    csv.field_size_limit(max(csv.field_size_limit(), len(content) + 1))  # a long text is data, not an error
    return reader, delimiter


def _read_header(path: Path, reader) -> list[str]:
    """The header row's column names, stripped.

    Raises:
        ValueError: the header row is not valid CSV.
    """
    try:
        return [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise ValueError(f"{path.name}, line 1: the header row is not valid CSV ({exc}).") from None


def _check_columns(path: Path, header: list[str], wanted: list[str], delimiter: str) -> None:
    """Check that the header names each column once and has every column the caller named.

    Raises:
        ValueError: the header repeats a name.
        KeyError: a named column is not in the header (with a hint when the delimiter found one column only).
    """
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


def _numbered_rows(path: Path, reader):
    """Yield ``(line, row)`` for each row after the header that is not blank; ``line`` is where the row starts.

    Raises:
        ValueError: a row is not valid CSV (an unclosed quote, say).
    """
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ValueError(
                f"{path.name}, line {start}: not valid CSV ({exc}). A quote inside a quoted field must "
                'be doubled (""); check that every quoted field is closed.'
            ) from None
        lineno, start = start, reader.line_num + 1
        if not row or all(not c.strip() for c in row):
            continue
        yield lineno, row


def _read_rows(path: Path, reader, header: list[str], table: _Table, *, label_names, skip_empty) -> None:
    """Append each row's named fields to ``table``, checking its field count, its label and its texts.

    Raises:
        ValueError: a row has another number of fields than the header, or a missing label.
    """
    columns = table.columns
    idx = {c: header.index(c) for c in columns.wanted}
    keep_names = {str(v).strip().lower() for v in (label_names or [])}
    for lineno, row in _numbered_rows(path, reader):
        if len(row) != len(header):
            raise ValueError(
                f"{path.name}, line {lineno}: expected {len(header)} fields ({header}), got {len(row)}. "
                f'Quote fields that contain the delimiter {table.delimiter!r} or a line break, e.g. "a, b".'
            )
        value = row[idx[columns.label]].strip()
        if value.lower() in MISSING_LABELS and value.lower() not in keep_names:
            raise ValueError(
                f"{path.name}, line {lineno}: the label in column {columns.label!r} is missing "
                f"({value!r}). Fill it in or drop the row"
                + (f"; to keep {value!r} as a class, list it in label_names." if value else ".")
            )
        if any(not row[idx[c]].strip() for c in columns.texts):
            table.empty_text.append(lineno)
            if skip_empty:
                continue
        for c in columns.wanted:
            cell = row[idx[c]]
            table.values[c].append(value if c == columns.label else cell if c in columns.texts else cell.strip())
        table.lines.append(lineno)


def _check_rows(path: Path, table: _Table, skip_empty: bool) -> None:
    """Check that no text is empty (unless they are skipped) and that rows are left.

    Raises:
        ValueError: rows have an empty text and ``skip_empty`` is off, or no data rows are left.
    """
    if table.empty_text and not skip_empty:
        raise ValueError(
            f"{path.name}: {len(table.empty_text)} row(s) have an empty text (first at line {table.empty_text[0]}). "
            "Fill them in, or pass skip_empty=True (kit run: --skip-empty) to drop them."
        )
    if len(table) == 0:
        raise ValueError(
            f"{path.name} has a header but no data rows"
            + (f" (all {len(table.empty_text)} had an empty text)." if table.empty_text else ".")
        )


# --- the task and its labels -----------------------------------------------------------------------------------------


class _Labels(NamedTuple):
    """The task chosen and the labels encoded for it.

    Attributes:
        task: the task (``"classification"``, ``"regression"``, ``"pairs"`` or ``"pair_regression"``).
        reason: why that task, as printed and kept in ``info["task_reason"]``.
        values: the class ids (int32), or the numbers to predict (float32).
        names: the class names, or None for regression.
    """

    task: str
    reason: str
    values: np.ndarray
    names: list[str] | None


def _task_and_labels(path: Path, table: _Table, task: str | None, label_names) -> _Labels:
    """Choose the task (the one asked for, or inferred from the labels) and encode the labels for it.

    Raises:
        ValueError: a regression label is not a number, the labels hold one class only, or a label is not in
            ``label_names``.
    """
    raw_labels, lines, label = table.labels, table.lines, table.columns.label
    chosen, reason = (
        (task, "as you asked") if task is not None else _infer_task(raw_labels, label_names, table.columns.pair)
    )
    if chosen in ("regression", "pair_regression"):
        bad = next((i for i, v in enumerate(raw_labels) if not _is_number(v)), None)
        if bad is not None:
            raise ValueError(
                f"{path.name}, line {lines[bad]}: label {raw_labels[bad]!r} is not a number "
                f"(task={chosen!r} needs numbers)."
            )
        return _Labels(chosen, reason, np.asarray([float(v) for v in raw_labels], dtype="float32"), None)
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
    return _Labels(chosen, reason, np.asarray([lookup[v] for v in raw_labels], dtype="int32"), names)


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


# --- the split and the data set --------------------------------------------------------------------------------------


def _split_rows(path: Path, table: _Table, labels: _Labels, *, dev: float, test: float, seed: int) -> dict:
    """Train/dev/test row indices: from the split column, or seeded (stratified for classes).

    Args:
        path: the file, named in the messages.
        table: the rows read.
        labels: the task and its encoded labels.
        dev: the fraction of rows in dev (seeded split).
        test: the fraction of rows in test (seeded split).
        seed: the seed of the split.

    Returns:
        ``{"train": ..., "dev": ..., "test": ...}``, arrays of row positions.

    Raises:
        ValueError: the split column holds other values, or a class has too few rows for the seeded split.
    """
    split = table.columns.split
    if split:
        tags = [t.lower() for t in table.values[split]]
        bad = sorted(set(tags) - {"train", "dev", "test"})
        if bad:
            raise ValueError(f"{path.name}: column {split!r} may hold only train/dev/test, found {bad}.")
        return {k: np.flatnonzero(np.asarray(tags) == k) for k in ("train", "dev", "test")}
    stratify = labels.values if labels.task in ("classification", "pairs") else None
    parts = split_indices(len(table), dev=dev, test=test, seed=seed, stratify=stratify)
    if labels.names is not None:
        _check_class_sizes(path, table, labels)
    return parts


def _check_class_sizes(path: Path, table: _Table, labels: _Labels) -> None:
    """Check that every class present has :data:`MIN_CLASS_ROWS` rows, one for each of train, dev and test.

    Raises:
        ValueError: a class has fewer rows (named with its count and its first line).
    """
    names = labels.names
    counts = np.bincount(labels.values, minlength=len(names))
    few = [
        f"{names[i]!r} ({counts[i]}, line {table.lines[table.labels.index(names[i])]})"
        for i in np.flatnonzero(counts < MIN_CLASS_ROWS)
        if counts[i]
    ]
    if few:
        raise ValueError(
            f"{path.name}: class {', '.join(few)} has fewer than {MIN_CLASS_ROWS} rows; every "
            "class needs one in each of train, dev and test. Add rows, merge it into another "
            "class, or drop its rows."
        )


def _dataset(name: str, path: Path, table: _Table, labels: _Labels, parts: dict) -> TextDataset:
    """The :class:`TextDataset` of ``table``'s rows, split by ``parts``, with how it was read in ``info``."""
    columns = table.columns
    texts_b = table.values[columns.texts[1]] if columns.pair else None
    pool = Split(table.values[columns.texts[0]], labels.values, texts_b)
    return TextDataset(
        name,
        labels.task,
        {k: pool.take(v) for k, v in parts.items()},
        labels.names,
        source=str(path),
        description=f"your data: {path.name}",
        info={
            "task_reason": labels.reason,
            "encoding": table.encoding,
            "delimiter": table.delimiter,
            "skipped_empty": table.skipped,
        },
    )
