"""A word vocabulary for LSTMs trained from scratch: fit on training texts, encode to padded ids.

>>> v = WordVocab.fit(["a good film", "a bad film"], max_size=10)
>>> v.encode(["a good movie"], sequence_length=5).tolist()
[[2, 4, 1, 0, 0]]
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .words import word_tokenize

PAD, UNK = "[PAD]", "[UNK]"


class WordVocab:
    """Words ↔ ids for an LSTM: ``[PAD]`` (0, masked), ``[UNK]`` (1), then ``words`` (most frequent first) in order.

    Build one with :meth:`fit`; ``[PAD]`` and ``[UNK]`` in ``words`` are skipped.
    """

    def __init__(self, words: list[str]):
        self.words = [PAD, UNK] + [w for w in words if w not in (PAD, UNK)]
        self.index = {w: i for i, w in enumerate(self.words)}

    @classmethod
    def fit(cls, texts, max_size: int = 20000, min_freq: int = 1) -> WordVocab:
        """The ``max_size`` most frequent words of ``texts`` (ties: first seen) that occur at least ``min_freq`` times.

        ``max_size`` includes ``[PAD]`` and ``[UNK]``; words are lowercased word tokens. No texts is a ValueError.
        """
        texts = list(texts)
        if not texts:
            raise ValueError("Cannot fit a vocabulary on no texts.")
        counts = Counter(t for text in texts for t in word_tokenize(text))
        kept = [w for w, c in counts.most_common(max(max_size - 2, 0)) if c >= min_freq]
        return cls(kept)

    def __len__(self) -> int:
        return len(self.words)

    def encode(self, texts, sequence_length: int) -> np.ndarray:
        """Texts to int32 ids ``(len(texts), sequence_length)`` (>= 1): unknown words 1, cut at the end, 0-padded."""
        if sequence_length < 1:
            raise ValueError("sequence_length must be >= 1.")
        out = np.zeros((len(texts), sequence_length), dtype="int32")
        for i, text in enumerate(texts):
            ids = [self.index.get(t, 1) for t in word_tokenize(text)][:sequence_length]
            out[i, : len(ids)] = ids
        return out

    def coverage(self, texts) -> float:
        """Share of word tokens in ``texts`` that the vocabulary knows (0.0 for no tokens)."""
        toks = [t for text in texts for t in word_tokenize(text)]
        return sum(t in self.index for t in toks) / max(len(toks), 1)
