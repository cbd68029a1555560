"""A pretrained BERT with a smaller token table: only the rows of the WordPiece ids a task's texts use.

MiniLM's token table is 30,522 × 384 = 11.7M of its 22.7M parameters; on a CPU its dense gradient and AdamW update cost
about a quarter of a fine-tuning step, though only the few thousand ids in the task texts get a gradient. Fed
``vocabulary(inputs)``, the cut copy computes *exactly* what the full backbone computes for every text whose ids were
all kept, and fine-tunes the same; only a masked-LM head tied to the table predicts over the kept ids alone.

>>> import numpy as np
>>> from kit.models import BertBackbone
>>> from kit.text import CompactVocabulary
>>> bb = BertBackbone(vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=8)
>>> ids = np.array([[2, 11, 17, 3, 0, 0, 0, 0]])
>>> x = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": (ids > 0).astype("int32")}
>>> vocab = CompactVocabulary.fit([ids], 30, special_ids=[0, 1, 2, 3], unk_id=1, original_size=30)
>>> small = compact_backbone(bb, vocab)
>>> small.vocabulary_size, vocab.encode(ids).tolist()
(6, [[2, 4, 5, 3, 0, 0, 0, 0]])
>>> full = keras.ops.convert_to_numpy(bb(x)["pooled_output"])
>>> cut = keras.ops.convert_to_numpy(small(vocab(x))["pooled_output"])
>>> bool(np.allclose(full, cut, atol=1e-6))
True
"""

from __future__ import annotations

import keras
import numpy as np


def compact_backbone(backbone, vocabulary, name: str | None = None):
    """A copy of ``backbone`` (same class and config) whose token table holds only ``vocabulary.old_ids``' rows.

    Feed the copy ``vocabulary(inputs)``; every other weight is copied, and an untied reverse projection
    ``(hidden, vocabulary)`` is cut to the same ids. ``name`` defaults to the backbone's + ``"_compact"``. A ValueError
    if ``vocabulary.original_size`` is not the backbone's ``vocabulary_size`` or the backbone is no BERT (no
    ``token_embedding``).
    """
    size = int(backbone.vocabulary_size)
    if int(vocabulary.original_size) != size:
        raise ValueError(
            f"The vocabulary was fitted for {vocabulary.original_size:,} ids, but the backbone has "
            f"{size:,}: fit it with CompactVocabulary.for_tokenizer(<this backbone's tokenizer>, ...)."
        )
    table = getattr(getattr(backbone, "token_embedding", None), "embeddings", None)
    if table is None:
        raise ValueError(
            f"{getattr(backbone, 'name', backbone)!r} has no token_embedding: compact_backbone needs a "
            "BERT backbone (keras-hub or kit BertBackbone)."
        )
    config = dict(backbone.get_config(), vocabulary_size=int(vocabulary.size), name=name or f"{backbone.name}_compact")
    small = type(backbone).from_config(config)
    old_ids = np.asarray(vocabulary.old_ids)
    weights = []
    for variable in backbone.weights:
        value = keras.ops.convert_to_numpy(variable)
        if variable is table:
            value = value[old_ids]
        elif variable.path.startswith("token_embedding/") and value.ndim == 2 and value.shape[-1] == size:
            value = value[:, old_ids]  # an untied reverse projection (hidden, vocabulary)
        weights.append(value)
    small.set_weights(weights)
    return small
