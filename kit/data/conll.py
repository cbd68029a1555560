r"""Your own tagged data: a CoNLL-form file (a token per line, its tag in a column) to a tagging :class:`TextDataset`.

Notebook 03's tagging task (the paper's NER) can run on it: ``kit run 03 --data my.conll`` (``--tag-column N`` when the
tag is not the last column). A folder with CoNLL-2003's file names (``eng.train``/``eng.testa``/``eng.testb`` or
``train.txt``/``valid.txt``/``test.txt``) keeps its own splits; a single file is split by sentences (seeded).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "mine.conll")
>>> sent = "Peter NNP B-PER\nvisits VBZ O\nParis NNP B-LOC\n.\t.\tO\n\n"
>>> _ = open(path, "w", encoding="utf-8").write("-DOCSTART- -X- O\n\n" + sent * 30)
>>> ds = from_conll(path, verbose=False)
>>> ds.task, ds.label_names, ds.sizes(), ds.train.texts[0]
('tagging', ['B-LOC', 'B-PER', 'O'], {'train': 24, 'dev': 3, 'test': 3}, ['Peter', 'visits', 'Paris', '.'])
"""

from __future__ import annotations

from pathlib import Path

from .conllu import looks_like_conllu
from .dataset import Split, TextDataset
from .encoding import decode_text
from .parsers import conll_sentences
from .splits import split_indices

#: File endings of tagged tokens for ``kit run --data`` (any file works with ``--task tagging``): CoNLL form, read by
#: :func:`from_conll`, and CoNLL-U (``.conllu``, :func:`is_conllu_file`), read by :func:`kit.data.conllu.from_conllu`.
TAGGED_SUFFIXES = (".conll", ".conllu", ".iob", ".bio", ".bioes")
#: CoNLL-2003's file names per split, in a folder.
SPLIT_FILES = {
    "train": ("eng.train", "train.txt", "train.conll"),
    "dev": ("eng.testa", "valid.txt", "dev.txt", "dev.conll", "valid.conll"),
    "test": ("eng.testb", "test.txt", "test.conll"),
}


def is_tagged_file(path, task: str | None = None) -> bool:
    """Tell whether ``kit run --data`` reads ``path`` as CoNLL-form tagged tokens.

    Args:
        path: the user's file.
        task: the task the user asked for, or None.

    Returns:
        True for ``task="tagging"``, or for no task and a name ending in one of :data:`TAGGED_SUFFIXES`.

    Example:
        >>> is_tagged_file("ner.conll"), is_tagged_file("ner.txt", "tagging"), is_tagged_file("ner.conll", "pairs")
        (True, True, False)
    """
    return task == "tagging" or (task is None and Path(path).suffix.lower() in TAGGED_SUFFIXES)


def is_conllu_file(path) -> bool:
    """Tell whether ``path`` is CoNLL-U by its name: the dispatcher sends it to :func:`kit.data.conllu.from_conllu`.

    Args:
        path: the user's file or folder.

    Returns:
        True for a name ending in ``.conllu`` (any case), or a folder that holds ``.conllu`` files (a treebank's).
        (A file of another name in CoNLL-U's form: :func:`kit.data.conllu.looks_like_conllu` on its text.)

    Example:
        >>> is_conllu_file("en_ewt-ud-train.conllu"), is_conllu_file("ner.conll")
        (True, False)
    """
    path = Path(path).expanduser()
    if path.is_dir():
        return any(p.is_file() and p.name.lower().endswith(".conllu") for p in path.iterdir())
    return path.name.lower().endswith(".conllu")


