"""Your own data in a notebook: from ``kit run NN --data FILE ...`` to a :class:`TextDataset`, checked on the way.

``kit run`` (and ``kit lab``) check the data flags together (:meth:`OwnData.from_flags`), pass them to the kernel as
environment variables (:meth:`OwnData.env`) and read the data as the notebook will (:func:`check_data`); the
notebook's parameters cell reads it with :func:`notebook_dataset`.

>>> OwnData.from_env({}) is None           # no KIT_DATA_FILE set: the notebook's default data
True
>>> OwnData("my.conll").is_tagged, OwnData("my.csv", Columns(text="t", label="l")).is_tagged
(True, False)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .dataset import TextDataset
from .labelled_table import Columns
from .read import (
    KIND_NAMES,
    TAGGED,
    ConllFormat,
    ConlluFormat,
    CsvFormat,
    JsonlFormat,
    data_kind,
    read,
    saved_dataset_around,
)

#: Environment variables ``kit run`` sets from its flags; notebooks read them in their parameters cell.
OWN_DATA_ENV = {
    "file": "KIT_DATA_FILE",
    "text": "KIT_TEXT",
    "label": "KIT_LABEL",
    "text_a": "KIT_TEXT_A",
    "text_b": "KIT_TEXT_B",
    "task": "KIT_TASK",
    "encoding": "KIT_ENCODING",
    "delimiter": "KIT_DELIMITER",
    "skip_empty": "KIT_SKIP_EMPTY",
    "tag_column": "KIT_TAG_COLUMN",
}
_COLUMNS = ("text", "label", "text_a", "text_b")


@dataclass(frozen=True)
class OwnData:
    """A user's data as ``kit run --data ...`` passes it to a notebook: the file and how :func:`kit.data.read` reads it.

    ``file``: ``--data`` (absolute when made from the flags); ``columns``: ``--text``, ``--label``, ``--text-a``,
    ``--text-b``; ``fmt``: ``--encoding``, ``--delimiter``, ``--tag-column`` (None: the format's defaults); ``task``:
    ``--task`` (``"tagging"`` for tagged tokens; None infers it); ``skip_empty``: ``--skip-empty``.
    """

    file: str
    columns: Columns = Columns()
    fmt: CsvFormat | JsonlFormat | ConllFormat | ConlluFormat | None = None
    task: str | None = None
    skip_empty: bool = False

    @classmethod
    def from_flags(
        cls, data, columns: Columns | None = None, *, task=None, skip_empty=False, encoding=None, delimiter=None,
        tag_column=None,
    ) -> OwnData | None:  # fmt: skip
        r"""The user's data from ``kit run``'s (or ``kit lab``'s) data flags, checked together; None without ``data``.

        A relative ``data`` is read from the folder the command was typed in (the kernel gets the absolute path);
        without it no other flag may be given. ``task="tagging"``: CoNLL tagged tokens, as a ``.conll`` name says.
        ``encoding``: a text file's when not UTF-8; ``delimiter``: a CSV's when the header does not show it (``tab``,
        ``TAB`` or ``\t``: a tab); ``tag_column``: CoNLL's number from 0, or CoNLL-U's field name or 1-10.
        FileNotFoundError: ``data`` missing or a file inside a saved Hugging Face dataset; IsADirectoryError: a folder
        of none of the kinds read; ValueError: flags that do not go together, or a flag without ``--data``.

        Example:
            >>> OwnData.from_flags(None, Columns(text="review"))
            Traceback (most recent call last):
            ...
            ValueError: --text need --data FILE (your CSV/TSV, JSON Lines, Parquet, a saved Hugging Face dataset's
            folder, or a CoNLL/CoNLL-U file of tagged tokens).
        """
        columns = columns or Columns()
        flags = {k: getattr(columns, k) for k in _COLUMNS} | {
            "task": task, "encoding": encoding, "delimiter": delimiter, "skip_empty": skip_empty or None,
            "tag_column": None if tag_column is None else str(tag_column),
        }  # fmt: skip
        if data is None:
            stray = _flags_given(flags, flags)
            if stray:
                raise ValueError(
                    f"{', '.join(stray)} need --data FILE (your CSV/TSV, JSON Lines, Parquet, a saved Hugging Face "
                    "dataset's folder, or a CoNLL/CoNLL-U file of tagged tokens)."
                )
            return None
        path = _data_path(data)
        kind = data_kind(path, task)
        if kind == "folder":
            raise IsADirectoryError(
                f"--data {data} is a folder. kit run reads a file (CSV/TSV, .jsonl, .parquet, .conll, .conllu), or a "
                "folder of a treebank's .conllu files, a CoNLL-2003 folder (with --task tagging), or one that "
                "datasets' save_to_disk wrote."
            )
        if kind in TAGGED:
            return cls(str(path), fmt=_tagged_format(kind, flags), task="tagging")
        return cls(str(path), columns, _rows_format(kind, flags), task, bool(skip_empty))

    @classmethod
    def from_env(cls, environ: Mapping | None = None) -> OwnData | None:
        """The user's data from ``KIT_DATA_FILE`` & co. (:data:`OWN_DATA_ENV`), as :meth:`env` wrote them.

        ``environ`` defaults to this process's environment. None when no file is set (the notebook's default data); a
        variable set without ``KIT_DATA_FILE``, or variables that do not fit together, raise ValueError.
        """
        environ = os.environ if environ is None else environ
        values = {k: environ.get(v) or None for k, v in OWN_DATA_ENV.items()}
        if not values["file"]:
            stray = [OWN_DATA_ENV[k] for k, v in values.items() if v]
            if stray:
                raise ValueError(
                    f"{', '.join(stray)} set without {OWN_DATA_ENV['file']}: give the file too "
                    "(kit run NN --data my.csv --text COL --label COL)."
                )
            return None
        columns = Columns(**{k: values[k] for k in _COLUMNS})
        skip = (values["skip_empty"] or "").lower() in ("1", "true", "yes")
        options = {k: values[k] for k in ("task", "encoding", "delimiter", "tag_column")}
        return cls.from_flags(values["file"], columns, skip_empty=skip, **options)

    def env(self) -> dict[str, str]:
        """The environment variables (:data:`OWN_DATA_ENV`) that pass this data to a notebook's kernel.

        Example:
            >>> OwnData("/data/my.csv", Columns(text="t", label="l"), CsvFormat(delimiter=";")).env()["KIT_DELIMITER"]
            ';'
        """
        fmt = self.fmt
        tag = getattr(fmt, "tag_column", getattr(fmt, "tag_field", None))
        values = {k: getattr(self.columns, k) for k in _COLUMNS} | {
            "file": self.file, "task": self.task, "skip_empty": "1" if self.skip_empty else None,
            "encoding": getattr(fmt, "encoding", None), "delimiter": getattr(fmt, "delimiter", None),
            "tag_column": None if tag in (-1, "upos") else tag,
        }  # fmt: skip
        return {OWN_DATA_ENV[k]: str(v) for k, v in values.items() if v is not None}

    @property
    def name(self) -> str:
        """The file's name, as banners and tables show it (``my_reviews.csv``)."""
        return os.path.basename(self.file)

    @property
    def kind(self) -> str:
        """The kind of data (:func:`kit.data.data_kind`): ``"conllu"``, ``"conll"``, ``"csv"``, ``"jsonl"`` ..."""
        return data_kind(self.file, self.task)

    @property
    def is_tagged(self) -> bool:
        """Tagged tokens: CoNLL-U, or CoNLL form (``task="tagging"``, or a name ending in ``.conll``, ``.iob`` ...)."""
        return self.kind in TAGGED

    def describe(self) -> str:
        """The data as a notebook's header shows it: the file and its columns, or its tag column or field."""
        kind, c = self.kind, self.columns
        if kind == "conllu":
            return f"{self.file} (tagged tokens, CoNLL-U, tag field {getattr(self.fmt, 'tag_field', 'upos')})"
        if kind == "conll":
            return f"{self.file} (tagged tokens, CoNLL form, tag column {getattr(self.fmt, 'tag_column', -1)})"
        cols = f"text_a={c.text_a!r}, text_b={c.text_b!r}" if c.pair else f"text={c.text!r}"
        return f"{self.file} ({cols}, label={c.label!r}" + (f", task={self.task!r}" if self.task else "") + ")"

    def load(self, verbose: bool = True) -> TextDataset:
        """Read the data with :func:`kit.data.read` (a ValueError names the line and the fix)."""
        return read(self.file, self.columns, self.fmt, task=self.task, skip_empty=self.skip_empty, verbose=verbose)


# --- the flags, checked together -------------------------------------------------------------------------------------


def _data_path(data) -> Path:
    """``--data`` as an absolute path, checked to be there and not a file inside a saved Hugging Face dataset."""
    path = Path(data).expanduser().resolve()
    if not path.exists():
        raise FileNotFoundError(f"--data {data}: no such file (looked for {path}).")
    inside = saved_dataset_around(path)
    if inside is not None:
        raise FileNotFoundError(
            f"--data {data} is a file inside a saved Hugging Face dataset: pass its folder, --data {inside}."
        )
    return path


def _do_not_apply(flags: list[str]) -> str:
    """``"--text does not apply"`` or ``"--text, --label do not apply"``."""
    return f"{', '.join(flags)} {'does' if len(flags) == 1 else 'do'} not apply"


def _flags_given(flags: dict, names) -> list[str]:
    """The command-line spelling (``--text-a``) of each of ``names`` that ``flags`` sets, in the order of ``names``."""
    return [f"--{k.replace('_', '-')}" for k in names if flags[k]]


def _tagged_format(kind: str, flags: dict) -> ConllFormat | ConlluFormat:
    """The format of tagged tokens (CoNLL or CoNLL-U) from the flags: only ``--encoding`` and ``--tag-column`` apply."""
    stray = _flags_given(flags, ("text", "label", "text_a", "text_b", "delimiter", "skip_empty"))
    column, encoding = flags["tag_column"], flags["encoding"]
    if kind == "conllu":
        if stray:
            raise ValueError(
                f"{_do_not_apply(stray)} to CoNLL-U: a word per line in ten fields, the tags in one of "
                "them (--tag-column upos, the default, or xpos, deprel, ...; or its number 1-10, 4 = UPOS)."
            )
        return ConlluFormat(column or "upos", encoding)
    if stray:
        raise ValueError(
            f"{_do_not_apply(stray)} to tagged tokens: a CoNLL file has a token per line and "
            "its tag in a column (--tag-column N, from 0 = the token; default -1, the last)."
        )
    if column is not None and not column.lstrip("-").isdigit():
        raise ValueError(
            f"--tag-column {column}: a CoNLL file's tag column is a number (0 = the token, -1 = the last). "
            "Field names (upos, xpos ...) are for CoNLL-U: name the file .conllu."
        )
    return ConllFormat(-1 if column is None else int(column), encoding)


def _rows_format(kind: str, flags: dict) -> CsvFormat | JsonlFormat | None:
    """The format of labelled rows (CSV, JSON Lines, Parquet, a saved dataset) from the flags, the columns checked."""
    if flags["tag_column"] is not None:
        raise ValueError(
            "--tag-column is for tagged tokens (a CoNLL file: --task tagging or a .conll name; CoNLL-U: .conllu)."
        )
    text_flags = {"delimiter": ("csv",), "encoding": ("csv", "jsonl")}  # the formats each flag applies to
    unfit = [f for f, kinds in text_flags.items() if flags[f] and kind not in kinds]
    if unfit:
        raise ValueError(
            f"{_do_not_apply(_flags_given(flags, unfit))} to {KIND_NAMES[kind]}: "
            + ("--delimiter is for CSV/TSV files. " if "delimiter" in unfit else "")
            + ("--encoding is for text files (CSV, JSON Lines, CoNLL, CoNLL-U)." if "encoding" in unfit else "")
        )
    if flags["label"] is None:
        raise ValueError("--data needs --label COL (the column with the labels or scores).")
    pair = flags["text_a"] is not None or flags["text_b"] is not None
    if pair and (flags["text_a"] is None or flags["text_b"] is None):
        raise ValueError("Sentence pairs need both --text-a COL and --text-b COL.")
    if pair == (flags["text"] is not None):
        raise ValueError("Give --text COL for single texts, or --text-a COL --text-b COL for pairs (not both).")
    delimiter = "\t" if flags["delimiter"] in ("\\t", "tab", "TAB") else flags["delimiter"]  # what a shell passes
    if kind == "csv" and (delimiter or flags["encoding"]):
        return CsvFormat(flags["encoding"], delimiter)
    return JsonlFormat(flags["encoding"]) if kind == "jsonl" and flags["encoding"] else None


# --- what a notebook takes -------------------------------------------------------------------------------------------


def check_kind(ds: TextDataset, tasks, notebook: str = "this notebook", needs: str | None = None) -> TextDataset:
    """``ds``, unchanged, once its task is checked to be one of ``tasks``, what the notebook's experiment can use.

    Else ValueError saying what the notebook ``needs`` (default: the tasks joined by "or", then "data").
    """
    if ds.task not in tasks:
        raise ValueError(
            f"{notebook} needs {needs or ' or '.join(tasks) + ' data'} (task "
            f"{' or '.join(map(repr, tasks))}); {ds.source or ds.name} gives task {ds.task!r}. "
            + (
                "Pass --task classification if the numbers are classes. "
                if ds.task == "regression" and "classification" in tasks
                else ""
            )
            + "Notebook 00 takes any kind of labelled rows (CSV, JSON Lines, Parquet, a saved Hugging Face dataset)."
        )
    return ds


def check_data(env: Mapping, tasks=None, notebook: str = "this notebook") -> TextDataset | None:
    """Read the user's data from a run's environment (:meth:`OwnData.env`) as the notebook will, before it starts.

    Every problem (encoding, columns, empty texts, a class too small, data the notebook cannot use, for ``tasks`` not
    None) stops within seconds with the notebook's own message (ValueError, or KeyError for a column not in the
    header). None when ``env`` names no file.
    """
    own = OwnData.from_env(env)
    if own is None:
        return None
    ds = own.load()
    return check_kind(ds, tasks, notebook) if tasks else ds


def notebook_dataset(
    default, *, tasks=("classification",), needs: str = "single texts with class labels",
    notebook: str = "this notebook", verbose: bool = True,
) -> TextDataset:  # fmt: skip
    """The user's data (``kit run --data ...``), checked against ``tasks``, if a file is set; else ``default()``.

    Data of another kind stops at once with a ValueError saying what the notebook ``needs`` (``kit run`` checks the
    same before a kernel starts); ``verbose`` prints what the reader found. ``default()`` is not checked.
    """
    own = OwnData.from_env()
    if own is None:
        return default()
    return check_kind(own.load(verbose), tasks, notebook, needs)
