r"""Your own data, one entry point: :func:`read` turns a file, a folder or a Hugging Face dataset into a TextDataset.

The format comes from the name, or the first bytes where those disagree (:func:`data_kind`); its settings from a
small object (:class:`CsvFormat`, :class:`JsonlFormat`, :class:`ConllFormat`, :class:`ConlluFormat`), refused with
what the file is when it does not fit. Labelled rows are read with the :class:`Columns` named and split by
:class:`Splits`.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "mine.csv").write_text("review,stars\n" + "".join(f"text {i},{i % 2}\n" for i in range(20)))
>>> ds = read(folder / "mine.csv", Columns(text="review", label="stars"), verbose=False)
>>> ds.task, ds.label_names, ds.sizes()
('classification', ['0', '1'], {'train': 16, 'dev': 2, 'test': 2})
>>> read(folder / "mine.csv", Columns(text="review", label="stars"), ConllFormat(tag_column=2))
Traceback (most recent call last):
...
ValueError: ConllFormat does not apply to mine.csv: it is CSV (by its name). For CSV pass CsvFormat(...) ...
"""

from __future__ import annotations

from pathlib import Path

from .conll import ConllFormat, conll_dataset, is_conllu_file, is_tagged_file
from .conllu import ConlluFormat, conllu_dataset
from .csv_reader import CsvFormat, csv_table
from .dataset import TextDataset
from .file_formats import FORMAT_NAMES, SUFFIX_FORMATS, content_format, is_hf_disk
from .hf_reader import hf_table, is_dataset, load_saved, own_name
from .jsonl_reader import JsonlFormat, jsonl_table
from .labelled_table import Columns, Request, Splits, check_rows, labelled_dataset
from .parquet_reader import parquet_table

__all__ = ["read", "data_kind", "Columns", "Splits", "CsvFormat", "JsonlFormat", "ConllFormat", "ConlluFormat"]

#: Each kind of data :func:`data_kind` tells apart, in words: tagged tokens, then labelled rows.
KIND_NAMES = {"conllu": "CoNLL-U", "conll": "CoNLL (a token and its tags per line)", **FORMAT_NAMES}
#: The format settings each kind takes (Parquet and saved Hugging Face datasets take none).
FORMATS = {"csv": CsvFormat, "jsonl": JsonlFormat, "conll": ConllFormat, "conllu": ConlluFormat}
#: Tagged tokens: the kinds read into a tagging data set.
TAGGED = ("conll", "conllu")
#: What :func:`read` reads, in words, as its messages say it.
READS = (
    "a file (CSV/TSV: .csv .tsv .tab .txt; JSON Lines: .jsonl .ndjson .json; Parquet: .parquet .pq; CoNLL: .conll "
    ".iob .bio .bioes; CoNLL-U: .conllu), a folder of a treebank's .conllu files, a CoNLL-2003 folder (with "
    "task='tagging'; kit run: --task tagging), or a folder that datasets' save_to_disk wrote"
)


def data_kind(path, task: str | None = None) -> str:
    """The kind of data in ``path``: by the ``task`` asked for, the file's name, then its content.

    ``"conllu"`` (a ``.conllu`` name or folder, or CoNLL-U content, for no task or ``tagging``), ``"conll"``
    (``task="tagging"``, ``.conll``/``.iob``/...); rows: ``"csv"``, ``"jsonl"``, ``"parquet"``, ``"hf_disk"`` (a
    ``save_to_disk`` folder), by name or by first bytes showing Parquet or JSON; ``"folder"``: any other folder.

    Example:
        >>> data_kind("ud.conllu"), data_kind("ner.txt", "tagging"), data_kind("own.jsonl"), data_kind("a.tsv")
        ('conllu', 'conll', 'jsonl', 'csv')
    """
    return _found(Path(path).expanduser(), task)[0]


def _found(path: Path, task: str | None) -> tuple[str, str]:
    """The kind of ``path`` and what said so: ``"task"``, ``"content"``, ``"name"``, ``"folder"`` or ``"nothing"``."""
    content = content_format(path)
    if task in (None, "tagging") and (is_conllu_file(path) or content == "conllu"):
        return "conllu", "name" if is_conllu_file(path) else "content"
    if is_tagged_file(path, task):
        return "conll", "task" if task == "tagging" else "name"
    if path.is_dir():
        return ("hf_disk" if is_hf_disk(path) else "folder"), "folder"
    suffix = path.suffix.lower()
    if content in ("parquet", "jsonl"):
        return content, "name" if SUFFIX_FORMATS.get(suffix) == content else "content"
    return SUFFIX_FORMATS.get(suffix, "csv"), "name" if suffix in SUFFIX_FORMATS else "nothing"


