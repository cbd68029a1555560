r"""Tagged tokens in CoNLL form for :func:`kit.data.read`: a token per line, its tag in a column, to a tagging set.

Notebook 03's tagging task: ``kit run 03 --data my.conll`` (``--tag-column N`` when the tag is not last). A folder
with CoNLL-2003's file names keeps its splits; a file is split by sentences (seeded). What CoNLL and CoNLL-U
(:mod:`kit.data.conllu`) share lives here too: tagged names, the split of sentences, the tagging data set.

>>> import tempfile, os
>>> path = Path(tempfile.mkdtemp()) / "mine.conll"
>>> sent = "Peter NNP B-PER\nvisits VBZ O\nParis NNP B-LOC\n.\t.\tO\n\n"
>>> _ = path.write_text("-DOCSTART- -X- O\n\n" + sent * 30, encoding="utf-8")
>>> ds = conll_dataset(path, ConllFormat(), Splits(), name=None, verbose=False)
>>> ds.task, ds.label_names, ds.sizes(), ds.train.texts[0]
('tagging', ['B-LOC', 'B-PER', 'O'], {'train': 24, 'dev': 3, 'test': 3}, ['Peter', 'visits', 'Paris', '.'])
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .dataset import Split, TextDataset
from .encoding import decode_text
from .file_formats import content_format
from .labelled_table import Splits
from .parsers import conll_sentences
from .splits import split_given

#: File endings of tagged tokens (any file works with ``task="tagging"``): CoNLL form, and CoNLL-U (``.conllu``).
TAGGED_SUFFIXES = (".conll", ".conllu", ".iob", ".bio", ".bioes")
#: CoNLL-2003's file names per split, in a folder.
SPLIT_FILES = {
    "train": ("eng.train", "train.txt", "train.conll"),
    "dev": ("eng.testa", "valid.txt", "dev.txt", "dev.conll", "valid.conll"),
    "test": ("eng.testb", "test.txt", "test.conll"),
}


@dataclass(frozen=True)
class ConllFormat:
    """How to read tagged tokens in CoNLL form (:func:`kit.data.read`).

    Attributes:
        tag_column: the tag's column, 0-based (-1: the last; 0 is the token).
        encoding: the file's encoding; None reads UTF-8, or UTF-16 where a BOM says so.
    """

    tag_column: int = -1
    encoding: str | None = None


def is_tagged_file(path, task: str | None = None) -> bool:
    """Tell whether ``path`` is read as tagged tokens: ``task="tagging"``, or no task and a tagged name.

    Example:
        >>> is_tagged_file("ner.conll"), is_tagged_file("ner.txt", "tagging"), is_tagged_file("ner.conll", "pairs")
        (True, True, False)
    """
    return task == "tagging" or (task is None and Path(path).suffix.lower() in TAGGED_SUFFIXES)


def is_conllu_file(path) -> bool:
    """Tell whether ``path`` is CoNLL-U by its name: a ``.conllu`` name (any case), or a folder holding such files.

    Example:
        >>> is_conllu_file("en_ewt-ud-train.conllu"), is_conllu_file("ner.conll")
        (True, False)
    """
    path = Path(path).expanduser()
    if path.is_dir():
        return any(p.is_file() and p.name.lower().endswith(".conllu") for p in path.iterdir())
    return path.name.lower().endswith(".conllu")


def conll_dataset(path: Path, fmt: ConllFormat, splits: Splits, name: str | None, verbose: bool = True) -> TextDataset:
    """Read a CoNLL-form file (or a folder of CoNLL-2003's three files) into a tagging :class:`TextDataset`.

    Texts are token lists, labels tag ids (``label_names`` sorted); spaces or tabs, CRLF fine, ``-DOCSTART-`` skipped.
    ``info``: ``tag_column`` and, for chunk tags (``B-``, ``I-``, ``S-``, ``E-``), the ``entities`` per split.
    FileNotFoundError: a folder without a split's file; ValueError: a malformed line, one tag only, or CoNLL-U.
    """
    if path.is_dir():
        files = {k: next((path / c for c in names if (path / c).is_file()), None) for k, names in SPLIT_FILES.items()}
        missing = [f"{k} ({' or '.join(SPLIT_FILES[k])})" for k, f in files.items() if f is None]
        if missing:
            raise FileNotFoundError(
                f"{path} is a folder, so it needs one CoNLL file per split; none for "
                f"{', '.join(missing)}. Or give one file and the kit splits it."
            )
        parts = {k: _read(f, fmt) for k, f in files.items()}
    else:
        parts = split_sentences({"all": _read(path, fmt)}, splits)
    fix = f"Is the tag in another column? (ConllFormat(tag_column=N), kit run: --tag-column N; now {fmt.tag_column})."
    ds = tagged_dataset(path, parts, name, "token has the tag", fix)
    ds.info["tag_column"] = fmt.tag_column
    if any(t[:2] in ("B-", "I-", "S-", "E-") for t in ds.label_names):  # chunk tags: count the entities per split
        ds.info["entities"] = {k: sum(_spans(tags) for _, tags in part) for k, part in parts.items()}
    if verbose:
        print(tagged_summary(path, ds))
    return ds


def split_sentences(read: dict[str, list], splits: Splits) -> dict[str, list]:
    """``{split: sentences}`` from the sentences read per split (``"all"``: one file), those missing cut from train."""
    items = [s for part in read.values() for s in part]
    given = ["train" if k == "all" else k for k, part in read.items() for _ in part]
    parts = split_given(given, dev=splits.dev, test=splits.test, seed=splits.seed)
    return {k: [items[i] for i in idx] for k, idx in parts.items()}


def tagged_dataset(path: Path, parts: dict[str, list], name: str | None, one_tag: str, fix: str) -> TextDataset:
    """The tagging data set of ``{split: [(tokens, tags), ...]}``: tag ids by sorted names, at least two of them.

    One tag only raises ValueError: the file, ``one_tag``, the tag, then ``fix``.
    """
    names = sorted({t for part in parts.values() for _, tags in part for t in tags})
    if len(names) < 2:
        raise ValueError(f"{path.name}: every {one_tag} {names[0]!r}; a tagger needs at least two tags. {fix}")
    index = {t: i for i, t in enumerate(names)}
    splits = {k: Split([s for s, _ in p], [[index[t] for t in tags] for _, tags in p]) for k, p in parts.items()}
    return TextDataset(
        name or path.stem, "tagging", splits, names, source=str(path), description=f"your data: {path.name}", info={}
    )


def tagged_summary(path: Path, ds: TextDataset, tags: str = "tags", end: str = "") -> str:
    """The line a tagged-token reader prints: sentences, tags (``tags`` says which), task, split sizes, ``end``."""
    sizes = ", ".join(f"{k} {v:,}" for k, v in ds.sizes().items())
    n = sum(ds.sizes().values())
    return f"{path.name}: {n:,} sentences, {len(ds.label_names)} {tags}, task 'tagging'; {sizes}{end}"


def _spans(tags: list[str]) -> int:
    """Count the entities in one sentence's BIO/IOB1/BIOES tags."""
    n, prev = 0, "O"
    for tag in tags:
        kind = tag[2:] if tag[:2] in ("B-", "I-", "S-", "E-") else None
        if kind is not None and (
            tag[:2] in ("B-", "S-") or prev[2:] != kind or prev[:2] in ("E-", "S-") or prev == "O"
        ):
            n += 1
        prev = tag if kind is not None else "O"
    return n


def _read(path: Path, fmt: ConllFormat) -> list:
    """One file's ``(tokens, tags)`` per sentence."""
    if content_format(path) == "conllu":
        raise ValueError(
            f"{path.name}: this is a CoNLL-U file: name it .conllu (kit.data.read and kit run read .conllu by "
            "themselves). Its words have 10 tab-separated fields (ID FORM LEMMA UPOS ...); the CoNLL-U reader reads "
            "its comments, multiword tokens and tag fields by name (upos, xpos)."
        )
    text, _ = decode_text(path, path.read_bytes(), fmt.encoding)
    return conll_sentences(text.lstrip("\ufeff"), path.name, fmt.tag_column)
