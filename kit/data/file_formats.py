r"""What a file of your data looks like: the formats its name says, and the one its first bytes show.

:func:`content_format` tells :func:`kit.data.data_kind` the format where a name says nothing or lies;
:func:`format_hint` lets a reader's message name the real cause ("it looks like CoNLL-U, not CSV: name it .conllu").

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "own.csv"
>>> _ = path.write_text('{"text": "They shed innocent blood", "label": "neg"}\n')
>>> content_format(path), SUFFIX_FORMATS[path.suffix]
('jsonl', 'csv')
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

#: File name endings and the format each names.
SUFFIX_FORMATS = {
    ".csv": "csv",
    ".tsv": "csv",
    ".tab": "csv",
    ".txt": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
#: The files ``datasets.save_to_disk`` writes into its folder: a DatasetDict's, then a Dataset's.
HF_MARKERS = ("dataset_dict.json", "state.json")
#: Each format in words, as messages say it.
FORMAT_NAMES = {
    "csv": "CSV",
    "jsonl": "JSON Lines",
    "parquet": "Parquet",
    "hf_disk": "a saved Hugging Face dataset",
    "conllu": "CoNLL-U",
}
#: What to do with a file that looks like each format.
_FIXES = {"jsonl": "name it .jsonl", "parquet": "name it .parquet", "hf_disk": "pass its folder"}
_FIXES["conllu"] = "name it .conllu"
_HEAD_BYTES = 1 << 16
_CONLLU_COMMENT = re.compile(r"#\s*(sent_id|text|newdoc|newpar|global\.columns)\b")
_CONLLU_ID = re.compile(r"\d+(-\d+|\.\d+)?$")


def is_hf_disk(path) -> bool:
    """Whether ``path`` is a folder ``datasets.save_to_disk`` wrote (``dataset_dict.json`` or ``state.json`` in it).

    Example:
        >>> is_hf_disk(".")
        False
    """
    path = Path(path).expanduser()
    return path.is_dir() and any((path / m).is_file() for m in HF_MARKERS)


def content_format(path) -> str | None:
    r"""The format a file's first bytes show, whatever its name, or None when they show nothing in particular.

    ``"parquet"`` (``PAR1``), ``"jsonl"`` (a first line that is a JSON object, or an array of objects), ``"conllu"``
    (``# sent_id``/``# text`` comments, or ten tab-separated fields from a token number), ``"hf_disk"`` (a folder).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "web.txt"
        >>> token = "\t".join(["1", "Burda", "bura", "NOUN", "_", "_", "2", "obl", "_", "_"])
        >>> _ = path.write_text(f"# sent_id = 1\n# text = Burda da\n{token}\n")
        >>> content_format(path)
        'conllu'
    """
    path = Path(path).expanduser()
    if path.is_dir():
        return "hf_disk" if is_hf_disk(path) else None
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD_BYTES)
            complete = not f.read(1)
    except OSError:
        return None
    if head.startswith(b"PAR1"):
        return "parquet"
    text = _head_text(head)
    if text is None:
        return None
    if _looks_like_json(text, complete):
        return "jsonl"
    if _looks_like_conllu(text):
        return "conllu"
    return None


def _head_text(head: bytes) -> str | None:
    """The first bytes as text (a BOM's encoding, else UTF-8 with bad bytes replaced), or None for binary bytes."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return head.decode("utf-16", errors="replace")
    if b"\x00" in head[:4096]:
        return None
    return head.decode("utf-8", errors="replace").lstrip("\ufeff")


def _looks_like_json(text: str, complete: bool) -> bool:
    """A first non-blank line that is a JSON object, or a JSON array whose first item is an object."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        return stripped[1:].lstrip().startswith("{")
    if not stripped.startswith("{"):
        return False
    first, newline, _ = stripped.partition("\n")
    try:
        return isinstance(json.loads(first), dict)
    except json.JSONDecodeError:  # cut off by the head (a long first line) is still an object's start
        return not newline and not complete and bool(re.match(r'\{\s*"', first))


def _looks_like_conllu(text: str) -> bool:
    """CoNLL-U's comments before a sentence, or a first token line of ten tab-separated fields."""
    for line in text.splitlines()[:50]:
        if not line.strip():
            continue
        if line.startswith("#"):
            if _CONLLU_COMMENT.match(line):
                return True
            continue
        fields = line.rstrip("\r").split("\t")
        return len(fields) == 10 and bool(_CONLLU_ID.match(fields[0]))
    return False


def format_hint(path, read_as: str) -> str:
    """A sentence for a reader's error when ``path`` is of another format than ``read_as``, or ``""``.

    E.g. ``" It looks like JSON Lines, not CSV: name it .jsonl ..."`` (leading space included).

    Example:
        >>> format_hint("no/such/file.csv", "csv")
        ''
    """
    found = content_format(path)
    if found is None or found == read_as:
        return ""
    return (
        f" It looks like {FORMAT_NAMES[found]}, not {FORMAT_NAMES.get(read_as, read_as)}: {_FIXES[found]} "
        "(kit.data.read and kit run pick the reader by the name: .csv/.tsv, .jsonl, .parquet, .conll/.conllu, or a "
        "saved Hugging Face dataset's folder; or by the content)."
    )
