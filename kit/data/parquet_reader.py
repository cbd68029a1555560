"""Your own data as Parquet: a table's columns to the same :class:`TextDataset` the built-ins use.

Parquet is what ``pandas.DataFrame.to_parquet``, pyarrow and most data tools write. The file is read with pyarrow
(the kit's dependency), only the columns you name; a categorical (dictionary) column reads as its values. A label
that is a number or a boolean becomes the string a CSV would hold (``1`` -> ``"1"``, ``0.5`` -> ``"0.5"``, ``true``
-> ``"true"``), so the task is inferred as for a CSV; a null (or NaN) label is missing. The checks and messages after
that are the CSV reader's (:mod:`kit.data.labelled_table`), each naming the row, counted from 1.
"""

from __future__ import annotations

from pathlib import Path

from .dataset import TextDataset
from .file_formats import format_hint
from .labelled_table import (
    Table,
    check_columns,
    check_rows,
    existing_file,
    labelled_dataset,
    named_columns,
    read_records,
)


def from_parquet(
    path, text: str | None = None, label: str | None = None, *, text_a: str | None = None, text_b: str | None = None,
    task: str | None = None, label_names: list[str] | None = None, split: str | None = None, dev: float = 0.1,
    test: float = 0.1, seed: int = 0, skip_empty: bool = False, name: str | None = None, verbose: bool = True,
) -> TextDataset:  # fmt: skip
    """Read a Parquet file into a :class:`TextDataset`.

    Single texts: ``from_parquet(path, text="text", label="label")``; pairs: ``from_parquet(path, text_a="q1",
    text_b="q2", label="dup")``. Rows are split train/dev/test, seeded and stratified, or by a ``split`` column.

    Args:
        path: the ``.parquet`` file.
        text: the text column (single texts).
        label: the label column.
        text_a: the first text column of a pair (give ``text_b`` too).
        text_b: the second text column of a pair.
        task: ``"classification"`` or ``"regression"`` (pairs: ``"pairs"`` or ``"pair_regression"``); inferred
            when omitted, and the choice is printed, as for a CSV (:func:`kit.data.from_csv`).
        label_names: the classes in their order (default: the labels sorted).
        split: a column holding ``train``/``dev``/``test``, instead of the seeded split.
        dev: the fraction of rows the seeded split puts in dev.
        test: the fraction of rows the seeded split puts in test.
        seed: the seed of the split.
        skip_empty: drop the rows with an empty or null text (without it they are an error).
        name: the data set's name (default: the file's name without its suffix).
        verbose: print the number of rows, the task and why, and the split sizes.

    Returns:
        The data set; its ``info`` holds the task's reason, the format and the rows skipped.

    Raises:
        FileNotFoundError: there is no such file (IsADirectoryError: it is a folder).
        KeyError: a column you named is not in the file (the message lists the columns there are).
        ValueError: the arguments, the file or a row do not fit: not a Parquet file, a column named twice in it, a
            text that is not a string, a missing label, an empty text, one class, a class with fewer than 3 rows;
            the message names the row and the fix.

    Example:
        >>> import tempfile, pyarrow as pa, pyarrow.parquet as pq
        >>> path = Path(tempfile.mkdtemp()) / "mine.parquet"
        >>> rows = pa.table({"text": [f"text {i}" for i in range(20)], "label": [i % 2 for i in range(20)]})
        >>> pq.write_table(rows, path)
        >>> ds = from_parquet(path, text="text", label="label", verbose=False)
        >>> ds.task, ds.label_names, ds.sizes()
        ('classification', ['0', '1'], {'train': 16, 'dev': 2, 'test': 2})
    """
    path = existing_file(path, "from_parquet reads one Parquet file")
    columns = named_columns(text, label, text_a=text_a, text_b=text_b, split=split, task=task, reader="from_parquet")
    values = _read_columns(path, columns.wanted)
    n_rows = len(values[columns.label])
    records = ((i + 1, {c: values[c][i] for c in columns.wanted}) for i in range(n_rows))
    table = Table(columns, path.name, "row", {"format": "parquet"})
    read_records(table, records, label_names=label_names, skip_empty=skip_empty)
    check_rows(table, skip_empty)
    return labelled_dataset(
        table, task=task, label_names=label_names, dev=dev, test=test, seed=seed, name=name or path.stem,
        source=str(path), verbose=verbose,
    )  # fmt: skip


def _read_columns(path: Path, wanted: list[str]) -> dict[str, list]:
    """The named columns of a Parquet file, as Python values (a categorical column's values, None for a null).

    Raises:
        ValueError: the file is not Parquet (or is damaged), or names a column twice.
        KeyError: a named column is not in the file.
    """
    import pyarrow as pa  # noqa: PLC0415 (pyarrow: a fifth of a second, for Parquet files only)
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        schema = pq.read_schema(path)
    except (pa.ArrowException, OSError) as exc:
        raise ValueError(
            f"{path.name} is not a Parquet file, or it is damaged (pyarrow: {exc}).{format_hint(path, 'parquet')}"
        ) from None
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