def saved_dataset_around(path: Path) -> Path | None:
    """The folder of a saved Hugging Face dataset that the file ``path`` is part of, or None."""
    return next((p for p in (path.parent, path.parent.parent) if path.is_file() and is_hf_disk(p)), None)


def read(
    source, columns: Columns | None = None, fmt=None, *, splits: Splits | None = None, task: str | None = None,
    skip_empty: bool = False, name: str | None = None, verbose: bool = True,
) -> TextDataset:  # fmt: skip
    r"""Read your data into a :class:`TextDataset`: labelled rows by the columns named, or tagged tokens.

    Pairs: ``read(path, Columns(text_a="q1", text_b="q2", label="dup"))``; tagged tokens: ``read("ner.conll")``,
    ``read("ud.conllu", fmt=ConlluFormat("xpos"))``. ``source``: a file or folder (:func:`data_kind`), or a
    ``datasets.Dataset``/``DatasetDict`` in memory; ``fmt`` (encoding, delimiter, tag column or field) also says the
    format where the name does not (``.txt``). ``splits`` defaults to seeded, stratified ``dev=0.1, test=0.1, seed=0``;
    a folder or ``DatasetDict`` keeps its own. ``task`` is inferred and said: fractions or over 20 distinct integers are
    regression, names or a few integers classes; ``"tagging"`` reads a CoNLL file of any name. ``skip_empty`` drops rows
    with an empty or null text (else an error); ``name`` defaults to the file's stem or a dataset's own name;
    ``verbose`` prints rows, task and why, split sizes. ``info`` says how the file was read (task's reason, encoding).

    Raises:
        FileNotFoundError: no such file or folder (IsADirectoryError: a folder of none of the kinds read).
        KeyError: a column you named is not in the file (the message lists the columns there are).
        ValueError: an ending, setting or column that does not apply, or a row that does not fit (line and fix named).

    Example:
        >>> import csv, tempfile
        >>> path = Path(tempfile.mkdtemp()) / "mine.tsv"
        >>> rows = [[f"line one\nline {i}, two", "good" if i % 2 else "bad"] for i in range(40)]
        >>> with open(path, "w", newline="", encoding="cp1252") as f:
        ...     csv.writer(f, delimiter="\t").writerows([["review", "stars"], *rows])
        >>> ds = read(path, Columns(text="review", label="stars"), CsvFormat(encoding="cp1252"), verbose=False)
        >>> ds.label_names, ds.sizes(), ds.train.texts[0].split("\n")[0], ds.info["delimiter"]
        (['bad', 'good'], {'train': 32, 'dev': 4, 'test': 4}, 'line one', '\t')
    """
    splits = splits or Splits()
    if is_dataset(source):
        return _read_dataset(source, Request(columns or Columns(), splits, task, skip_empty), fmt, name, verbose)
    path = _existing(source)
    kind, fmt = _kind_and_format(path, task, fmt)
    if kind in TAGGED:
        _no_row_options(path, kind, columns, splits, skip_empty)
        return (conll_dataset if kind == "conll" else conllu_dataset)(path, fmt, splits, name, verbose)
    request = Request(columns or Columns(), splits, task, skip_empty)  # the columns and the task checked
    if kind == "hf_disk":
        return _read_dataset(load_saved(path), request, None, name or path.name, verbose, path)
    readers = {"csv": csv_table, "jsonl": jsonl_table}
    table = parquet_table(path, request) if kind == "parquet" else readers[kind](path, request, fmt)
    check_rows(table)
    return labelled_dataset(table, name=name or path.stem, source=str(path), verbose=verbose)


