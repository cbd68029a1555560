"""An entity task from a POS-tagged corpus: Brown's proper-noun spans as BIO entities (a CoNLL-2003 stand-in).

Brown marks every proper noun (``np``, ``np$``, ``nps``, ``nps$``, ``np+bez``...); each maximal run is one span, in
BIO (IOB2), so entity F1 (``kit.analysis.entity_scores``) needs both ends ("Mary Jane Lerner"). ``typed=True``: a
span's type is its last word's number, ``NP`` (singular) or ``NPS`` (plural); ``typed=False``: every span ``NP``.

>>> bio_tags(["np", "np", "vbd", "at", "nps", "."])
['B-NP', 'I-NP', 'O', 'O', 'B-NPS', 'O']
>>> proper_noun_spans(["np", "np$", "nn", "np"])
[('NP', 0, 1), ('NP', 3, 3)]
>>> bio_tags(["fw-nps", "cc", "np-tl-hl"])
['B-NPS', 'O', 'B-NP']
>>> bio_tags(["np", "nps"], typed=False)
['B-NP', 'I-NP']
"""

from __future__ import annotations

from .dataset import Split, TextDataset
from .parsers import simplify_brown_tag

#: Entity tag names, in label-id order, for typed and untyped spans.
TYPED_LABELS = ["O", "B-NP", "I-NP", "B-NPS", "I-NPS"]
UNTYPED_LABELS = ["O", "B-NP", "I-NP"]


def is_proper_noun(tag: str) -> bool:
    """Whether ``tag`` (raw or simplified) is Brown's proper-noun tag: ``np``, ``np$``, ``nps``, ``nps$``, ``np+bez``...

    Example:
        >>> [is_proper_noun(t) for t in ("np", "nps$", "np+bez", "nn", "nps-tl", "np-tl-hl", "fw-np")]
        [True, True, True, False, True, True, True]
    """
    return simplify_brown_tag(tag).split("+")[0] in ("np", "np$", "nps", "nps$")


def _is_plural(tag: str) -> bool:
    return simplify_brown_tag(tag).split("+")[0].startswith("nps")


def proper_noun_spans(tags, typed: bool = True) -> list[tuple[str, int, int]]:
    """``(type, first, last)`` (inclusive word indices) of each maximal run of proper-noun tags in a sentence's tags."""
    spans, start = [], None
    tags = list(tags)
    for i, tag in enumerate(tags + ["."]):
        inside = i < len(tags) and is_proper_noun(tag)
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            kind = "NPS" if typed and _is_plural(tags[i - 1]) else "NP"
            spans.append((kind, start, i - 1))
            start = None
    return spans


def bio_tags(tags, typed: bool = True) -> list[str]:
    """One sentence's proper-noun spans as BIO (IOB2) tags: ``B-<type>``, ``I-<type>`` or ``O`` per word."""
    out = ["O"] * len(tags)
    for kind, first, last in proper_noun_spans(tags, typed):
        out[first] = f"B-{kind}"
        for j in range(first + 1, last + 1):
            out[j] = f"I-{kind}"
    return out


def proper_noun_entities(ds: TextDataset, typed: bool = True) -> TextDataset:
    """A POS-tagged :class:`TextDataset` (e.g. ``load("brown_pos")``) as its proper-noun entity task.

    Same sentences and splits, named ``<ds.name>_entities``; labels are ids into ``TYPED_LABELS`` (or
    ``UNTYPED_LABELS``); ``info["entities"]`` counts the entities per split, ``info["from"]`` names ``ds``. A set that
    is not tagging with tag names, or has no proper-noun tag, raises ValueError.
    """
    if ds.task != "tagging" or ds.label_names is None:
        raise ValueError(
            f"{ds.name} is a {ds.task} set; proper-noun entities need a POS-tagged set "
            "(task 'tagging' with tag names, e.g. kit.data.load('brown_pos'))."
        )
    if not any(is_proper_noun(t) for t in ds.label_names):
        raise ValueError(
            f"{ds.name}'s tags have no proper-noun tag (np, nps, ...): its tag set is "
            f"{ds.label_names[:12]}... Entities are read from Brown-style proper-noun tags."
        )
    names = TYPED_LABELS if typed else UNTYPED_LABELS
    index = {n: i for i, n in enumerate(names)}
    splits, counts = {}, {}
    for split_name, split in ds.splits.items():
        labels, n = [], 0
        for row in split.labels:
            pos = [ds.label_names[int(t)] for t in row]
            bio = bio_tags(pos, typed)
            n += sum(t.startswith("B-") for t in bio)
            labels.append([index[t] for t in bio])
        splits[split_name] = Split(texts=list(split.texts), labels=labels)
        counts[split_name] = n
    return TextDataset(
        f"{ds.name}_entities",
        "tagging",
        splits,
        list(names),
        licence=ds.licence,
        description=f"proper-noun spans of {ds.name} as BIO entities" + (" (NP singular, NPS plural)" if typed else ""),
        source=ds.source,
        info={**ds.info, "entities": counts, "from": ds.name},
    )
