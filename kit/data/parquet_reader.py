"""Parquet for :func:`kit.data.read`: a table's named columns, read with pyarrow (the kit's dependency).

Only the columns named are read; a categorical column reads as its values; a number or boolean label becomes the
string a CSV would hold (``1`` -> ``"1"``), a null (or NaN) label is missing. Rows are counted from 1.
"""

from __future__ import annotations

from pathlib import Path

from .labelled_table import Request, Table, check_columns, read_records


def parquet_table(path: Path, request: Request) -> Table:
    """The named columns of a Parquet file, as a table.

    KeyError: a column not in the file (the columns listed); ValueError: not Parquet (or damaged), a column named twice,
    or a row that does not fit.

    Example:
        >>> import tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> from kit.data.labelled_table import Columns
        >>> path = Path(tempfile.mkdtemp()) / "mine.parquet"
        >>> pq.write_table(pa.table({"text": ["a", "b"], "label": [1, 0]}), path)
        >>> parquet_table(path, Request(Columns(text="text", label="label"))).values
        {'text': ['a', 'b'], 'label': ['1', '0']}
    """
    wanted = request.wanted
    values = _read_columns(path, wanted)
    records = ((i + 1, {c: values[c][i] for c in wanted}) for i in range(len(values[wanted[0]])))
    table = Table(request, path.name, "row", {"format": "parquet"})
    read_records(table, records)
    return table


def _read_columns(path: Path, wanted: list[str]) -> dict[str, list]:
    """The named columns of a Parquet file, as Python values (a categorical column's values, None for a null)."""
    import pyarrow as pa  # noqa: PLC0415 (pyarrow: a fifth of a second, for Parquet files only)
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{path.name} is not a Parquet file, or it is damaged (pyarrow: {exc}).") from None
    names = [n for n in schema.names if not n.startswith("__index_level_")]  # pandas' saved index
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"{path.name}: the file repeats the column name(s) {dup}; rename them so each is unique.")
    check_columns(path.name, names, wanted)
    try:
        table = pq.read_table(path, columns=wanted)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(f"{path.name}: pyarrow could not read its columns {wanted} ({exc}).") from None
    return {c: table.column(c).to_pylist() for c in wanted}
