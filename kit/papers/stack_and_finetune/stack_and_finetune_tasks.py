r"""Notebook 03's tasks, derived from registered data sets and subsampled for a scale.

:func:`task_datasets` turns ``{name: spec}`` into ``{name: TextDataset}``, loading each source once; spec keys are
:data:`SPEC_KEYS` (:func:`derive`), e.g. (with ``sequence_length``, ``max_train``, ``max_eval`` besides)
``{"section": "classification", "dataset": "bbc_news", "classes": ["business", "politics"], "text": "headline"}``.

>>> from kit.data import Split, TextDataset
>>> s = Split(texts=["Title one\nbody", "Title two\nbody"], labels=[0, 1])
>>> headlines(TextDataset("toy", "classification", {"train": s}, ["a", "b"])).train.texts
['Title one', 'Title two']
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...data.dataset import TextDataset
from ...data.entities import proper_noun_entities
from ...data.registry import load as load_dataset
from ...data.splits import sample_indices

SPEC_KEYS = (
    "dataset",
    "options",
    "classes",
    "text",
    "labels",
    "max_words",
    "max_train",
    "max_eval",
    "max_dev",
    "section",
    "sequence_length",
)
TEXT_VIEWS = ("full", "headline")
LABEL_VIEWS = ("tags", "entities")


def headlines(ds: TextDataset) -> TextDataset:
    """A copy of ``ds`` (``info["text"] = "headline"``), each text (both of a pair) cut to its first non-empty line."""

    def first(text: str) -> str:
        return next((line.strip() for line in text.splitlines() if line.strip()), text.strip())

    new = {
        k: replace(
            s, texts=[first(t) for t in s.texts], texts_b=None if s.texts_b is None else [first(t) for t in s.texts_b]
        )
        for k, s in ds.splits.items()
    }
    return replace(ds, splits=new, info={**ds.info, "text": "headline"})


def max_words(ds: TextDataset, n: int | None) -> TextDataset:
    """A copy of tagging set ``ds`` keeping sentences of at most ``n`` words (None: ``ds`` as it is).

    Raises:
        ValueError: ``ds`` is not a tagging set, or a split has no sentence that short (raise ``max_words``).

    Example:
        >>> from kit.data import Split, TextDataset
        >>> s = Split(texts=[["a", "b"], ["a", "b", "c"]], labels=[[0, 0], [0, 0, 0]])
        >>> max_words(TextDataset("toy", "tagging", {"train": s}, ["x"]), 2).sizes()
        {'train': 1}
    """
    if n is None:
        return ds
    if ds.task != "tagging":
        raise ValueError(f"max_words filters sentences of a tagging set; {ds.name} is a {ds.task} set.")
    new = {}
    for split_name, split in ds.splits.items():
        keep = np.flatnonzero([len(words) <= n for words in split.texts])
        if not len(keep):
            raise ValueError(f"{ds.name}: no {split_name} sentence has at most {n} words; raise max_words.")
        new[split_name] = split.take(keep)
    return replace(ds, splits=new, info={**ds.info, "max_words": n})


def derive(ds: TextDataset, spec: dict, name: str | None = None, seed: int = 0) -> TextDataset:
    r"""``ds`` narrowed as ``spec`` says, in this order: classes, text view, sentence length, labels, subsample.

    Spec keys: ``dataset`` and ``options`` (``kit.data.load``'s); ``classes`` (kept, relabelled in order); ``text``
    (``"full"`` or ``"headline"``); ``labels`` (tagging: ``"tags"`` or ``"entities"``, Brown's proper nouns as BIO);
    ``max_words``; ``max_train``, ``max_eval`` (seeded, stratified); ``max_dev`` caps dev below ``max_eval`` (scored
    every epoch); ``section``, ``sequence_length`` (ignored here).

    Raises:
        KeyError: ``spec`` has a key that is not in :data:`SPEC_KEYS`.
        ValueError: ``text`` is not one of :data:`TEXT_VIEWS` or ``labels`` not one of :data:`LABEL_VIEWS`.

    Example:
        >>> from kit.data import Split, TextDataset
        >>> s = Split(texts=["x\ny", "z", "w"] * 4, labels=[0, 1, 2] * 4)
        >>> ds = TextDataset("toy", "classification", {"train": s, "dev": s, "test": s}, ["a", "b", "c"])
        >>> d = derive(ds, {"classes": ["c", "a"], "text": "headline", "max_train": 4, "max_dev": 8}, name="two")
        >>> d.name, d.label_names, d.sizes(), sorted(set(d.train.texts)), sorted(d.train.labels.tolist())
        ('two', ['c', 'a'], {'train': 4, 'dev': 8, 'test': 8}, ['w', 'x'], [0, 0, 1, 1])
    """
    unknown = sorted(set(spec) - set(SPEC_KEYS))
    if unknown:
        raise KeyError(f"Unknown task spec key(s) {unknown}; a spec takes {list(SPEC_KEYS)}.")
    text, labels = spec.get("text", "full"), spec.get("labels", "tags")
    if text not in TEXT_VIEWS:
        raise ValueError(f"text={text!r}: use one of {TEXT_VIEWS}.")
    if labels not in LABEL_VIEWS:
        raise ValueError(f"labels={labels!r}: use one of {LABEL_VIEWS}.")
    if spec.get("classes"):
        ds = ds.select_classes(spec["classes"])
    if text == "headline":
        ds = headlines(ds)
    ds = max_words(ds, spec.get("max_words"))
    if spec.get("max_train") is not None or spec.get("max_eval") is not None:
        ds = ds.subsample(spec.get("max_train"), spec.get("max_eval"), seed=seed)
    if spec.get("max_dev") is not None and len(ds.dev) > spec["max_dev"]:
        strat = ds.dev.labels if ds.task in ("classification", "pairs") else None
        dev = ds.dev.take(sample_indices(len(ds.dev), spec["max_dev"], seed=seed, stratify=strat))
        ds = replace(ds, splits={**ds.splits, "dev": dev})
    if labels == "entities":  # after the cuts (tagging's are not stratified): info["entities"] counts what is kept
        ds = proper_noun_entities(ds)
    return replace(ds, name=name or ds.name)


def task_datasets(specs: dict, seed: int = 0, load=None) -> dict:
    """``{name: spec}`` → ``{name: TextDataset}`` in order, each source loaded once by ``load`` (``kit.data.load``).

    Raises:
        KeyError: a spec names no ``dataset``.
    """
    if load is None:
        load = load_dataset
    sources = {}
    out = {}
    for name, spec in specs.items():
        if "dataset" not in spec:
            raise KeyError(f"task {name!r}: its spec names no 'dataset'.")
        options = dict(spec.get("options") or {})
        key = (spec["dataset"], tuple(sorted(options.items())))
        if key not in sources:
            sources[key] = load(spec["dataset"], **options)
        out[name] = derive(sources[key], spec, name=name, seed=seed)
    return out


def with_own_data(specs: dict, datasets: dict, own, seed: int = 0) -> tuple[dict, dict]:
    """New ``(specs, datasets)``: your ``own`` (``kit.data.notebook_dataset``) last, in place of the task of its kind.

    The task whose ``section`` equals ``own.task`` is replaced by ``own`` subsampled by its ``max_train``/``max_eval``/
    ``max_dev``, at its ``sequence_length``; it prints which. ``own=None`` returns them as given.

    Raises:
        ValueError: no task has ``own``'s kind.

    Example:
        >>> from kit.data import Split, TextDataset
        >>> s = Split(texts=["a", "b"] * 5, labels=[0, 1] * 5)
        >>> mine = TextDataset("mine", "classification", {"train": s, "dev": s, "test": s}, ["x", "y"])
        >>> specs = {"bbc": {"section": "classification", "sequence_length": 24, "max_train": 4},
        ...          "wn": {"section": "pairs"}}
        >>> new_specs, new_data = with_own_data(specs, {"bbc": None, "wn": None}, mine)
        your data 'mine' (classification) takes the place of the classification task 'bbc'
        >>> list(new_specs), new_specs["mine"]["sequence_length"], new_data["mine"].sizes()
        (['wn', 'mine'], 24, {'train': 4, 'dev': 10, 'test': 10})
    """
    if own is None:
        return specs, datasets
    same = [name for name, spec in specs.items() if spec.get("section") == own.task]
    if not same:
        have = sorted({spec.get("section") for spec in specs.values()})
        raise ValueError(
            f"Your data is a {own.task!r} set, but this notebook's tasks are {have}: give data of one of those kinds."
        )
    print(f"your data {own.name!r} ({own.task}) takes the place of the {own.task} task {same[0]!r}")
    old = specs[same[0]]
    spec = {k: old[k] for k in ("section", "sequence_length", "max_train", "max_eval", "max_dev") if k in old}
    specs = {k: v for k, v in specs.items() if k != same[0]} | {own.name: spec}
    data = {k: v for k, v in datasets.items() if k != same[0]}
    data[own.name] = derive(own, {k: v for k, v in spec.items() if k.startswith("max_")}, name=own.name, seed=seed)
    return specs, data
