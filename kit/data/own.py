"""Your own data in a notebook: ``kit run NN --data FILE ...`` sets environment variables, and a notebook's
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
    """A user's file and columns, as ``kit run --data ...`` passes them to a notebook."""

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
        """The user's data from ``KIT_DATA_FILE`` & co., or None when no file is set."""
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
        return self.text_a is not None or self.text_b is not None

    @property
    def is_tagged(self) -> bool:
        """A CoNLL-form file of tagged tokens (``task="tagging"``, or a name ending in ``.conll``, ``.iob`` ...)."""
        return is_tagged_file(self.file, self.task)

    def load(self, **kwargs) -> TextDataset:
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
    """``ds`` if its task is one of ``tasks`` (what a notebook's experiment can use), else a ValueError that says so."""
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
    """The user's CSV (``kit run --data ...``) if one is set, else ``default()``; checked against ``tasks``.

    A notebook states what its experiment can use (``tasks``, and ``needs`` in words); data of another
    kind stops at once with a message that says what it needs (``kit run`` checks the same before a kernel starts).
    """
    own = OwnData.from_env()
    if own is None:
        return default()
    return check_kind(own.load(**kwargs), tasks, notebook, needs)
