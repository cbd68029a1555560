"""Your own data in a notebook: from ``kit run NN --data FILE ...`` to a :class:`TextDataset`.

``kit run NN --data FILE ...`` sets environment variables, and a notebook's
parameters cell turns them into a :class:`TextDataset` with :func:`notebook_dataset`.

This module sits above the file formats (:func:`data_kind` picks one by the file's name, or its content where
that says otherwise): a CSV or TSV goes to :func:`kit.data.from_csv`, JSON Lines to :func:`kit.data.from_jsonl`,
Parquet to :func:`kit.data.from_parquet`, a folder ``datasets.save_to_disk`` wrote to :func:`kit.data.from_hf_disk`;
tagged tokens in CoNLL-U (a Universal Dependencies treebank) to :func:`kit.data.from_conllu`, in CoNLL form to
:func:`kit.data.from_conll`.

>>> OwnData.from_env() is None           # no KIT_DATA_FILE set: the notebook's default data
True
>>> OwnData("my.conll").is_tagged, OwnData("my.csv", text="t", label="l").is_tagged
(True, False)
>>> data_kind("ud.conllu"), data_kind("ner.conll"), data_kind("own.jsonl"), data_kind("own.parquet")
('conllu', 'conll', 'jsonl', 'parquet')
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .conll import from_conll, is_conllu_file, is_tagged_file
from .conllu import from_conllu
from .csv_reader import from_csv
from .dataset import TextDataset
from .file_formats import FORMAT_NAMES, content_format, file_format
from .hf_reader import from_hf_disk
from .jsonl_reader import from_jsonl
from .parquet_reader import from_parquet

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
#: The kinds of file :func:`data_kind` tells apart, in words: tagged tokens, then labelled rows.
KIND_NAMES = {"conllu": "CoNLL-U", "conll": "CoNLL (a token and its tags per line)", **FORMAT_NAMES}
#: The readers of labelled rows, by :func:`data_kind`.
ROW_READERS = {"csv": from_csv, "jsonl": from_jsonl, "parquet": from_parquet, "hf_disk": from_hf_disk}


def data_kind(path, task: str | None = None) -> str:
    """Which reader ``kit run --data`` uses for ``path``: by the task asked for, the file's name, then its content.

    Tagged tokens: ``"conllu"`` (a ``.conllu`` name, a folder of them, or CoNLL-U's form under another name, when
    no task or ``tagging`` is asked for), ``"conll"`` (``--task tagging`` or a ``.conll``/``.iob``/... name).
    Labelled rows: ``"csv"``, ``"jsonl"``, ``"parquet"`` or ``"hf_disk"`` (a folder ``save_to_disk`` wrote), as
    :func:`kit.data.file_formats.file_format` finds them; ``"folder"`` for any other folder.

    Args:
        path: the user's file or folder.
        task: the task asked for (``--task``), or None.

    Returns:
        One of ``"conllu"``, ``"conll"``, ``"csv"``, ``"jsonl"``, ``"parquet"``, ``"hf_disk"``, ``"folder"``.

    Example:
        >>> data_kind("ner.txt", "tagging"), data_kind("reviews.tsv"), data_kind("web.conllu", "classification")
        ('conll', 'csv', 'csv')
    """
    if task in (None, "tagging") and (is_conllu_file(path) or content_format(path) == "conllu"):
        return "conllu"
    if is_tagged_file(path, task):
        return "conll"
    return file_format(path)


@dataclass
class OwnData:
    """A user's file and columns, as ``kit run --data ...`` passes them to a notebook.

    Every field is a string, as the environment holds it (see :data:`OWN_DATA_ENV`).

    Attributes:
        file: the user's file (``KIT_DATA_FILE``).
        text: the text column (``--text``).
        label: the label column (``--label``).
        text_a: the first text column of a pair (``--text-a``).
        text_b: the second text column of a pair (``--text-b``).
        task: the task asked for (``--task``), or None to infer it.
        encoding: the file's encoding (``--encoding``), or None for UTF-8 (or a BOM's).
        delimiter: the CSV delimiter (``--delimiter``), or None to pick it from the header.
        skip_empty: ``"1"``, ``"true"`` or ``"yes"`` to drop rows with an empty text (``--skip-empty``).
        tag_column: tagged tokens' tag column (``--tag-column``): CoNLL, a number from 0 (default -1, the last);
            CoNLL-U, a field's name (default ``upos``) or its number 1-10 as CoNLL-U numbers them.
    """

    file: str
    text: str | None = None
    label: str | None = None
    text_a: str | None = None
    text_b: str | None = None
    task: str | None = None
    encoding: str | None = None
    delimiter: str | None = None
    skip_empty: str | None = None
    tag_column: str | None = None

    @classmethod
    def from_env(cls) -> OwnData | None:
        """Read the user's data from ``KIT_DATA_FILE`` & co.

        Returns:
            The user's data, or None when no file is set (the notebook's default data).

        Raises:
            ValueError: a column or option variable is set without ``KIT_DATA_FILE``.
        """
        values = {k: os.environ.get(v) or None for k, v in OWN_DATA_ENV.items()}
        if not values["file"]:
            stray = [OWN_DATA_ENV[k] for k, v in values.items() if v]
            if stray:
                raise ValueError(
                    f"{', '.join(stray)} set without {OWN_DATA_ENV['file']}: give the file too "
                    "(kit run NN --data my.csv --text COL --label COL)."
                )
            return None
        return cls(**values)

    @property
    def name(self) -> str:
        """The file's name, as banners and tables show it (``my_reviews.csv``)."""
        return os.path.basename(self.file)

    @property
    def is_pair(self) -> bool:
        """Sentence pairs: ``text_a`` or ``text_b`` is set."""
        return self.text_a is not None or self.text_b is not None

    @property
    def kind(self) -> str:
        """The reader the file goes to (:func:`data_kind`): ``"conllu"``, ``"conll"``, ``"csv"``, ``"jsonl"`` ..."""
        return data_kind(self.file, self.task)

    @property
    def is_tagged(self) -> bool:
        """Tagged tokens: CoNLL-U, or CoNLL form (``task="tagging"``, or a name ending in ``.conll``, ``.iob`` ...)."""
        return self.kind in ("conll", "conllu")

    def load(self, **kwargs) -> TextDataset:
        """Read the file with the reader of its kind (:func:`data_kind`).

        Args:
            **kwargs: more arguments for the reader (e.g. ``verbose``, ``seed``); they win over the file's options.

        Returns:
            The user's data set.

        Raises:
            ValueError: ``tag_column`` is not a number (CoNLL) or a field (CoNLL-U), or the reader stops on the
                file (it names the line and fix).
        """
        kind = self.kind
        if kind == "conllu":
            return from_conllu(self.file, self.tag_column or "upos", encoding=self.encoding, **kwargs)
        if kind == "conll":
            return from_conll(self.file, self._conll_column(), encoding=self.encoding, **kwargs)
        columns = {"text": self.text, "label": self.label, "text_a": self.text_a, "text_b": self.text_b}
        options = {"task": self.task, "skip_empty": (self.skip_empty or "").lower() in ("1", "true", "yes")}
        if kind in ("csv", "folder"):
            options.update(encoding=self.encoding, delimiter=self.delimiter)
        elif kind == "jsonl":
            options.update(encoding=self.encoding)
        return ROW_READERS.get(kind, from_csv)(self.file, **columns, **{**options, **kwargs})

    def _conll_column(self) -> int:
        """The CoNLL tag column as a number (default -1, the last)."""
        try:
            return int(self.tag_column) if self.tag_column not in (None, "") else -1
        except ValueError:
            raise ValueError(
                f"The tag column of a CoNLL file is a number (0 = the token, -1 = the last column), got "
                f"{self.tag_column!r}. (Field names such as upos are for CoNLL-U: a .conllu file.)"
            ) from None


