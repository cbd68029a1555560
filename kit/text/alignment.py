"""Words ↔ WordPiece: word labels onto the sub-tokens a BERT model sees, and back.

:func:`align_labels` gives each word's label to its **first** sub-token and :data:`IGNORE` (-100) to other sub-tokens,
``[CLS]``, ``[SEP]`` and padding (:mod:`kit.metrics.masked_tokens` skips them); :func:`word_predictions` maps back.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

#: Label of tokens that carry no word label (non-first sub-tokens, specials, padding).
IGNORE = -100

_WORD_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass
class AlignedTags:
    """Tagged sentences' model inputs ``x`` (``token_ids``, ``segment_ids``, ``padding_mask``, each (N, T)) and labels.

    ``y``: (N, T) int32, each word's label at its first sub-token, ``IGNORE`` elsewhere; ``word_ids``: (N, T), each
    token's word (-1 for specials and padding); ``first``: (N, T) bool, true at first sub-tokens; ``n_words``: words per
    sentence; ``truncated``: how many sentences lost words to ``sequence_length``.
    """

    x: dict
    y: np.ndarray
    word_ids: np.ndarray
    first: np.ndarray
    n_words: list
    truncated: int


def word_pieces(words, preprocessor) -> list[list[int]]:
    """WordPiece ids (no specials) of each word; each distinct word tokenized once, cached while ``preprocessor`` lives.

    A lone word's pieces equal its pieces in context (BERT splits on whitespace and punctuation before WordPiece).
    ``preprocessor`` is a :class:`~kit.text.BertPreprocessor`.
    """
    try:
        cache = _WORD_CACHE.setdefault(preprocessor, {})
    except TypeError:  # not weak-referenceable: a call-local cache
        cache = {}
    new = [w for w in dict.fromkeys(words) if w not in cache]
    if new:
        for w, ids in zip(new, preprocessor.tokenize(new)):
            cache[w] = ids
    return [cache[w] for w in words]


def align_labels(sentences, labels, preprocessor, *, label_all_subtokens: bool = False) -> AlignedTags:
    """Word-tokenized ``sentences`` (lists of words) and per-word label ids → :class:`AlignedTags`.

    ``labels`` None (inference) makes ``y`` all ``IGNORE``; ``label_all_subtokens`` labels every sub-token, not only the
    first (``first`` still marks the first). A word that tokenizes to nothing gets no token (:func:`word_predictions`
    fills it); sequences are cut at the preprocessor's ``sequence_length`` (``truncated`` counts them). Labels that do
    not match the sentences or their words are a ValueError; a sentence given as a string, a TypeError.

    Example:
        >>> import keras_hub
        >>> vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", "sat"]
        >>> pre = __import__("kit.text.wordpiece", fromlist=["x"]).BertPreprocessor(
        ...     keras_hub.models.BertTokenizer(vocabulary=vocab), sequence_length=8)
        >>> a = align_labels([["the", "cats", "sat"]], [[0, 1, 2]], pre)
        >>> a.x["token_ids"][0].tolist(), a.y[0].tolist()
        ([2, 5, 6, 7, 8, 3, 0, 0], [-100, 0, 1, -100, 2, -100, -100, -100])
    """
    sentences, labels = _checked(sentences, labels)
    flat = [w for words in sentences for w in words]
    pieces = word_pieces(flat, preprocessor) if flat else []
    n, L = len(sentences), preprocessor.sequence_length
    token_ids = np.full((n, L), preprocessor.pad_id, "int32")
    mask = np.zeros((n, L), "int32")
    y = np.full((n, L), IGNORE, "int32")
    word_ids = np.full((n, L), -1, "int32")
    first = np.zeros((n, L), bool)
    truncated, k = 0, 0
    for i, words in enumerate(sentences):
        row = [preprocessor.cls_id]
        cut = _place_words(i, pieces[k : k + len(words)], labels, label_all_subtokens, row, (y, word_ids, first))
        k += len(words)
        row.append(preprocessor.sep_id)
        token_ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
        truncated += cut
    x = {"token_ids": token_ids, "segment_ids": np.zeros_like(token_ids), "padding_mask": mask}
    return AlignedTags(x, y, word_ids, first, [len(s) for s in sentences], truncated)


def _checked(sentences, labels) -> tuple[list, list | None]:
    """``sentences`` and ``labels`` as lists, after checking one label sequence per sentence and one label per word."""
    sentences = list(sentences)
    if labels is not None:
        labels = list(labels)
        if len(labels) != len(sentences):
            raise ValueError(f"{len(labels)} label sequences for {len(sentences)} sentences: they must match.")
    for i, words in enumerate(sentences):
        if isinstance(words, str):
            raise TypeError(
                f"sentence {i} is a string; pass each sentence as a list of words (e.g. {words.split()[:4]!r})."
            )
        if labels is not None and len(labels[i]) != len(words):
            raise ValueError(f"sentence {i}: {len(words)} words but {len(labels[i])} labels; one label per word.")
    return sentences, labels


def _place_words(i, pieces, labels, label_all_subtokens, row, out) -> bool:
    """Append sentence ``i``'s pieces to ``row`` (after [CLS]) and fill ``out = (y, word_ids, first)``; True if cut."""
    y, word_ids, first = out
    L = y.shape[1]
    pos, cut = 1, False
    for j, ids in enumerate(pieces):
        if pos + len(ids) > L - 1:  # keep room for [SEP]; drop this and later words
            cut = cut or bool(ids)
            break
        for t, tid in enumerate(ids):
            row.append(tid)
            word_ids[i, pos] = j
            if t == 0:
                first[i, pos] = True
            if labels is not None and (t == 0 or label_all_subtokens):
                y[i, pos] = int(labels[i][j])
            pos += 1
    return cut


def word_predictions(token_scores, aligned: AlignedTags, fill: int = -1) -> list[list[int]]:
    """One predicted id per word: the argmax at its first sub-token (``fill`` for a word with no token: empty or cut).

    ``token_scores``: ``(N, T, num_tags)`` logits/probabilities or ``(N, T)`` ids, predicted on ``aligned``
    (another ``(N, T)`` is a ValueError).
    """
    scores = np.asarray(token_scores)
    ids = scores.argmax(-1) if scores.ndim == 3 else scores
    if ids.shape != aligned.first.shape:
        raise ValueError(f"predictions have shape {ids.shape[:2]} but the aligned batch is {aligned.first.shape}.")
    out = []
    for i, n_words in enumerate(aligned.n_words):
        row = [fill] * n_words
        for t in np.flatnonzero(aligned.first[i]):
            row[aligned.word_ids[i, t]] = int(ids[i, t])
        out.append(row)
    return out
