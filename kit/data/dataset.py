"""The dataset type every loader returns: named splits of texts and labels.

A :class:`Split` holds parallel ``texts`` (token lists for tagging), ``texts_b`` for pairs, and ``labels``; a
:class:`TextDataset` bundles ``train``, ``dev`` and ``test`` with the task and a licence line.

>>> from kit.data import TextDataset, Split
>>> s = Split(texts=["good", "bad"], labels=[1, 0])
>>> ds = TextDataset("toy", "classification", {"train": s, "dev": s, "test": s},
...                  label_names=["neg", "pos"])
>>> ds.sizes()
{'train': 2, 'dev': 2, 'test': 2}
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .splits import sample_indices

TASKS = ("classification", "regression", "pairs", "pair_regression", "tagging", "corpus")
SPLITS = ("train", "dev", "test")


@dataclass
class Split:
    """One split: texts (or token lists for tagging), optional ``texts_b`` of pairs, and labels, as parallel lists.

    ``labels``: ids into the data set's ``label_names`` for classes, floats for regression, lists of tag ids for
    tagging, None for an unlabeled corpus; a length that does not match ``texts`` raises ValueError.
    """

    texts: list
    labels: list | np.ndarray | None = None
    texts_b: list | None = None

    def __post_init__(self):
        n = len(self.texts)
        if self.labels is not None and len(self.labels) != n:
            raise ValueError(f"{len(self.labels)} labels for {n} texts: they must match one to one.")
        if self.texts_b is not None and len(self.texts_b) != n:
            raise ValueError(f"{len(self.texts_b)} second texts for {n} first texts: pairs must match.")

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def y(self) -> np.ndarray:
        """Labels as a NumPy array (int for classes, float for scores)."""
        if self.labels is None:
            raise ValueError("This split has no labels (it is an unlabeled corpus).")
        return np.asarray(self.labels)

    @property
    def x(self):
        """What a preprocessor takes: the texts, or ``(texts, texts_b)`` for pairs."""
        return self.texts if self.texts_b is None else (self.texts, self.texts_b)

    def take(self, index) -> Split:
        """A new :class:`Split` of the rows at ``index``, in that order (ragged labels, tagging's, stay lists)."""
        index = np.asarray(index, dtype=int)
        pick = lambda seq: None if seq is None else [seq[i] for i in index]  # noqa: E731
        labels = (
            None
            if self.labels is None
            else (np.asarray(self.labels)[index] if not _is_ragged(self.labels) else pick(self.labels))
        )
        return Split(texts=pick(self.texts), labels=labels, texts_b=pick(self.texts_b))

    def head(self, n: int) -> Split:
        """A new :class:`Split` of the first ``n`` rows (all of them when there are fewer)."""
        return self.take(np.arange(min(n, len(self))))


def _is_ragged(labels) -> bool:
    return len(labels) > 0 and isinstance(labels[0], (list, tuple, np.ndarray))


@dataclass
class TextDataset:
    """Named splits plus what a reader needs to trust them: the task, the label names, the licence and the source.

    ``task``: one of :data:`TASKS`; ``splits``: usually ``train``, ``dev``, ``test`` (a corpus: ``all``), none empty;
    ``label_names``: class or tag names in id order, None for regression and corpora; ``info``: anything more a loader
    records (the task's reason, counts, the split's rule ...).
    """

    name: str
    task: str
    splits: dict[str, Split]
    label_names: list[str] | None = None
    licence: str = ""
    description: str = ""
    source: str = ""
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"Unknown task {self.task!r}; use one of {TASKS}.")
        for split_name, split in self.splits.items():
            if len(split) == 0:
                raise ValueError(
                    f"Dataset {self.name!r}: split {split_name!r} is empty. Check the source "
                    "files, or lower the dev/test fractions so every split gets rows."
                )

    def __getitem__(self, split: str) -> Split:
        if split not in self.splits:
            raise KeyError(f"Dataset {self.name!r} has no split {split!r}; it has {list(self.splits)}.")
        return self.splits[split]

    @property
    def train(self) -> Split:
        """The ``train`` split."""
        return self["train"]

    @property
    def dev(self) -> Split:
        """The ``dev`` split."""
        return self["dev"]

    @property
    def test(self) -> Split:
        """The ``test`` split."""
        return self["test"]

    @property
    def num_classes(self) -> int | None:
        """How many labels ``label_names`` holds, or None without names (regression, corpora)."""
        return None if self.label_names is None else len(self.label_names)

    def sizes(self) -> dict[str, int]:
        """``{split name: rows}``, in the splits' order."""
        return {k: len(v) for k, v in self.splits.items()}

    def subsample(self, max_train: int | None = None, max_eval: int | None = None, seed: int = 0) -> TextDataset:
        """A smaller copy for the smoke scale (seeded, stratified for classes).

        At most ``max_train`` rows in train and ``max_eval`` in each other split; None keeps all.
        """
        new = {}
        for name, split in self.splits.items():
            cap = max_train if name == "train" else max_eval
            if cap is None or len(split) <= cap:
                new[name] = split
                continue
            strat = split.labels if self.task in ("classification", "pairs") else None
            new[name] = split.take(sample_indices(len(split), cap, seed=seed, stratify=strat))
        return replace(self, splits=new)

    def select_classes(self, names) -> TextDataset:
        """Keep only the rows of the classes ``names``, relabelled 0..n-1 in that order, e.g. 2 of Yahoo's 10.

        ``info["classes_from"]`` keeps the old names; a set without class labels, or an unknown name, raises ValueError.

        Example:
            >>> s = Split(texts=["a", "b", "c"], labels=[0, 1, 2])
            >>> ds = TextDataset("toy", "classification", {"train": s}, label_names=["x", "y", "z"])
            >>> two = ds.select_classes(["z", "x"])
            >>> two.label_names, two.train.texts, two.train.labels.tolist()
            (['z', 'x'], ['a', 'c'], [1, 0])
        """
        if self.task not in ("classification", "pairs") or self.label_names is None:
            raise ValueError(f"{self.name} is a {self.task} set: only class labels can be selected.")
        names = list(names)
        unknown = [n for n in names if n not in self.label_names]
        if unknown:
            raise ValueError(f"{self.name} has no class {unknown}; its classes are {self.label_names}.")
        old = [self.label_names.index(n) for n in names]
        remap = {o: i for i, o in enumerate(old)}
        new = {}
        for split_name, split in self.splits.items():
            y = np.asarray(split.labels)
            part = split.take(np.flatnonzero(np.isin(y, old)))
            part.labels = np.asarray([remap[int(v)] for v in part.labels], dtype="int32")
            new[split_name] = part
        return replace(self, splits=new, label_names=names, info={**self.info, "classes_from": self.label_names})

    def to_frame(self, split: str = "train"):
        """A split as a pandas DataFrame: ``text`` (pairs: ``text_a``, ``text_b``), ``label`` (names where known)."""
        import pandas as pd

        s = self[split]
        cols = {"text": s.texts}
        if s.texts_b is not None:
            cols = {"text_a": s.texts, "text_b": s.texts_b}
        if s.labels is not None:
            labels = list(s.labels)
            if self.label_names is not None and self.task != "tagging":
                labels = [self.label_names[int(i)] for i in labels]
            elif self.task == "tagging" and self.label_names is not None:
                labels = [[self.label_names[int(i)] for i in row] for row in labels]
            cols["label"] = labels
        return pd.DataFrame(cols)

    def summary(self) -> str:
        """A few lines: name, task, sizes, the classes with their train counts (or how many labels), the licence."""
        parts = [f"{self.name} ({self.task}): " + ", ".join(f"{k} {v:,}" for k, v in self.sizes().items())]
        if self.label_names is not None:
            counts = (
                np.bincount(np.asarray(self.train.labels), minlength=len(self.label_names))
                if self.task in ("classification", "pairs")
                else None
            )
            if counts is not None:
                parts.append("classes (train): " + ", ".join(f"{n} {c:,}" for n, c in zip(self.label_names, counts)))
            else:
                parts.append(f"{len(self.label_names)} labels")
        if self.licence:
            parts.append(f"licence: {self.licence}")
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"TextDataset({self.name!r}, task={self.task!r}, sizes={self.sizes()})"
