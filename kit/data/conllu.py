r"""Universal Dependencies treebanks: a CoNLL-U file (or a treebank's folder) to a tagging :class:`TextDataset`.

CoNLL-U (https://universaldependencies.org/format.html): a word per line in ten tab-separated fields numbered 1-10
(:data:`FIELDS`), ``#`` comments (``# text = ...``: the sentence as written), a blank line after each sentence.
Multiword tokens (ID ``1-2``, Spanish *vámonos* = *vamos* + *nos*) and empty nodes (ID ``8.1``) are skipped: texts
are the syntactic words' FORMs. Notebook 03: ``kit run 03 --data treebank.conllu`` (UPOS; ``--tag-column xpos``).

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "es.conllu"
>>> sent = ("# text = Vámonos al mar.\n1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_\n1\tVamos\tir\tVERB\t_\t_\t0\troot\t_\t_\n"
...         "2\tnos\tnosotros\tPRON\t_\t_\t1\tobj\t_\t_\n3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_\n"
...         "3\ta\ta\tADP\t_\t_\t5\tcase\t_\t_\n4\tel\tel\tDET\t_\t_\t5\tdet\t_\t_\n"
...         "5\tmar\tmar\tNOUN\t_\t_\t1\tobl\t_\tSpaceAfter=No\n6\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n")
>>> _ = path.write_text(sent * 20, encoding="utf-8")
>>> ds = conllu_dataset(path, ConlluFormat(), Splits(), name=None, verbose=False)
>>> ds.label_names, ds.sizes()
(['ADP', 'DET', 'NOUN', 'PRON', 'PUNCT', 'VERB'], {'train': 16, 'dev': 2, 'test': 2})
>>> ds.train.texts[0], ds.info["sentence_text"]["train"][0]
(['Vamos', 'nos', 'a', 'el', 'mar', '.'], 'Vámonos al mar.')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .conll import split_sentences, tagged_dataset, tagged_summary
from .dataset import TextDataset
from .encoding import decode_text
from .labelled_table import Splits
from .parsers import lines
from .sources import Source, materialize

#: CoNLL-U's ten fields, in order: field number ``i`` (1-10, as UD's documentation numbers them) is ``FIELDS[i - 1]``.
FIELDS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
#: The numbering, in words, as the messages say it.
NUMBERING = "CoNLL-U numbers its fields 1-10: " + ", ".join(f"{i} {f}" for i, f in enumerate(FIELDS, 1))
#: The 17 universal part-of-speech tags of UD v2 (https://universaldependencies.org/u/pos/).
UD_UPOS = (
    "ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT", "SCONJ", "SYM",
    "VERB", "X",
)  # fmt: skip
#: Fields where ``_`` is a value (FEATS, MISC: the empty list), not an unspecified tag.
UNDERSCORE_IS_A_VALUE = ("FEATS", "MISC")
#: A split's names in a treebank's file names: ``<lang>_<treebank>-ud-<name>.conllu`` or ``<name>.conllu``.
SPLIT_NAMES = {"train": ("train",), "dev": ("dev", "valid", "validation"), "test": ("test",)}
#: Google's Turkish Web Treebank in CoNLL-U (UPOS and XPOS, 2,541 sentences), in the ``turkish-treebanks`` 1.0.0 wheel
#: on PyPI (Apache 2.0).
TURKISH_WEB_TREEBANK = Source(
    "pypi",
    "https://files.pythonhosted.org/packages/1f/a1/5cb856d7e926e8ae8ae73317cce2302281b46a01f381d9287c16abeee6ec/"
    "turkish_treebanks-1.0.0-py3-none-any.whl",
    "5a009c29a8e96e8f7e25059d59ac293c3baead6d746bf0fa4c9d3349b1e37ba0",
    prefix="data/web.conllu",
    note="turkish-treebanks 1.0.0 wheel (Apache 2.0) carries Google's Turkish Web Treebank, data/web.conllu",
)

_ID = re.compile(r"(\d+)(?:-(\d+)|\.(\d+))?")
_TEXT = re.compile(r"#\s*text\s*=(.*)")


def field_number(tag_field: str | int, name: str = "the file") -> int:
    """A CoNLL-U field's number, 1-10, from its name (``"upos"``, ``"xpos"``, ``"deprel"``, ...; any case) or number.

    Numbered as CoNLL-U's documentation: 1 ID, 2 FORM, 3 LEMMA, 4 UPOS, 5 XPOS, 6 FEATS, 7 HEAD, 8 DEPREL, 9 DEPS,
    10 MISC. An unknown name, a number outside 1-10, or ID/FORM (the word, not a tag) raises ValueError.

    Example:
        >>> field_number("UPOS"), field_number("xpos"), field_number(8), field_number("5")
        (4, 5, 8, 5)
    """
    if isinstance(tag_field, str) and tag_field.strip().upper() in FIELDS:
        number = FIELDS.index(tag_field.strip().upper()) + 1
    else:
        try:
            number = int(tag_field) if not isinstance(tag_field, bool) else None
        except (TypeError, ValueError):
            raise ValueError(
                f"{name}: unknown CoNLL-U field {tag_field!r}: name one of "
                f"{', '.join(f.lower() for f in FIELDS[2:])} (any case), or give its number; {NUMBERING}."
            ) from None
        if number is None or not 1 <= number <= 10:
            raise ValueError(
                f"{name}: field number {tag_field!r} is outside 1-10: {NUMBERING} (not from 0, and no -1 for the "
                "last). The tag is usually UPOS (4) or XPOS (5)."
            )
    if number <= 2:
        raise ValueError(
            f"{name}: field {number} ({FIELDS[number - 1]}) is the word itself, not a tag: choose a tag field, e.g. "
            f"upos (4) or xpos (5); {NUMBERING}."
        )
    return number


@dataclass(frozen=True)
class ConlluFormat:
    """How to read CoNLL-U (:func:`kit.data.read`): which field holds the tags, and the encoding.

    Attributes:
        tag_field: the tags' field, by name (``"upos"``, ``"xpos"``, ``"deprel"`` ...; any case) or number 1-10
            (:func:`field_number`).
        encoding: the file's encoding; None reads UTF-8, or UTF-16 where a BOM says so.
    """

    tag_field: str | int = "upos"
    encoding: str | None = None


def conllu_dataset(
    path: Path, fmt: ConlluFormat, splits: Splits, name: str | None, verbose: bool = True
) -> TextDataset:
    """Read a CoNLL-U file (or a treebank's folder of them) into a tagging :class:`TextDataset`.

    Texts: the words' FORMs; labels: tag ids of the chosen field (``label_names`` sorted). A folder keeps a treebank's
    splits (``<lang>_<treebank>-ud-train.conllu``, ``-ud-dev``, ``-ud-test``, or ``train.conllu`` ...; a missing one,
    often dev, is split off train, seeded); a file is split by sentences, seeded. UTF-8 (BOM fine), CRLF read. ``info``:
    ``tag_field``, ``tag_field_number``, ``sentence_text`` (each sentence's ``# text`` or None, per split),
    ``multiword_tokens`` and ``empty_nodes`` (lines skipped), ``split`` (where the splits come from).

    Raises:
        FileNotFoundError: the folder has no ``.conllu`` file for train.
        ValueError: a malformed line (not 10 tab-separated fields, a bad ID or ID order, ``_`` as the tag; file and
            line named), a bad tag field (ID or FORM, outside 1-10), under 2 distinct tags, or no sentences.
    """
    number = field_number(fmt.tag_field, path.name)
    files = _split_files(path) if path.is_dir() else {"all": path}
    counts = {"multiword_tokens": 0, "empty_nodes": 0}
    read = {}
    for k, f in files.items():
        read[k], reader = _read(f, number, fmt.encoding)
        counts["multiword_tokens"] += reader.multiword
        counts["empty_nodes"] += reader.empty
    parts = split_sentences(read, splits)
    missing = [k for k in ("dev", "test") if k not in read]
    how = (
        "one file, split by sentences"
        if "all" in read
        else "the folder's train, dev and test files"
        if not missing
        else f"the folder's files; {' and '.join(missing)} split off train (seeded)"
    )
    what = f"{FIELDS[number - 1]} ({number})"
    fix = f"Choose another field: tag_field='upos' or 'xpos' (kit run: --tag-column upos); {NUMBERING}."
    pairs = {k: [(s.tokens, s.tags) for s in p] for k, p in parts.items()}
    ds = tagged_dataset(path, pairs, name, f"word has the {what} tag", fix)
    ds.info.update(
        tag_field=FIELDS[number - 1],
        tag_field_number=number,
        sentence_text={k: [s.text for s in part] for k, part in parts.items()},
        **counts,
        split=how,
    )
    skipped = f"; skipped {counts['multiword_tokens']:,} multiword-token lines, {counts['empty_nodes']:,} empty nodes"
    end = f" ({how})" + (skipped if counts["multiword_tokens"] or counts["empty_nodes"] else "")
    if verbose:
        print(tagged_summary(path, ds, f"{FIELDS[number - 1]} tags (field {number})", end))
    return ds


def turkish_web_treebank() -> Path:
    """Fetch Google's Turkish Web Treebank (CoNLL-U: UPOS, XPOS, 2,541 sentences; Apache 2.0): ``web.conllu``'s path.

    From the ``turkish-treebanks`` 1.0.0 wheel on PyPI (:data:`TURKISH_WEB_TREEBANK`, SHA-256 checked), cached under
    :func:`kit.config.data_dir`; set ``KIT_DATA_TURKISH_WEB_TREEBANK`` to a folder with ``web.conllu`` (or the wheel).
    FileNotFoundError: no source answered (offline) or no ``web.conllu`` there; ValueError: a failed SHA-256 check.

    Example:
        >>> ds = kit.data.read(turkish_web_treebank())  # doctest: +SKIP
    """
    try:
        report = materialize("turkish_web_treebank", [TURKISH_WEB_TREEBANK], expects="the folder with web.conllu")
    except FileNotFoundError as exc:  # the registry's hint names `kit data fetch`, which does not know this file
        tried = str(exc).split("\nIf you")[0]
        raise FileNotFoundError(
            f"{tried}\nRun turkish_web_treebank() once where PyPI answers (it stays cached), or download "
            f"{TURKISH_WEB_TREEBANK.url} (sha256 {TURKISH_WEB_TREEBANK.sha256}) and set KIT_DATA_TURKISH_WEB_TREEBANK "
            "to that wheel (or to a folder holding web.conllu)."
        ) from exc
    path = Path(report.path) / "web.conllu"
    if not path.is_file():
        raise FileNotFoundError(
            f"{report.path} has no web.conllu (from {report.source}). Point KIT_DATA_TURKISH_WEB_TREEBANK at the "
            "folder that holds it, or unset it to fetch the wheel from PyPI."
        )
    return path


# --- reading --------------------------------------------------------------------------------------------------------


@dataclass
class _Sentence:
    tokens: list[str]
    tags: list[str]
    text: str | None


def _split_of(file: Path) -> str | None:
    """The split a treebank file's name says (``en_ewt-ud-train.conllu``, ``dev.conllu``, ...), or None."""
    stem = file.name[: -len(".conllu")].lower()
    for split, aliases in SPLIT_NAMES.items():
        if any(stem == a or stem.endswith((f"-{a}", f"_{a}", f".{a}")) for a in aliases):
            return split
    return None


def _split_files(folder: Path) -> dict[str, Path]:
    """A treebank folder's file per split (``train`` needed), or ``{"all": file}`` for a folder of one file."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith(".conllu"))
    if not files:
        raise FileNotFoundError(
            f"{folder} is a folder with no .conllu file: put a treebank's <lang>_<treebank>-ud-train.conllu, "
            "-ud-dev.conllu and -ud-test.conllu (or train.conllu, dev.conllu, test.conllu) there, or give one file."
        )
    found = {k: [f for f in files if _split_of(f) == k] for k in SPLIT_NAMES}
    for k, fs in found.items():
        if len(fs) > 1:
            raise ValueError(
                f"{folder} has {len(fs)} .conllu files for {k}: {[f.name for f in fs]}. Keep one treebank per "
                "folder, or give one file."
            )
    if not any(found.values()):
        if len(files) == 1:
            return {"all": files[0]}
        raise FileNotFoundError(
            f"{folder} holds .conllu files but none is named for a split: {[f.name for f in files]}. Name them "
            "<lang>_<treebank>-ud-train.conllu, -ud-dev.conllu, -ud-test.conllu (or train.conllu, dev.conllu, "
            "test.conllu), or give one file and the kit splits it."
        )
    if not found["train"]:
        raise FileNotFoundError(
            f"{folder} has no train file (…-ud-train.conllu or train.conllu), only "
            f"{[f.name for fs in found.values() for f in fs]}. A tagger needs one to train on."
        )
    return {k: fs[0] for k, fs in found.items() if fs}


def _read(path: Path, number: int, encoding) -> tuple[list[_Sentence], _Reader]:
    """One file's sentences, its ``_`` tags checked (all of them: the field is empty here; some: the first's line)."""
    text, _ = decode_text(path, path.read_bytes(), encoding)
    reader = _Reader(path.name, number)
    reader.read(text.lstrip("\ufeff"))
    if not reader.sentences:
        raise ValueError(
            f"{path.name} holds no sentences. CoNLL-U has a word per line, its 10 fields separated by tabs "
            "(ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC), a blank line after each sentence, # for comments."
        )
    what = f"{FIELDS[number - 1]} ({number})"
    if reader.unspecified == reader.words:
        filled = [f"{f.lower()} ({i + 1})" for i, f in enumerate(FIELDS) if i in reader.filled and i > 1]
        raise ValueError(
            f"{path.name}: the {what} field is empty in this file (every word has _, unspecified). Fields with values "
            f"here: {', '.join(filled) or 'none'}; choose one (tag_field='upos', kit run: --tag-column upos). "
            f"{NUMBERING}."
        )
    if reader.unspecified:
        raise ValueError(
            f"{path.name}, line {reader.first_unspecified}: the {what} tag is _ (unspecified), but other words have "
            f"one ({reader.unspecified:,} of {reader.words:,} words have _). Give every word its tag, or choose "
            f"another field; {NUMBERING}."
        )
    return reader.sentences, reader


@dataclass
class _Reader:
    """Reads CoNLL-U line by line: the words' FORMs and tags per sentence, the ID order checked as it goes."""

    name: str
    number: int
    sentences: list = field(default_factory=list)
    words: int = 0
    unspecified: int = 0
    first_unspecified: int | None = None
    filled: set = field(default_factory=set)
    multiword: int = 0
    empty: int = 0
    _tokens: list = field(default_factory=list)
    _tags: list = field(default_factory=list)
    _text: str | None = None
    _last: int = 0  # the last word's ID in this sentence
    _range: tuple = (0, 0)  # the last multiword token's range end and its line
    _started: bool = False

    def read(self, text: str) -> None:
        for lineno, line in enumerate(lines(text), 1):
            if not line.strip():
                self._end()
            elif line.startswith("#"):
                self._comment(line, lineno)
            else:
                self._word_line(line, lineno)
        self._end()

    def _end(self) -> None:
        if self._range[0] > self._last:
            raise ValueError(
                f"{self.name}, line {self._range[1]}: a multiword token's range ends at {self._range[0]}, but the "
                f"sentence's last word is {self._last}. Its words follow the range line, one line each."
            )
        if self._tokens:
            self.sentences.append(_Sentence(self._tokens, self._tags, self._text))
        self._tokens, self._tags, self._text, self._last, self._range, self._started = [], [], None, 0, (0, 0), False

    def _comment(self, line: str, lineno: int) -> None:
        if self._started:
            raise ValueError(
                f"{self.name}, line {lineno}: a comment inside a sentence, after its word lines: {line[:60]!r}. "
                "CoNLL-U puts comments before a sentence: if a new sentence starts here, put a blank line before it."
            )
        match = _TEXT.fullmatch(line)
        if match and self._text is None:
            self._text = match.group(1).strip()

    def _word_line(self, line: str, lineno: int) -> None:
        cols = line.split("\t")
        if len(cols) != 10:
            raise ValueError(_width_message(self.name, lineno, line, cols))
        word = self._check_id(cols[0], lineno)
        self._started = True
        if not word:
            return
        tag = cols[self.number - 1]
        for i, value in ((1, cols[1]), (self.number - 1, tag)):
            if not value:
                raise ValueError(
                    f"{self.name}, line {lineno}: field {i + 1} ({FIELDS[i]}) is empty. CoNLL-U writes _ for an "
                    f"unspecified value, with a tab between fields (an extra tab shifts them); {NUMBERING}."
                )
        self.filled.update(i for i, v in enumerate(cols) if v != "_" and i not in self.filled)
        self.words += 1
        if tag == "_" and FIELDS[self.number - 1] not in UNDERSCORE_IS_A_VALUE:
            self.unspecified += 1
            self.first_unspecified = self.first_unspecified or lineno
        self._tokens.append(cols[1])
        self._tags.append(tag)

    def _check_id(self, value: str, lineno: int) -> bool:
        """Check the ID against the sentence so far; True for a word (an integer), False for a range or empty node."""
        match = _ID.fullmatch(value)
        where = f"{self.name}, line {lineno}"
        if not match:
            raise ValueError(
                f"{where}: ID {value!r} is not a word's number (1, 2, ...), a multiword token's range (1-2) or an "
                "empty node's (8.1). The ID is field 1 of 10, separated by tabs; a comment line starts with #."
            )
        n, end, sub = int(match.group(1)), match.group(2), match.group(3)
        if end is not None:  # a multiword token: its words come next
            if n != self._last + 1 or int(end) <= n or self._range[0] >= n:
                raise ValueError(
                    f"{where}: multiword token {value} after word {self._last}: a range comes just before its first "
                    f"word and spans two or more, so it starts at {self._last + 1} and ends past it, without overlap."
                )
            self._range, self.multiword = (int(end), lineno), self.multiword + 1
            return False
        if sub is not None:  # an empty node i.k follows word i (0.k: before the first word)
            if n != self._last or int(sub) < 1:
                raise ValueError(
                    f"{where}: empty node {value} after word {self._last}: an empty node i.1, i.2, ... follows word i "
                    f"(0.1 comes before the first word), so here it is {self._last}.1, {self._last}.2, ..."
                )
            self.empty += 1
            return False
        if n != self._last + 1:
            first = "a sentence's words are numbered 1, 2, 3, ..." if self._last == 0 else "IDs count up by 1"
            raise ValueError(
                f"{where}: word ID {n} after {self._last}, where {self._last + 1} comes next: {first} within a "
                "sentence. If a new sentence starts here, put a blank line before it."
            )
        self._last = n
        return True


def _width_message(name: str, lineno: int, line: str, cols: list[str]) -> str:
    """What is wrong with a line that has not 10 tab-separated fields, and the fix."""
    spaced = len(line.split())
    if "\t" not in line and spaced >= 10:
        why = "it looks separated by spaces: CoNLL-U needs a tab between fields (spaces may sit only inside a field)"
    elif spaced >= 10 and len(cols) < 10:
        why = "some of its fields are separated by spaces: CoNLL-U needs a tab between fields"
    elif len(cols) < 10:
        why = "a field is missing: write _ for an unspecified value"
    else:
        why = "a field too many: a tab inside a field, or one at the end of the line?"
    return (
        f"{name}, line {lineno}: expected the 10 tab-separated fields of CoNLL-U (ID FORM LEMMA UPOS XPOS FEATS HEAD "
        f"DEPREL DEPS MISC), got {len(cols)}: {line[:80]!r}; {why}. A comment line starts with #, a blank line ends "
        "a sentence."
    )
