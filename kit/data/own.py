"""Your own data in a notebook: from ``kit run NN --data FILE ...`` to a :class:`TextDataset`.

``kit run NN --data FILE ...`` sets environment variables, and a notebook's
parameters cell turns them into a :class:`TextDataset` with :func:`notebook_dataset`.

This module sits above the file formats: a CSV or TSV goes to :func:`kit.data.from_csv`
(``csv_reader``), a CoNLL-form file of tagged tokens to :func:`kit.data.from_conll` (``conll``).

>>> OwnData.from_env() is None           # no KIT_DATA_FILE set: the notebook's default data
True
>>> OwnData("my.conll").is_tagged, OwnData("my.csv", text="t", label="l").is_tagged
(True, False)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .conll import from_conll, is_tagged_file
from .csv_reader import from_csv
from .dataset import TextDataset

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
        tag_column: a CoNLL file's tag column, a number (``--tag-column``; default -1, the last).
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
    def is_tagged(self) -> bool:
        """A CoNLL-form file of tagged tokens (``task="tagging"``, or a name ending in ``.conll``, ``.iob`` ...)."""
        return is_tagged_file(self.file, self.task)

    def load(self, **kwargs) -> TextDataset:
        """Read the file: a CoNLL-form file with :func:`from_conll`, any other with :func:`from_csv`.

        Args:
            **kwargs: more arguments for the reader (e.g. ``verbose``, ``seed``); they win over the file's options.

        Returns:
            The user's data set.

        Raises:
            ValueError: ``tag_column`` is not a number, or the reader stops on the file (it names the line and fix).
        """
        if self.is_tagged:
            try:
                column = int(self.tag_column) if self.tag_column not in (None, "") else -1
            except ValueError:
                raise ValueError(
                    f"The tag column must be a number (0 = the token, -1 = the last column), got {self.tag_column!r}."
                ) from None
            return from_conll(self.file, column, encoding=self.encoding, **kwargs)
        options = {
            "encoding": self.encoding,
            "delimiter": self.delimiter,
            "skip_empty": (self.skip_empty or "").lower() in ("1", "true", "yes"),
        }
        return from_csv(
            self.file,
            text=self.text,
            label=self.label,
            text_a=self.text_a,
            text_b=self.text_b,
            task=self.task,
            **{**options, **kwargs},
        )


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
            + "Notebook 00 takes any kind of CSV."
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
