"""WordPiece preprocessing outside the model graph: texts (or pairs) to NumPy inputs.

The kit tokenizes in Python so no string op ever enters a model and jax or
torch runs need no TensorFlow graph. Text is cleaned the way HuggingFace's
``BertTokenizer`` does (control and format characters dropped, whitespace
normalised) so token ids match the reference exactly.

Pairs are passed as a tuple ``(texts_a, texts_b)``; they are always read as
two text lists, never as ``(x, y)`` (keras-hub's preprocessors read a bare
tuple as features and labels, which silently turns the second sentences into
labels).

>>> from kit.text.wordpiece import clean_text
>>> clean_text("zero\\u200bwidth\\x07 bell")
'zerowidth bell'
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

import numpy as np


def clean_text(text: str) -> str:
    """HuggingFace BERT cleaning: drop NUL, U+FFFD and category-C chars; whitespace to spaces."""
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif cp == 0 or cp == 0xFFFD or unicodedata.category(ch).startswith("C"):
            continue
        else:
            out.append(ch)
    return "".join(out)


def _as_text_list(texts, what: str) -> list[str]:
    if isinstance(texts, str):
        raise TypeError(f"{what}: got one string; pass a list of texts, e.g. [{texts[:30]!r}].")
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"{what}: item {i} is {type(t).__name__}, not a string: {t!r:.60}")
    return texts


class BertPreprocessor:
    """Texts or ``(texts_a, texts_b)`` → dict of NumPy ``token_ids``, ``segment_ids``, ``padding_mask``.

    Sequences longer than ``sequence_length`` are truncated (pairs: the longer
    side loses a token at a time, HuggingFace's ``longest_first``).
    ``last_truncated`` says how many inputs of the last call were cut.

    >>> pre = BertPreprocessor(tokenizer, sequence_length=16)       # doctest: +SKIP
    >>> pre(["a great film"])["token_ids"].shape                     # doctest: +SKIP
    (1, 16)
    >>> pre((["q1 text"], ["q2 text"]))["segment_ids"][0][:6]       # doctest: +SKIP
    """

    def __init__(self, tokenizer, sequence_length: int = 128, max_sequence_length: int = 512):
        if sequence_length > max_sequence_length:
            raise ValueError(
                f"sequence_length={sequence_length} is longer than the model's {max_sequence_length} "
                f"position embeddings. Use sequence_length <= {max_sequence_length}.")
        if sequence_length < 3:
            raise ValueError("sequence_length must be at least 3 ([CLS] x [SEP]).")
        self.tokenizer = tokenizer
        self.sequence_length = int(sequence_length)
        self.max_sequence_length = int(max_sequence_length)
        self.cls_id = int(tokenizer.cls_token_id)
        self.sep_id = int(tokenizer.sep_token_id)
        self.pad_id = int(tokenizer.pad_token_id)
        self.last_truncated = 0

    def tokenize(self, texts: Sequence[str], max_tokens: int | None = None) -> list[list[int]]:
        """WordPiece ids (no special tokens) for each text, after HF-style cleaning.

        With ``max_tokens``, only the first ``max_tokens`` ids of each text are
        needed: a long text is tokenized from its first ``max_tokens`` words (each
        word gives at least one id) and again in full in the rare case that gives
        fewer ids, so the result equals ``tokenize(texts)`` cut to ``max_tokens``.
        """
        texts = _as_text_list(texts, "tokenize")
        if not texts:
            return []
        cleaned = [clean_text(t) for t in texts]
        if max_tokens is None:
            return self._ids(cleaned)
        words = [c.split() for c in cleaned]
        cut = [len(w) > max_tokens for w in words]
        ids = self._ids([" ".join(w[:max_tokens]) if c else t for t, w, c in zip(cleaned, words, cut)])
        redo = [i for i, (c, row) in enumerate(zip(cut, ids)) if c and len(row) < max_tokens]
        for i, row in zip(redo, self._ids([cleaned[i] for i in redo]) if redo else []):
            ids[i] = row
        return [row[:max_tokens] for row in ids]

    def _ids(self, cleaned: list[str]) -> list[list[int]]:
        ids = self.tokenizer(cleaned)
        if hasattr(ids, "to_list"):
            ids = ids.to_list()
        elif hasattr(ids, "numpy"):
            ids = ids.numpy().tolist()
        return [list(map(int, row)) for row in ids]

    def __call__(self, inputs) -> dict[str, np.ndarray]:
        if isinstance(inputs, tuple):
            if len(inputs) != 2:
                raise ValueError(f"A tuple means a sentence pair (texts_a, texts_b); got {len(inputs)} parts.")
            a, b = inputs
            if isinstance(a, str) and isinstance(b, str):
                raise TypeError("Ambiguous input: a tuple of two strings. For one pair pass (['first'], "
                                "['second']); for two single texts pass a list ['first', 'second'].")
            a = _as_text_list(a, "texts_a")
            b = _as_text_list(b, "texts_b")
            if len(a) != len(b):
                raise ValueError(f"Pair lists differ in length: {len(a)} first texts, {len(b)} second texts.")
            cap = self.sequence_length - 2  # one past the budget: enough to truncate exactly and count the cut
            return self._pack(self.tokenize(a, cap), self.tokenize(b, cap))
        return self._pack(self.tokenize(_as_text_list(inputs, "texts"), self.sequence_length - 1), None)

    def _pack(self, ids_a, ids_b):
        n, L = len(ids_a), self.sequence_length
        token_ids = np.full((n, L), self.pad_id, dtype="int32")
        segment_ids = np.zeros((n, L), dtype="int32")
        padding_mask = np.zeros((n, L), dtype="int32")
        truncated = 0
        for i in range(n):
            a = ids_a[i]
            b = ids_b[i] if ids_b is not None else None
            budget = L - (3 if b is not None else 2)
            if b is None:
                if len(a) > budget:
                    a, truncated = a[:budget], truncated + 1
                row = [self.cls_id] + a + [self.sep_id]
                seg = [0] * len(row)
            else:
                a, b = list(a), list(b)
                if len(a) + len(b) > budget:
                    truncated += 1
                    while len(a) + len(b) > budget:
                        (a if len(a) > len(b) else b).pop()
                row = [self.cls_id] + a + [self.sep_id] + b + [self.sep_id]
                seg = [0] * (len(a) + 2) + [1] * (len(b) + 1)
            token_ids[i, : len(row)] = row
            segment_ids[i, : len(seg)] = seg
            padding_mask[i, : len(row)] = 1
        self.last_truncated = truncated
        return {"token_ids": token_ids, "segment_ids": segment_ids, "padding_mask": padding_mask}
