"""Scoring taggers: entity-level precision/recall/F1 (conlleval's span matching) and token accuracy.

An entity is found only by a predicted span of the same type, same first and last word. Spans read as conlleval and
``seqeval`` (non-strict) read them (BIO, IOB1, IOBES): ``B-X`` starts; ``I-X`` continues X, or starts after ``O``, a
span's end or another type (IOB1); a type change ends a span; ``E-X``/``S-X`` end one; sentences never join.
Micro-averaged; a zero denominator gives 0.0 (seqeval's ``zero_division``).

>>> y_true = [["B-PER", "I-PER", "O", "B-LOC"]]
>>> y_pred = [["B-PER", "I-PER", "O", "B-ORG"]]
>>> get_entities(y_true[0])
[('PER', 0, 1), ('LOC', 3, 3)]
>>> s = entity_scores(y_true, y_pred)
>>> s["precision"], s["recall"], s["f1"]
(0.5, 0.5, 0.5)
>>> token_accuracy(y_true, y_pred)
0.75
"""

from __future__ import annotations

from collections import defaultdict

_PREFIXES = ("B", "I", "E", "S")


def _split_tag(tag: str, where: str) -> tuple[str, str]:
    if tag == "O":
        return "O", ""
    if tag in _PREFIXES:
        return tag, "_"
    if len(tag) > 2 and tag[0] in _PREFIXES and tag[1] == "-":
        return tag[0], tag[2:]
    raise ValueError(
        f"{where}: tag {tag!r} is not a chunk tag. Entity scoring needs O, B-X, I-X (or E-X, S-X) "
        "tags; convert other tag sets first (e.g. spans of proper-noun tags to B-/I-), or use "
        "token_accuracy for plain tag sets such as POS."
    )


def _ends(prev, tag, prev_type, type_) -> bool:
    if prev in ("E", "S"):
        return True
    if prev in ("B", "I") and tag in ("B", "S", "O"):
        return True
    return prev != "O" and prev_type != type_


def _starts(prev, tag, prev_type, type_) -> bool:
    if tag in ("B", "S"):
        return True
    if tag in ("I", "E") and prev in ("E", "S", "O"):
        return True
    return tag != "O" and prev_type != type_


def get_entities(tags, where: str = "sequence") -> list[tuple[str, int, int]]:
    """Entity spans ``(type, first, last)`` (word indices, inclusive) of a tag sequence; bare ``B``/``I``: type ``"_"``.

    ValueError: a tag is not a chunk tag (the message names ``where`` and the position).
    """
    spans, prev, prev_type, start = [], "O", "", 0
    for i, chunk in enumerate(list(tags) + ["O"]):
        tag, type_ = _split_tag(chunk, f"{where}, position {i}")
        if _ends(prev, tag, prev_type, type_):
            spans.append((prev_type, start, i - 1))
        if _starts(prev, tag, prev_type, type_):
            start = i
        prev, prev_type = tag, type_
    return spans


def _as_tags(seqs, label_names, what):
    seqs = [list(s) for s in seqs]
    if label_names is None:
        if seqs and seqs[0] and not isinstance(seqs[0][0], str):
            raise TypeError(f"{what} holds tag ids; pass label_names=[...] to turn them into tags.")
        return seqs
    return [[label_names[int(t)] if not isinstance(t, str) else t for t in s] for s in seqs]


def _check(y_true, y_pred):
    if len(y_true) != len(y_pred):
        raise ValueError(f"{len(y_true)} true sequences but {len(y_pred)} predicted ones.")
    for i, (t, p) in enumerate(zip(y_true, y_pred)):
        if len(t) != len(p):
            raise ValueError(
                f"sentence {i}: {len(t)} true tags but {len(p)} predicted; score word-level tags "
                "(kit.text.word_predictions maps token predictions to words)."
            )


def entity_scores(y_true, y_pred, label_names=None) -> dict:
    """Micro precision, recall, F1 over entity spans, with counts and a per-type breakdown.

    ``y_true``, ``y_pred``: tag sequences (strings, or ids with ``label_names``), paired one to one, word for word.
    Returns ``precision, recall, f1, n_true, n_pred, n_correct`` and
    ``per_type: {type: {precision, recall, f1, support}}``. ValueError: sequences that do not pair up, or a tag not a
    chunk tag; TypeError: ids without ``label_names``.
    """
    y_true, y_pred = _as_tags(y_true, label_names, "y_true"), _as_tags(y_pred, label_names, "y_pred")
    _check(y_true, y_pred)
    true = {(i,) + e for i, s in enumerate(y_true) for e in get_entities(s, f"y_true[{i}]")}
    pred = {(i,) + e for i, s in enumerate(y_pred) for e in get_entities(s, f"y_pred[{i}]")}
    out = _prf(len(true & pred), len(pred), len(true))
    by_true, by_pred = defaultdict(set), defaultdict(set)
    for e in true:
        by_true[e[1]].add(e)
    for e in pred:
        by_pred[e[1]].add(e)
    per_type = {}
    for t in sorted(set(by_true) | set(by_pred)):
        s = _prf(len(by_true[t] & by_pred[t]), len(by_pred[t]), len(by_true[t]))
        per_type[t] = {"precision": s["precision"], "recall": s["recall"], "f1": s["f1"], "support": s["n_true"]}
    out["per_type"] = per_type
    return out


def _prf(correct: int, n_pred: int, n_true: int) -> dict:
    p = correct / n_pred if n_pred else 0.0
    r = correct / n_true if n_true else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f, "n_true": n_true, "n_pred": n_pred, "n_correct": correct}


def entity_f1(y_true, y_pred, label_names=None) -> float:
    """Micro entity-level F1 (:func:`entity_scores`)."""
    return entity_scores(y_true, y_pred, label_names)["f1"]


def token_accuracy(y_true, y_pred, ignore=None) -> float:
    """Share of words whose tag (string or id) is right (0.0 for none); true tags equal to ``ignore`` (-100) skipped.

    ValueError: the sequences do not pair up one to one and word for word.
    """
    _check(list(y_true), list(y_pred))
    hit = total = 0
    for t_seq, p_seq in zip(y_true, y_pred):
        for t, p in zip(t_seq, p_seq):
            if ignore is not None and t == ignore:
                continue
            total += 1
            hit += t == p
    return hit / total if total else 0.0
