"""Your own data as JSON Lines: one JSON object per line, to the same :class:`TextDataset` the built-ins use.

JSON Lines is what ``datasets.Dataset.to_json`` and ``pandas.DataFrame.to_json(orient="records", lines=True)``
write, and what most labelling tools export. Each line holds one object; its keys are the columns. A ``.json`` file
holding one JSON array of objects is read the same way. Blank lines are skipped. A label that is a number or a
boolean becomes the string a CSV would hold (``1`` -> ``"1"``, ``0.5`` -> ``"0.5"``, ``true`` -> ``"true"``), so the
task is inferred as for a CSV; a null label is missing. The checks and messages after that are the CSV reader's
(:mod:`kit.data.labelled_table`), each naming the line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .dataset import TextDataset
from .encoding import decode_text
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

_EXAMPLE = '{"text": "a good film", "label": "pos"}'
_SPACE = re.compile(r"[ \t\r\n]*")


def from_jsonl(
    path, text: str | None = None, label: str | None = None, *, text_a: str | None = None, text_b: str | None = None,
    task: str | None = None, label_names: list[str] | None = None, split: str | None = None, dev: float = 0.1,
    test: float = 0.1, seed: int = 0, encoding: str | None = None, skip_empty: bool = False, name: str | None = None,
    verbose: bool = True,
) -> TextDataset:  # fmt: skip
    r"""Read a JSON Lines file (one object per line, or a ``.json`` array of objects) into a :class:`TextDataset`.

    Single texts: ``from_jsonl(path, text="text", label="label")``; pairs: ``from_jsonl(path, text_a="premise",
    text_b="hypothesis", label="label")``. Rows are split train/dev/test, seeded and stratified, or by a ``split`` key.

    Args:
        path: the ``.jsonl`` (``.ndjson``, ``.json``) file.
        text: the text key (single texts).
        label: the label key.
        text_a: the first text key of a pair (give ``text_b`` too).
        text_b: the second text key of a pair.
        task: ``"classification"`` or ``"regression"`` (pairs: ``"pairs"`` or ``"pair_regression"``); inferred
            when omitted, and the choice is printed, as for a CSV (:func:`kit.data.from_csv`).
        label_names: the classes in their order (default: the labels sorted).
        split: a key holding ``train``/``dev``/``test``, instead of the seeded split.
        dev: the fraction of rows the seeded split puts in dev.
        test: the fraction of rows the seeded split puts in test.
        seed: the seed of the split.
        encoding: UTF-8 unless a BOM says otherwise; pass e.g. ``"cp1252"`` for other files.
        skip_empty: drop the rows with an empty or null text (without it they are an error).
        name: the data set's name (default: the file's name without its suffix).
        verbose: print the number of rows, the task and why, and the split sizes.

    Returns:
        The data set; its ``info`` holds the task's reason, the encoding, the format and the rows skipped.

    Raises:
        FileNotFoundError: there is no such file (IsADirectoryError: it is a folder).
        KeyError: a key you named is in no object (the message lists the keys there are).
        ValueError: the arguments, the file or a line do not fit: a line that is not JSON or not an object, an
            object without a named key, a text that is not a string, a missing label, an empty text, one class, a
            class with fewer than 3 rows; the message names the line and the fix.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "mine.jsonl"
        >>> rows = [{"text": f"line one\nline {i}", "label": i % 2 == 0} for i in range(40)]
        >>> _ = path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
        >>> ds = from_jsonl(path, text="text", label="label", verbose=False)
        >>> ds.label_names, ds.sizes(), ds.train.texts[0].split("\n")[0]
        (['false', 'true'], {'train': 32, 'dev': 4, 'test': 4}, 'line one')
    """
    path = existing_file(path, "from_jsonl reads one JSON Lines file")
    columns = named_columns(text, label, text_a=text_a, text_b=text_b, split=split, task=task, reader="from_jsonl")
    records, encoding = _read_records(path, encoding)
    keys = list(dict.fromkeys(k for _, record in records for k in record))
    check_columns(path.name, keys, columns.wanted, kind="keys")
    table = Table(columns, path.name, "line", {"encoding": encoding, "format": "jsonl"})
    read_records(table, records, label_names=label_names, skip_empty=skip_empty)
    check_rows(table, skip_empty)
    return labelled_dataset(
        table, task=task, label_names=label_names, dev=dev, test=test, seed=seed, name=name or path.stem,
        source=str(path), verbose=verbose,
    )  # fmt: skip


def _read_records(path: Path, encoding: str | None) -> tuple[list[tuple[int, dict]], str]:
    """``(line, object)`` for each object in the file, and the encoding it was decoded with.

    Raises:
        ValueError: the file is Parquet or binary, empty, or holds something other than JSON objects.
    """
    raw = path.read_bytes()
    if raw.startswith(b"PAR1"):
        raise ValueError(f"{path.name} is not a JSON Lines file.{format_hint(path, 'jsonl')}")
    content, encoding = decode_text(path, raw, encoding)
    content = content.lstrip("\ufeff")
    if not content.strip():
        raise ValueError(f"{path.name} is empty: it needs one JSON object per line, e.g. {_EXAMPLE}.")
    if content.lstrip().startswith("["):
        return _array_records(path, content), encoding
    records = []
    for number, line in enumerate(content.split("\n"), 1):  # JSON escapes a line break inside a string
        if line.strip():
            records.append((number, _object(path, number, line, first=not records)))
    if len(records) == 1 and records[0][1] and all(isinstance(v, (dict, list)) for v in records[0][1].values()):
        raise ValueError(
            f"{path.name} holds one object of whole columns ({list(records[0][1])[:5]}), not one object per row: "
            "pandas' to_json() writes that by default. Write it with to_json(orient='records', lines=True)."
        )
    return records, encoding


def _object(path: Path, number: int, line: str, *, first: bool) -> dict:
    """The JSON object on one line.

    Raises:
        ValueError: the line is not valid JSON, or holds a JSON value that is not an object.
    """
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        hint = ""
        if first and line.strip() == "{":
            hint = (
                " The file holds JSON spread over several lines, not one object per line: write it with "
                "to_json(orient='records', lines=True)."
            )
        elif first:
            hint = " If it is a CSV or TSV file, name it .csv or .tsv."
        raise ValueError(
            f"{path.name}, line {number}: not valid JSON ({exc.msg}, at column {exc.colno}). Each line must hold "
            f"one whole JSON object, e.g. {_EXAMPLE}.{hint}"
        ) from None
    return _checked_object(path, number, value)


def _checked_object(path: Path, number: int, value) -> dict:
    """``value`` if it is a JSON object.

    Raises:
        ValueError: it is another JSON value (a list, a string, a number ...).
    """
    if isinstance(value, dict):
        return value
    kind = {list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(type(value), "a number")
    raise ValueError(
        f"{path.name}, line {number}: a JSON value that is {kind}, not an object. Each row must be one object of "
        f"named fields, e.g. {_EXAMPLE}."
    )


def _array_records(path: Path, content: str) -> list[tuple[int, dict]]:
    """``(line, object)`` for each item of a JSON array of objects (a ``.json`` file), each on the line it starts.

    Raises:
        ValueError: the array is not valid JSON or empty, an item is not an object, or something follows the array.
    """
    decoder, records, line, counted = json.JSONDecoder(), [], 1, 0
    pos = _SPACE.match(content, content.index("[") + 1).end()
    try:
        while not (content.startswith("]", pos) and not records):
            value, end = decoder.raw_decode(content, pos)
            line, counted = line + content.count("\n", counted, pos), pos
            records.append((line, _checked_object(path, line, value)))
            pos = _SPACE.match(content, end).end()
            if content.startswith("]", pos):
                break
            if not content.startswith(",", pos):
                raise json.JSONDecodeError("Expecting ',' or ']' after an item", content, pos)
            pos = _SPACE.match(content, pos + 1).end()
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path.name}, line {exc.lineno}: not valid JSON ({exc.msg}, at column {exc.colno}). A .json file must "
            f"hold one array of objects, [{_EXAMPLE}, ...], or one object per line (JSON Lines)."
        ) from None
    rest = _SPACE.match(content, pos + 1).end()
    if rest < len(content):
        raise ValueError(
            f"{path.name}, line {content.count(chr(10), 0, rest) + 1}: more after the JSON array closed; a .json "
            "file must hold one array of objects."
        )
    if not records:
        raise ValueError(f"{path.name} holds an empty JSON array: it needs objects, e.g. [{_EXAMPLE}].")
    return records