def check_kind(ds: TextDataset, tasks, notebook: str = "this notebook", needs: str | None = None) -> TextDataset:
    """Check that ``ds``'s task is one of ``tasks``, what a notebook's experiment can use.

    Args:
        ds: the data set.
        tasks: the tasks the notebook can use.
        notebook: the notebook, as the message names it.
        needs: what the notebook needs, in words (default: the tasks joined by "or", then "data").

    Returns:
        ``ds``, unchanged.

    Raises:
        ValueError: its task is not one of ``tasks``; the message says what the notebook needs.
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


def notebook_dataset(
    default,
    *,
    tasks=("classification",),
    needs: str = "single texts with class labels",
    notebook: str = "this notebook",
    **kwargs,
) -> TextDataset:
    """Load the user's data (``kit run --data ...``) if a file is set, else ``default()``.

    A notebook states what its experiment can use (``tasks``, and ``needs`` in words); data of another
    kind stops at once with a message that says what it needs (``kit run`` checks the same before a kernel starts).

    Args:
        default: a function that returns the notebook's own data set.
        tasks: the tasks the notebook's experiment can use.
        needs: what it needs, in words.
        notebook: the notebook, as the message names it.
        **kwargs: more arguments for the reader of the user's file (:meth:`OwnData.load`).

    Returns:
        The user's data set, checked against ``tasks``, or ``default()`` (not checked).

    Raises:
        ValueError: the user's data is of another kind, or the file cannot be read.
    """
    own = OwnData.from_env()
    if own is None:
        return default()
    return check_kind(own.load(**kwargs), tasks, notebook, needs)
