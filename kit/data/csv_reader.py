"""Your own data in one cell: a CSV file to the same :class:`TextDataset` the built-ins use.

The file is read with Python's CSV reader over the whole file, so a quoted
field may hold line breaks, delimiters and doubled quotes, and texts come back
exactly as written (CRLF, BOM and UTF-16 with a BOM are handled). Nothing is
guessed silently: an encoding that is not UTF-8, a file that is not text, an
empty or "nan" label, a text column named twice, each stops with a message that
names the file, the line and the fix.

:func:`from_csv` reads in steps: the arguments, the file and its header, the
columns, the rows, the task and its labels, the split, the data set. Those
after the file's own form (the rows' labels and texts, the task, the split, the
data set) live in :mod:`kit.data.labelled_table`, shared with the JSON Lines,
Parquet and Hugging Face readers. A file in one of those formats read here
stops with what it looks like and the name that reads it (``.jsonl``, ...).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .dataset import TextDataset
from .encoding import decode_text
from .file_formats import content_format, format_hint
from .labelled_table import (
    MAX_INTEGER_CLASSES,
    MIN_CLASS_ROWS,
    MISSING_LABELS,
    Columns,
    Table,
    check_columns,
    check_rows,
    existing_file,
    kept_names,
    labelled_dataset,
    named_columns,
)

# the format-free steps live in labelled_table (shared with the JSON Lines, Parquet and Hugging Face readers)
__all__ = ["from_csv", "MISSING_LABELS", "MAX_INTEGER_CLASSES", "MIN_CLASS_ROWS"]
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
    path = existing_file(path, "from_csv reads one CSV or TSV file")
    columns = named_columns(text, label, text_a=text_a, text_b=text_b, split=split, task=task)
    table = _read_table(path, columns, encoding, delimiter, label_names=label_names, skip_empty=skip_empty)
    return labelled_dataset(
        table, task=task, label_names=label_names, dev=dev, test=test, seed=seed, name=name or path.stem,
        source=str(path), verbose=verbose,
    )  # fmt: skip


# --- the file, its header and its rows -------------------------------------------------------------------------------


def _read_table(path: Path, columns: Columns, encoding, delimiter, *, label_names, skip_empty) -> Table:
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

    Raises:
        ValueError: the file is JSON Lines or Parquet (the message says so and how to read it), or does not fit.
        KeyError: a named column is not in the header.
    """
    if content_format(path) in ("jsonl", "parquet"):  # read as CSV, its "columns" would be fragments of JSON
        raise ValueError(f"{path.name} is not a CSV file.{format_hint(path, 'csv')}")
    raw = path.read_bytes()
    content, encoding = decode_text(path, raw, encoding)
    reader, delimiter = _csv_reader(path, content, columns.wanted, delimiter)
    header = _read_header(path, reader)
    _check_columns(path, header, columns.wanted, delimiter)
    info = {"encoding": encoding, "delimiter": delimiter}
    table = Table(columns, path.name, "line", info, no_rows="has a header but no data rows")
    _read_rows(path, reader, header, table, label_names=label_names, skip_empty=skip_empty)
    check_rows(table, skip_empty)
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
        ValueError: the header row is not valid CSV (with what the file looks like, if another format).
    """
    try:
        return [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise ValueError(
            f"{path.name}, line 1: the header row is not valid CSV ({exc}).{format_hint(path, 'csv')}"
        ) from None


def _check_columns(path: Path, header: list[str], wanted: list[str], delimiter: str) -> None:
    """Check that the header names each column once and has every column the caller named.

    Raises:
        ValueError: the header repeats a name.
        KeyError: a named column is not in the header (with a hint when the file looks like another format, or
            when the delimiter found one column only).
    """
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise ValueError(f"{path.name}: the header repeats the column name(s) {dup}; rename them so each is unique.")
    if all(col in header for col in wanted):
        return
    hint = format_hint(path, "csv")
    if hint:  # its "columns" would be fragments of another format: say which format instead
        missing = next(c for c in wanted if c not in header)
        raise KeyError(f"{path.name} has no CSV column {missing!r}.{hint}")
    if len(header) == 1:
        hint = (
            f" Only one column was found with delimiter {delimiter!r}: is the file separated by "
            "something else? Pass delimiter=';' (or '\\t', '|'; kit run: --delimiter ';')."
        )
    check_columns(path.name, header, wanted, hint)


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


def _read_rows(path: Path, reader, header: list[str], table: Table, *, label_names, skip_empty) -> None:
    """Append each row's named fields to ``table``, checking its field count, its label and its texts.

    Raises:
        ValueError: a row has another number of fields than the header, or a missing label.
    """
    columns = table.columns
    idx = {c: header.index(c) for c in columns.wanted}
    keep = kept_names(label_names)
    for lineno, row in _numbered_rows(path, reader):
        if len(row) != len(header):
            raise ValueError(
                f"{path.name}, line {lineno}: expected {len(header)} fields ({header}), got {len(row)}. "
                f'Quote fields that contain the delimiter {table.info["delimiter"]!r} or a line break, e.g. "a, b".'
            )
        table.add(lineno, {c: row[idx[c]] for c in columns.wanted}, keep_names=keep, skip_empty=skip_empty)
