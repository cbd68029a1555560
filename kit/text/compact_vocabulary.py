"""A smaller vocabulary for a model trained from scratch: keep a tokenizer's most frequent ids.

TLM trains its own model, free to choose its tokenization (the paper's "flexibility" point). The kit keeps MiniLM's
WordPiece but only the ``max_size`` ids most frequent in the task and retrieved texts (the rest become [UNK]): a
30,522-row softmax becomes a few thousand rows, most of the cost of a small MLM step on a CPU.

>>> import numpy as np
>>> ids = np.array([[101, 7, 7, 9, 102, 0], [101, 9, 8, 102, 0, 0]])
>>> v = CompactVocabulary.fit([ids], max_size=6, special_ids=[0, 100, 101, 102, 103], unk_id=100)
>>> v.size, v.old_ids.tolist()            # specials first, then the most frequent ids (7 and 9 tie: lower id first)
(6, [0, 100, 101, 102, 103, 7])
>>> v.encode(ids).tolist()                # 9 and 8 were not kept: [UNK]
[[2, 5, 5, 1, 3, 0], [2, 1, 1, 3, 0, 0]]
"""

from __future__ import annotations

import numpy as np

from .wordpiece import BERT_SPECIAL_TOKENS


class CompactVocabulary:
    """Map original token ids to ``0..size-1`` (kept ids) or to [UNK] (the rest).

    Build one with :meth:`fit` or :meth:`for_tokenizer`. Compact id ``i`` is ``old_ids[i]`` (no repeats); ``unk_id``,
    the original [UNK] id, must be kept; ``original_size`` is the original vocabulary's size. ValueError: an id repeats,
    [UNK] is not kept, or an id is outside the original vocabulary.
    """

    def __init__(self, old_ids, unk_id: int, original_size: int):
        old_ids = np.asarray(old_ids, dtype="int64")
        if len(np.unique(old_ids)) != len(old_ids):
            raise ValueError("old_ids must not repeat an id.")
        if unk_id not in set(old_ids.tolist()):
            raise ValueError(f"The [UNK] id {unk_id} must be among the kept ids.")
        if old_ids.max() >= original_size:
            raise ValueError(f"An id ({old_ids.max()}) is outside the original vocabulary of {original_size}.")
        self.old_ids = old_ids
        self.unk_id = int(unk_id)
        self.original_size = int(original_size)
        self.new_unk = int(np.flatnonzero(old_ids == unk_id)[0])
        self.table = np.full(self.original_size, self.new_unk, dtype="int32")
        self.table[old_ids] = np.arange(len(old_ids), dtype="int32")

    @property
    def size(self) -> int:
        """How many ids are kept: the compact vocabulary's size (its softmax rows)."""
        return len(self.old_ids)

    def __len__(self):
        return self.size

    @classmethod
    def fit(
        cls, token_id_arrays, max_size: int, special_ids, unk_id: int, original_size: int | None = None
    ) -> CompactVocabulary:
        """Specials (in the order given, repeats dropped) then the most frequent other ids, ``max_size`` in all.

        Ties in frequency keep the lower id; ids that never occur are not kept. ``token_id_arrays``: original ids
        (tokenized task and retrieved texts), any shapes. ``original_size`` defaults to (and is raised to) the largest
        id seen + 1. ValueError: ``unk_id`` is not a special id, ``max_size`` leaves no room beside the specials, or no
        ids to count.
        """
        special_ids = [int(i) for i in dict.fromkeys(special_ids)]
        if unk_id not in special_ids:
            raise ValueError("unk_id must be one of special_ids.")
        if max_size <= len(special_ids):
            raise ValueError(f"max_size={max_size} leaves no room beside the {len(special_ids)} special ids.")
        arrays = [np.asarray(a).ravel() for a in token_id_arrays]
        if not arrays or not sum(a.size for a in arrays):
            raise ValueError("No token ids to count: pass the tokenized task and retrieved texts.")
        top = max([int(a.max()) for a in arrays if a.size] + special_ids) + 1
        original_size = max(int(original_size or 0), top)
        counts = sum(np.bincount(a, minlength=original_size) for a in arrays)
        counts[special_ids] = -1
        order = np.argsort(-counts, kind="stable")
        order = order[counts[order] > 0][: max_size - len(special_ids)]
        return cls(np.r_[special_ids, order], unk_id, original_size)

    @classmethod
    def for_tokenizer(cls, tokenizer, token_id_arrays, max_size: int) -> CompactVocabulary:
        """:meth:`fit` with a BERT tokenizer's (e.g. MiniLM's WordPiece) special tokens and vocabulary size.

        [PAD], [UNK], [CLS], [SEP], [MASK] become compact ids 0-4; ``max_size`` includes them.
        """
        specials = [int(tokenizer.token_to_id(t)) for t in BERT_SPECIAL_TOKENS]
        return cls.fit(
            token_id_arrays, max_size, specials, int(tokenizer.token_to_id("[UNK]")), tokenizer.vocabulary_size()
        )

    def encode(self, token_ids) -> np.ndarray:
        """Original ids (any shape) → compact int32 ids (unkept ids → [UNK])."""
        return self.table[np.asarray(token_ids)]

    def decode(self, compact_ids) -> np.ndarray:
        """Compact ids (any shape) → original ids, so the original tokenizer can show them."""
        return self.old_ids[np.asarray(compact_ids)]

    def __call__(self, inputs: dict) -> dict:
        """The preprocessor's output dict ``inputs`` with compact ``token_ids``; other entries unchanged."""
        return {**inputs, "token_ids": self.encode(inputs["token_ids"])}

    def coverage(self, token_ids, padding_mask=None) -> float:
        """Share of real tokens (``padding_mask`` 1; default: all) that keep their own id ([UNK] counts as kept)."""
        ids = np.asarray(token_ids)
        real = np.ones(ids.shape, bool) if padding_mask is None else np.asarray(padding_mask).astype(bool)
        kept = (self.table[ids] != self.new_unk) | (ids == self.unk_id)
        return float(kept[real].mean())