def _read_dataset(dataset, request: Request, fmt, name, verbose: bool, path: Path | None = None) -> TextDataset:
    """A Hugging Face dataset (in memory, or loaded from the folder ``path``) as a :class:`TextDataset`."""
    source = name or own_name(dataset) or "hf_dataset"
    if fmt is not None:
        raise ValueError(f"{type(fmt).__name__} does not apply to {source}, a Hugging Face dataset: drop fmt=.")
    table = hf_table(dataset, request, source, verbose)
    what = "the saved Hugging Face dataset" if path else "the Hugging Face dataset"
    table.description = f"your data: {what} {path.name if path else source}"
    check_rows(table)
    return labelled_dataset(table, name=source, source=str(path or ""), verbose=verbose)


def _existing(source) -> Path:
    """``source`` as a :class:`~pathlib.Path` (``~`` expanded), checked to be there and not inside a saved dataset."""
    path = Path(source).expanduser()
    if not path.exists():
        raise FileNotFoundError(
            f"No such file or folder: {path}. Check the path (relative paths start at {Path.cwd()})."
        )
    inside = saved_dataset_around(path)
    if inside is not None:
        raise ValueError(
            f"{path.name} is a file inside a saved Hugging Face dataset; read the folder save_to_disk wrote: {inside}."
        )
    return path


def _kind_and_format(path: Path, task: str | None, fmt):
    """The kind of ``path`` (:func:`data_kind`) and its format settings: ``fmt``, or the kind's defaults."""
    kind, why = _found(path, task)
    wanted = next((k for k, f in FORMATS.items() if isinstance(fmt, f)), None)
    if fmt is not None and wanted is None:
        raise TypeError(f"fmt={fmt!r}: give one of {', '.join(f.__name__ for f in FORMATS.values())}.")
    # where the name says nothing (.txt, an unknown ending), or a folder may be CoNLL's, the format given says the kind
    weak = kind == "csv" and (why == "nothing" or path.suffix.lower() == ".txt")
    if wanted is not None and wanted != kind and (weak or (kind == "folder" and wanted in TAGGED)):
        kind = wanted
    if kind == "folder":
        raise IsADirectoryError(f"{path} is a folder of none of the kinds read: read takes {READS}.")
    if why == "nothing" and wanted is None:
        raise ValueError(
            f"{path.name}: read does not know the ending {path.suffix or '(none)'!r}. It reads {READS}. A CSV under "
            "another name: rename it .csv, or pass fmt=CsvFormat() (kit run: --delimiter ','); a spreadsheet: save "
            "it as CSV (UTF-8)."
        )
    if wanted is not None and wanted != kind:
        raise ValueError(_does_not_apply(path, fmt, kind, why))
    return kind, fmt if fmt is not None else FORMATS[kind]() if kind in FORMATS else None


def _does_not_apply(path: Path, fmt, kind: str, why: str) -> str:
    """Why the format settings ``fmt`` do not apply to ``path``, of kind ``kind`` (found by ``why``), and the fix."""
    by = {"content": f"by its content, whatever its name {path.suffix!r}", "task": "as task='tagging' asks"}
    what = KIND_NAMES[kind]
    fix = (
        f"For {what} pass {FORMATS[kind].__name__}(...) or nothing."
        if kind in FORMATS
        else f"{what[0].upper()}{what[1:]} has no format settings: drop fmt=."
    )
    if kind == "csv" and isinstance(fmt, ConllFormat):
        fix += " A CoNLL file of another name: pass task='tagging' (kit run: --task tagging)."
    return f"{type(fmt).__name__} does not apply to {path.name}: it is {what} ({by.get(why, 'by its ' + why)}). {fix}"


def _no_row_options(path: Path, kind: str, columns: Columns | None, splits: Splits, skip_empty: bool) -> None:
    """Check that no option of labelled rows (columns, a split column, ``skip_empty``) is given for tagged tokens."""
    given = [f"Columns({', '.join(columns.given)})"] if columns is not None and columns.given else []
    given += [f"Splits(column={splits.column!r})"] * bool(splits.column) + ["skip_empty=True"] * skip_empty
    if given:
        tags = "ConllFormat(tag_column=N)" if kind == "conll" else "ConlluFormat(tag_field='upos')"
        raise ValueError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to {path.name}: it holds tagged "
            f"tokens ({'CoNLL' if kind == 'conll' else 'CoNLL-U'}), a token per line and its tag in a column. Read it "
            f"without them; the tags' column is a format setting: {tags}."
        )
