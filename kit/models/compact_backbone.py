"""A pretrained BERT with a smaller token table: only the rows of the WordPiece ids a task's texts use.

MiniLM's token table is 30,522 × 384 = 11.7M of its 22.7M parameters. In a
short fine-tuning run on a CPU, its dense gradient and the AdamW update of
every row cost about a quarter of each step, although only the few thousand
ids that occur in the task texts ever get a gradient. :func:`compact_backbone`
copies the backbone with the token table cut to the ids of a
:class:`kit.text.CompactVocabulary` (same order), so a model fed
``vocabulary(inputs)`` computes *exactly* what the full backbone computes on
``inputs`` for every text whose ids were all kept (fit the vocabulary on every
text the model will read and nothing is lost). Fine-tuning is unchanged too:
rows that no text uses would get a zero gradient anyway. What does change: a
masked-LM head tied to the table predicts over the kept ids only.

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

    Feed the copy ``vocabulary(inputs)``. An untied reverse projection ``(hidden, vocabulary)`` in the token
    embedding is cut to the same ids.

    Args:
        backbone: a BERT backbone (keras-hub's or the kit's :class:`~kit.models.BertBackbone`).
        vocabulary: a :class:`kit.text.CompactVocabulary` fitted for the backbone's tokenizer (its
            ``original_size`` must be the backbone's ``vocabulary_size``).
        name: the copy's name (default: the backbone's name + ``"_compact"``).

    Returns:
        The new backbone, with the kept rows of the table and every other weight copied.

    Raises:
        ValueError: the vocabulary was fitted for another vocabulary size, or the backbone has no
            ``token_embedding`` (not a BERT backbone).
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
