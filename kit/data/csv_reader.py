"""CSV and TSV files with a header row, for :func:`kit.data.read`: the file, its header, its rows.

Python's CSV reader over the whole file: quoted fields may hold line breaks, delimiters, doubled quotes; texts come
back as written (CRLF, BOM, UTF-16 with a BOM handled). Nothing is guessed silently: a bad encoding, a non-text
file, an empty or "nan" label, a column named twice stop with the file, the line and the fix.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from .encoding import decode_text
from .file_formats import format_hint
from .labelled_table import Request, Table, check_columns

_DELIMITERS = (",", "\t", ";", "|")


@dataclass(frozen=True)
class CsvFormat:
    """How to read a CSV or TSV file (:func:`kit.data.read`).

    Attributes:
        encoding: the file's encoding; None reads UTF-8, or UTF-16 where a BOM says so (``"cp1252"``: Windows/Excel).
        delimiter: the delimiter; None: tab for ``.tsv``/``.tab``, else the one of ``, TAB ; |`` that finds the
            columns in the header.
    """

    encoding: str | None = None
    delimiter: str | None = None


def csv_table(path: Path, request: Request, fmt: CsvFormat) -> Table:
    r"""Decode ``path``, check its header has the named columns, then read its rows (``info``: encoding, delimiter).

    KeyError: a named column not in the header; ValueError: not text, empty, not valid CSV, a row of another width (the
    line and the fix named).

    Example:
        >>> import tempfile
        >>> from kit.data.labelled_table import Columns
        >>> path = Path(tempfile.mkdtemp()) / "mine.csv"
        >>> _ = path.write_text('review;stars\n"line one\nline two; more";good\n', encoding="utf-8")
        >>> table = csv_table(path, Request(Columns(text="review", label="stars")), CsvFormat())
        >>> table.values["review"], table.info
        (['line one\nline two; more'], {'encoding': 'utf-8', 'delimiter': ';'})
    """
    content, encoding = decode_text(path, path.read_bytes(), fmt.encoding)
    reader, delimiter = _csv_reader(path, content, request.wanted, fmt.delimiter)
    header = _read_header(path, reader)
    _check_columns(path, header, request.wanted, delimiter)
    info = {"encoding": encoding, "delimiter": delimiter}
    table = Table(request, path.name, "line", info, no_rows="has a header but no data rows")
    _read_rows(path, reader, header, table)
    return table


def _pick_delimiter(path: Path, first_line: str, wanted: list[str]) -> str:
    """Tab for ``.tsv``/``.tab``, else the delimiter that finds the most named columns in the header line."""
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
    """A strict CSV reader over ``content`` (a BOM dropped) and its delimiter, the given one or the header's."""
    if not content.strip():
        raise ValueError(f"{path.name} is empty: it needs a header row and at least one data row.")
    first_line = content.lstrip("\ufeff").splitlines()[0]
    if delimiter is None:
        delimiter = _pick_delimiter(path, first_line, wanted)
    reader = csv.reader(io.StringIO(content.lstrip("\ufeff"), newline=""), delimiter=delimiter, strict=True)
    csv.field_size_limit(max(csv.field_size_limit(), len(content) + 1))  # a long text is data, not an error
    return reader, delimiter


def _read_header(path: Path, reader) -> list[str]:
    """The header row's column names, stripped."""
    try:
        return [h.strip() for h in next(reader)]
    except csv.Error as exc:
        raise ValueError(
            f"{path.name}, line 1: the header row is not valid CSV ({exc}).{format_hint(path, 'csv')}"
        ) from None


def _check_columns(path: Path, header: list[str], wanted: list[str], delimiter: str) -> None:
    """Check that the header names each column once and has every column the caller named."""
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
            "something else? Pass CsvFormat(delimiter=';') (or '\\t', '|'; kit run: --delimiter ';')."
        )
    check_columns(path.name, header, wanted, hint)


def _numbered_rows(path: Path, reader):
    """Yield ``(line, row)`` for each row after the header that is not blank; ``line`` is where the row starts."""
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


def _read_rows(path: Path, reader, header: list[str], table: Table) -> None:
    """Append each row's named fields to ``table``, checking its field count, its label and its texts."""
    wanted = table.request.wanted
    idx = {c: header.index(c) for c in wanted}
    for lineno, row in _numbered_rows(path, reader):
        if len(row) != len(header):
            raise ValueError(
                f"{path.name}, line {lineno}: expected {len(header)} fields ({header}), got {len(row)}. "
                f'Quote fields that contain the delimiter {table.info["delimiter"]!r} or a line break, e.g. "a, b".'
            )
        table.add(lineno, {c: row[idx[c]] for c in wanted})
