"""Dynamic masking for masked language modeling (BERT's recipe, as TLM uses it).

Each time a batch is drawn, 15% of its real tokens (never [CLS], [SEP] or padding) are chosen afresh: 80% become [MASK],
10% a random token, 10% stay; the model predicts the original token there. NumPy, outside the model graph, so the same
on every backend.

>>> import numpy as np
>>> masker = MLMMasker(vocabulary_size=50, mask_token_id=4, special_token_ids=[0, 2, 3], max_predictions=3)
>>> ids = np.array([[2, 10, 11, 12, 13, 14, 15, 3, 0, 0]])
>>> out = masker(ids, (ids != 0).astype("int32"), np.random.default_rng(0))
>>> out["mask_positions"].shape, int(out["mask_weights"].sum())   # round(0.15 * 6 real tokens) = 1
((1, 3), 1)
>>> bool((ids[0, out["mask_positions"][0, 0]] == out["mask_ids"][0, 0]))
True
"""

from __future__ import annotations

import math

import numpy as np

from .wordpiece import BERT_SPECIAL_TOKENS


class MLMMasker:
    """Choose MLM targets in a batch of token ids: ``mask_rate`` of real tokens, 80/10/10.

    A call returns the corrupted ids and ``P = max_predictions`` target slots per row (default
    ``ceil(mask_rate * sequence_length)``). ``mask_rate``, in (0, 1), of a row's real non-special tokens are chosen
    (rounded; at least 1, at most P). ``special_token_ids`` ([CLS], [SEP], [PAD], ...) and [MASK] are never targets nor
    random replacements (drawn from the other ids below ``vocabulary_size``). Of the targets, ``mask_token_rate`` become
    [MASK] (BERT: 0.8), ``random_token_rate`` a random token (BERT: 0.1); the rest stay. ValueError: a rate is out of
    range, neither ``max_predictions`` nor ``sequence_length`` is given, or ``mask_token_id`` is outside the vocabulary.
    """

    def __init__(
        self,
        vocabulary_size: int,
        mask_token_id: int,
        special_token_ids,
        mask_rate: float = 0.15,
        max_predictions: int | None = None,
        sequence_length: int | None = None,
        mask_token_rate: float = 0.8,
        random_token_rate: float = 0.1,
    ):
        if not 0.0 < mask_rate < 1.0:
            raise ValueError(f"mask_rate must be in (0, 1), got {mask_rate}.")
        if mask_token_rate + random_token_rate > 1.0:
            raise ValueError("mask_token_rate + random_token_rate must be <= 1 (the rest stay unchanged).")
        if max_predictions is None:
            if sequence_length is None:
                raise ValueError("Give max_predictions or sequence_length (P = ceil(mask_rate * sequence_length)).")
            max_predictions = max(1, math.ceil(mask_rate * sequence_length))
        if not 0 <= mask_token_id < vocabulary_size:
            raise ValueError(f"mask_token_id={mask_token_id} is outside the vocabulary (size {vocabulary_size}).")
        self.vocabulary_size = int(vocabulary_size)
        self.mask_token_id = int(mask_token_id)
        self.special_token_ids = sorted({int(i) for i in special_token_ids} | {int(mask_token_id)})
        self.mask_rate = float(mask_rate)
        self.max_predictions = int(max_predictions)
        self.mask_token_rate = float(mask_token_rate)
        self.random_token_rate = float(random_token_rate)
        self._random_pool = np.setdiff1d(np.arange(self.vocabulary_size), self.special_token_ids)

    @classmethod
    def for_tokenizer(cls, tokenizer, sequence_length: int, vocabulary=None, **kwargs) -> MLMMasker:
        """A masker for a BERT tokenizer ([PAD], [CLS], [SEP], [UNK] and [MASK] never chosen).

        ``P = ceil(mask_rate * sequence_length)``. With ``vocabulary`` (a :class:`kit.text.CompactVocabulary`) ids are
        the compact ones; ``**kwargs`` go to :class:`MLMMasker` (``mask_rate``, ``mask_token_rate``, ...).
        """
        ids = [int(tokenizer.token_to_id(t)) for t in BERT_SPECIAL_TOKENS]
        size = tokenizer.vocabulary_size()
        if vocabulary is not None:
            ids, size = [int(i) for i in vocabulary.encode(ids)], vocabulary.size
        mask_id = ids[BERT_SPECIAL_TOKENS.index("[MASK]")]
        return cls(size, mask_id, [i for i in ids if i != mask_id], sequence_length=sequence_length, **kwargs)

    def __call__(self, token_ids, padding_mask, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Choose this batch's targets afresh (drawn from ``rng``) and corrupt them.

        ``token_ids`` and ``padding_mask`` (nonzero at real tokens) are (B, T) (a ``token_ids`` not 2-D is a
        ValueError). Returns NumPy arrays: ``token_ids`` (the corrupted input), ``mask_positions`` (B, P) int32,
        ``mask_ids`` (B, P) the original tokens, ``mask_weights`` (B, P) 1.0 at real targets, 0.0 at padding slots.
        """
        token_ids = np.asarray(token_ids)
        if token_ids.ndim != 2:
            raise ValueError(f"token_ids must be (batch, sequence), got shape {token_ids.shape}.")
        b, length = token_ids.shape
        p = self.max_predictions
        candidate = np.asarray(padding_mask).astype(bool) & ~np.isin(token_ids, self.special_token_ids)
        n_candidates = candidate.sum(axis=1)
        n_masked = np.where(n_candidates > 0, np.maximum(1, np.round(self.mask_rate * n_candidates)), 0)
        n_masked = np.minimum(n_masked, p).astype("int64")
        keys = np.where(candidate, rng.random((b, length)), 2.0)  # non-candidates sort last
        order = np.argsort(keys, axis=1, kind="stable")
        if length < p:
            order = np.pad(order, ((0, 0), (0, p - length)))
        chosen = np.arange(p)[None, :] < n_masked[:, None]
        positions = np.where(chosen, order[:, :p], 0).astype("int32")
        rows = np.arange(b)[:, None]
        mask_ids = np.where(chosen, token_ids[rows, positions], 0).astype("int32")
        r = rng.random((b, p))
        to_mask = chosen & (r < self.mask_token_rate)
        to_random = chosen & (r >= self.mask_token_rate) & (r < self.mask_token_rate + self.random_token_rate)
        corrupted = token_ids.copy()
        corrupted[rows.repeat(p, 1)[to_mask], positions[to_mask]] = self.mask_token_id
        random_ids = self._random_pool[rng.integers(0, len(self._random_pool), size=int(to_random.sum()))]
        corrupted[rows.repeat(p, 1)[to_random], positions[to_random]] = random_ids
        return {
            "token_ids": corrupted.astype(token_ids.dtype),
            "mask_positions": positions,
            "mask_ids": mask_ids,
            "mask_weights": chosen.astype("float32"),
        }