def from_conll(
    path,
    tag_column: int = -1,
    *,
    dev: float = 0.1,
    test: float = 0.1,
    seed: int = 0,
    encoding: str | None = None,
    name: str | None = None,
    verbose: bool = True,
) -> TextDataset:
    """Read a CoNLL-form file (or a folder of CoNLL-2003's three files) into a tagging :class:`TextDataset`.

    Texts are token lists, labels tag ids (``label_names`` sorted). Lines may be separated by spaces or tabs and end
    in CRLF. A folder keeps its own splits (the file names in :data:`SPLIT_FILES`); a single file is split by
    sentences, seeded.

    Args:
        path: the CoNLL-form file, or a folder with one file per split.
        tag_column: the tag's column, 0-based (-1: the last; 0 is the token).
        dev: the fraction of a single file's sentences in dev.
        test: the fraction of a single file's sentences in test.
        seed: the seed of the split.
        encoding: UTF-8 unless a BOM says otherwise; pass e.g. ``"latin-1"`` for other files.
        name: the data set's name (default: the file's name without its suffix).
        verbose: print the number of sentences and tags, the task and the split sizes.

    Returns:
        The data set; its ``info`` holds ``tag_column`` and, for chunk tags (``B-``, ``I-``, ``S-``, ``E-``), the
        ``entities`` per split.

    Raises:
        FileNotFoundError: there is no such file or folder, or the folder has no file for a split.
        ValueError: a malformed line (it stops with its line number), every token has the same tag, or the file is
            CoNLL-U (its form: use :func:`kit.data.conllu.from_conllu`).
    """
    path = Path(path).expanduser()
    raw = _raw_splits(path, tag_column, encoding, dev=dev, test=test, seed=seed)
    names = sorted({t for part in raw.values() for _, tags in part for t in tags})
    if len(names) < 2:
        raise ValueError(
            f"{path.name}: every token has the tag {names[0]!r}; a tagger needs at least two tags. "
            f"Is the tag in another column? (--tag-column N; now {tag_column})."
        )
    index = {t: i for i, t in enumerate(names)}
    splits = {k: Split([s for s, _ in part], [[index[t] for t in tags] for _, tags in part]) for k, part in raw.items()}
    info = {"tag_column": tag_column}
    if any(t[:2] in ("B-", "I-", "S-", "E-") for t in names):  # chunk tags: count the entities per split
        info["entities"] = {k: sum(_spans(tags) for _, tags in part) for k, part in raw.items()}
    ds = TextDataset(
        name or path.stem, "tagging", splits, names, source=str(path), description=f"your data: {path.name}", info=info
    )
    if verbose:
        n = sum(len(p) for p in raw.values())
        print(
            f"{path.name}: {n:,} sentences, {len(names)} tags, task 'tagging'; "
            + ", ".join(f"{k} {v:,}" for k, v in ds.sizes().items())
        )
    return ds


def _raw_splits(path: Path, tag_column: int, encoding: str | None, *, dev: float, test: float, seed: int) -> dict:
    """``{split: [(tokens, tags), ...]}``: a folder's three files, or one file split by sentences (seeded)."""
    if not path.exists():
        raise FileNotFoundError(
            f"No such file or folder: {path}. Check the path (relative paths start at {Path.cwd()})."
        )
    if path.is_dir():
        files = {k: next((path / c for c in names if (path / c).is_file()), None) for k, names in SPLIT_FILES.items()}
        missing = [f"{k} ({' or '.join(SPLIT_FILES[k])})" for k, f in files.items() if f is None]
        if missing and is_conllu_file(path):
            raise ValueError(
                f"{path} holds CoNLL-U files (.conllu): use from_conllu (kit run reads .conllu by itself), which "
                "keeps a treebank's -ud-train/-ud-dev/-ud-test files."
            )
        if missing:
            raise FileNotFoundError(
                f"{path} is a folder, so it needs one CoNLL file per split; none for "
                f"{', '.join(missing)}. Or give one file and the kit splits it."
            )
        return {k: _read(f, tag_column, encoding) for k, f in files.items()}
    sents = _read(path, tag_column, encoding)
    parts = split_indices(len(sents), dev=dev, test=test, seed=seed)
    return {k: [sents[i] for i in idx] for k, idx in parts.items()}


def _spans(tags: list[str]) -> int:
    """Count the entities in one sentence's BIO/IOB1/BIOES tags.

    A span starts at B- or S-, or at an I-/E- that does not continue a span of its type.
    """
    n, prev = 0, "O"
    for tag in tags:
        kind = tag[2:] if tag[:2] in ("B-", "I-", "S-", "E-") else None
        if kind is not None and (
            tag[:2] in ("B-", "S-") or prev[2:] != kind or prev[:2] in ("E-", "S-") or prev == "O"
        ):
            n += 1
        prev = tag if kind is not None else "O"
    return n


def _read(path: Path, tag_column: int, encoding: str | None) -> list:
    text, _ = decode_text(path, path.read_bytes(), encoding)
    if looks_like_conllu(text):
        raise ValueError(
            f"{path.name}: this is a CoNLL-U file: use from_conllu (kit run reads .conllu by itself; rename the file "
            "to .conllu). Its words have 10 tab-separated fields (ID FORM LEMMA UPOS ...); from_conllu reads its "
            "comments, multiword tokens and tag fields by name (upos, xpos)."
        )
    return conll_sentences(text.lstrip("\ufeff"), path.name, tag_column)
