"""Split a BERT backbone into its embedding part and its encoder part.

SMART perturbs the embedding output before the encoder; the LSTM with pretrained embeddings reuses the token table. The
parts are functional models over the backbone's own layers (shared weights): ``encoder(embeddings(x))`` equals
``backbone(x)``.

>>> from kit.models.backbones import BertBackbone
>>> bb = BertBackbone(vocabulary_size=50, num_layers=1, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=12)
>>> parts = split_backbone(bb)
>>> [tuple(w.shape) for w in parts.token_embedding.weights]
[(50, 8)]
"""

from __future__ import annotations

from dataclasses import dataclass

import keras


@dataclass
class BackboneParts:
    """A backbone's two halves, built from its own layers (shared weights), and its raw ``(vocab, hidden)`` token table.

    ``embeddings``: ``{token_ids, segment_ids}`` → ``(batch, seq, hidden)`` (token + position + segment embeddings,
    layer norm, dropout); ``encoder``: ``{embeddings, padding_mask}`` → ``{sequence_output, pooled_output}``.
    """

    embeddings: keras.Model
    encoder: keras.Model
    token_embedding: keras.layers.Layer


def split_backbone(backbone) -> BackboneParts:
    """Embedding model and encoder model over a BERT ``backbone``'s layers (keras-hub's or the kit's; shared weights).

    ``parts.encoder({"embeddings": parts.embeddings(x), "padding_mask": ...})`` equals ``backbone(x)``.
    """
    token_ids = keras.Input(shape=(None,), dtype="int32", name="token_ids")
    segment_ids = keras.Input(shape=(None,), dtype="int32", name="segment_ids")
    tokens = backbone.token_embedding(token_ids)
    positions = backbone.position_embedding(tokens)
    segments = backbone.segment_embedding(segment_ids)
    x = backbone.embeddings_add((tokens, positions, segments))
    x = backbone.embeddings_layer_norm(x)
    x = backbone.embeddings_dropout(x)
    embeddings = keras.Model(
        {"token_ids": token_ids, "segment_ids": segment_ids}, x, name=f"{backbone.name}_embeddings"
    )

    emb_in = keras.Input(shape=(None, backbone.hidden_dim), name="embeddings")
    mask_in = keras.Input(shape=(None,), dtype="int32", name="padding_mask")
    h = emb_in
    for layer in backbone.transformer_layers:
        h = layer(h, padding_mask=mask_in)
    pooled = backbone.pooled_dense(h[:, backbone.cls_token_index, :])
    encoder = keras.Model(
        {"embeddings": emb_in, "padding_mask": mask_in},
        {"sequence_output": h, "pooled_output": pooled},
        name=f"{backbone.name}_encoder",
    )
    return BackboneParts(embeddings, encoder, backbone.token_embedding)
