r"""Which format a file of your data is in: by its name first, by its first bytes where the name says nothing or lies.

:func:`file_format` is what a dispatcher asks before it picks a reader: ``"csv"``, ``"jsonl"``, ``"parquet"`` or
``"hf_disk"`` (a folder written by ``datasets.save_to_disk``), or ``"folder"`` for any other folder (CoNLL is the
tagged-token reader's to find). :func:`describe_format` and :func:`format_hint` say what a file that a reader
could not read looks like instead, so its message names the real cause ("it looks like JSON Lines, not CSV: name it
.jsonl") rather than a CSV column list of JSON fragments.

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "own.csv"
>>> _ = path.write_text('{"text": "They shed innocent blood", "label": "neg"}\n')
>>> file_format(path), describe_format(path)
('jsonl', 'JSON Lines')
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
HF_MARKERS = ("dataset_dict.json", "state.json", "dataset_info.json")
#: Each format in words, as messages say it.
FORMAT_NAMES = {
    "csv": "CSV",
    "jsonl": "JSON Lines",
    "parquet": "Parquet",
    "hf_disk": "a saved Hugging Face dataset",
    "conllu": "CoNLL-U",
}
#: What to rename a file to, and the reader that reads it in Python.
_FIXES = {
    "jsonl": ("name it .jsonl", "kit.data.from_jsonl"),
    "parquet": ("name it .parquet", "kit.data.from_parquet"),
    "hf_disk": ("pass its folder", "kit.data.from_hf_disk"),
    "conllu": ("name it .conllu", None),
}
_HEAD_BYTES = 1 << 16
_CONLLU_COMMENT = re.compile(r"#\s*(sent_id|text|newdoc|newpar|global\.columns)\b")
_CONLLU_ID = re.compile(r"\d+(-\d+|\.\d+)?$")


def is_hf_disk(path) -> bool:
    """Whether ``path`` is a folder that ``datasets.save_to_disk`` wrote (a Dataset's or a DatasetDict's).

    Args:
        path: a file or folder.

    Returns:
        True for a folder holding ``dataset_dict.json`` (a DatasetDict) or ``state.json`` (a Dataset).

    Example:
        >>> is_hf_disk(".")
        False
    """
    path = Path(path).expanduser()
    return path.is_dir() and any((path / m).is_file() for m in HF_MARKERS[:2])


def file_format(path) -> str:
    """The format of a file of labelled rows: by its name, or by its first bytes where those say otherwise.

    A strong sign in the content wins over the name (Parquet's ``PAR1`` magic, a first line that is a JSON object
    or a JSON array of objects): a JSON Lines file named ``.csv`` is ``"jsonl"``. Otherwise the name decides
    (``.csv .tsv .tab .txt``, ``.jsonl .ndjson .json``, ``.parquet .pq``), and an unknown name is ``"csv"``.

    Args:
        path: the file or folder (it need not exist: then the name alone decides).

    Returns:
        ``"csv"``, ``"jsonl"``, ``"parquet"``, ``"hf_disk"`` (a folder ``save_to_disk`` wrote), or ``"folder"``
        (any other folder: a CoNLL corpus, or not data).

    Example:
        >>> file_format("reviews.tsv"), file_format("x.ndjson"), file_format("x.pq"), file_format("notes")
        ('csv', 'jsonl', 'parquet', 'csv')
    """
    path = Path(path).expanduser()
    if path.is_dir():
        return "hf_disk" if is_hf_disk(path) else "folder"
    found = content_format(path) if path.is_file() else None
    if found in ("parquet", "jsonl"):
        return found
    return SUFFIX_FORMATS.get(path.suffix.lower(), "csv")


def content_format(path) -> str | None:
    r"""The format a file's first bytes show, whatever its name, or None when they show nothing in particular.

    Args:
        path: the file.

    Returns:
        ``"parquet"`` (the ``PAR1`` magic), ``"jsonl"`` (a first line that is a JSON object, or a JSON array of
        objects), ``"conllu"`` (CoNLL-U's ``# sent_id``/``# text`` comments, or ten tab-separated fields that
        start with a token number), ``"hf_disk"`` (a ``save_to_disk`` folder), or None (CSV, plain text, other).

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


def describe_format(path) -> str | None:
    """What a file or folder looks like by its content, in words, or None when it looks like nothing in particular.

    Args:
        path: the file or folder.

    Returns:
        ``"JSON Lines"``, ``"Parquet"``, ``"CoNLL-U"``, ``"a saved Hugging Face dataset"``, or None (CSV, plain
        text, a binary file of another kind).

    Example:
        >>> describe_format("no/such/file.csv") is None
        True
    """
    found = content_format(path)
    return FORMAT_NAMES[found] if found else None


def format_hint(path, read_as: str) -> str:
    """A sentence for a reader's error when the file is of another format than the one it was read as.

    Args:
        path: the file or folder.
        read_as: the format it was read as (``"csv"``, ``"jsonl"``, ``"parquet"``, ``"hf_disk"``, ``"conllu"``).

    Returns:
        ``" It looks like JSON Lines, not CSV: name it .jsonl ..."`` (with its leading space), or ``""`` when the
        content shows no other format.

    Example:
        >>> format_hint("no/such/file.csv", "csv")
        ''
    """
    found = content_format(path)
    if found is None or found == read_as:
        return ""
    rename, reader = _FIXES.get(found, ("rename it", None))
    return (
        f" It looks like {FORMAT_NAMES[found]}, not {FORMAT_NAMES.get(read_as, read_as)}: {rename} (kit run picks "
        "the reader by the name: .csv/.tsv, .jsonl, .parquet, .conll/.conllu, or a saved Hugging Face dataset's "
        f"folder)" + (f", or read it with {reader}." if reader else ".")
    )
