"""JSON Lines for :func:`kit.data.read`: one JSON object per line (or a ``.json`` array of objects), keys as columns.

What ``DataFrame.to_json(orient="records", lines=True)`` writes. Blank lines are skipped; a number or boolean label
becomes the string a CSV would hold (``true`` -> ``"true"``), so the task is inferred as for a CSV; null is missing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .encoding import decode_text
from .labelled_table import Request, Table, check_columns, read_records

_EXAMPLE = '{"text": "a good film", "label": "pos"}'
_SPACE = re.compile(r"[ \t\r\n]*")


@dataclass(frozen=True)
class JsonlFormat:
    """How to read a JSON Lines file (:func:`kit.data.read`): ``encoding``, None for UTF-8 (UTF-16 with a BOM)."""

    encoding: str | None = None


def jsonl_table(path: Path, request: Request, fmt: JsonlFormat) -> Table:
    r"""The named keys of every object in a JSON Lines file (or a ``.json`` array of objects), as a table.

    KeyError: a key in no object (the keys there are listed); ValueError: not JSON, not an object, a row without the
    key (the line and the fix named).

    Example:
        >>> import tempfile
        >>> from kit.data.labelled_table import Columns
        >>> path = Path(tempfile.mkdtemp()) / "mine.jsonl"
        >>> _ = path.write_text('{"text": "line one\\nline two", "label": true}\n', encoding="utf-8")
        >>> jsonl_table(path, Request(Columns(text="text", label="label")), JsonlFormat()).values
        {'text': ['line one\nline two'], 'label': ['true']}
    """
    records, encoding = _read_records(path, fmt.encoding)
    keys = list(dict.fromkeys(k for _, record in records for k in record))
    check_columns(path.name, keys, request.wanted, kind="keys")
    table = Table(request, path.name, "line", {"encoding": encoding, "format": "jsonl"})
    read_records(table, records)
    return table


def _read_records(path: Path, encoding: str | None) -> tuple[list[tuple[int, dict]], str]:
    """``(line, object)`` for each object in the file, and the encoding it was decoded with."""
    content, encoding = decode_text(path, path.read_bytes(), encoding)
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
    """The JSON object on one line."""
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
    """``value`` if it is a JSON object."""
    if isinstance(value, dict):
        return value
    kind = {list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(type(value), "a number")
    raise ValueError(
        f"{path.name}, line {number}: a JSON value that is {kind}, not an object. Each row must be one object of "
        f"named fields, e.g. {_EXAMPLE}."
    )


def _array_records(path: Path, content: str) -> list[tuple[int, dict]]:
    """``(line, object)`` for each item of a JSON array of objects (a ``.json`` file), each on the line it starts."""
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
