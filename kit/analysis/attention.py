"""Attention probabilities out of a BERT backbone and TLM's head taxonomy (notebook 02 draws them: draw_heads).

keras-hub's ``BertBackbone`` does not return attention, but each of its
``TransformerEncoder`` layers can (``return_attention_scores=True``).
:func:`attention_maps` runs the backbone layer by layer and collects the
softmax probabilities: an array ``(layers, batch, heads, query, key)``.

TLM (Sec. 5.3) sorts heads by where each token puts its *maximum* attention:

- **positional**: at least 90% of tokens attend most to an adjacent token (i-1 or i+1);
- **vertical**: at least 90% of tokens attend most to [CLS], [SEP] or the period.

>>> import numpy as np
>>> shift = np.eye(5, k=-1); shift[0, 1] = 1                  # every token looks at its neighbour
>>> probs = shift[None, None, None]                             # (layers, batch, heads, q, k)
>>> classify_heads(probs, np.array([[101, 7, 8, 9, 102]]), np.ones((1, 5), int), special_ids=[101, 102])
array([['positional']], dtype='<U10')
"""

from __future__ import annotations

import numpy as np


def attention_maps(backbone, inputs: dict) -> np.ndarray:
    """Softmax attention of every layer and head: ``(layers, batch, heads, seq, seq)`` (NumPy).

    keras-hub's ``BertBackbone`` returns no attention, so the backbone runs layer by layer and each
    ``TransformerEncoder`` gives its scores (``return_attention_scores=True``).

    Args:
        backbone: a keras-hub BERT backbone.
        inputs: one batch: ``token_ids``, ``segment_ids`` and ``padding_mask``, each ``(batch, seq)``.

    Returns:
        The softmax probabilities ``(layers, batch, heads, query, key)``.
    """
    import keras  # noqa: PLC0415 - kit.analysis imports without Keras (a light room)

    from ..models.backbone_parts import split_backbone  # noqa: PLC0415 - kit.models imports Keras

    parts = split_backbone(backbone)
    x = parts.embeddings({"token_ids": inputs["token_ids"], "segment_ids": inputs["segment_ids"]}, training=False)
    mask = keras.ops.convert_to_tensor(inputs["padding_mask"])
    maps = []
    for layer in backbone.transformer_layers:
        x, scores = layer(x, padding_mask=mask, return_attention_scores=True, training=False)
        maps.append(keras.ops.convert_to_numpy(scores))
    return np.stack(maps)


def head_statistics(
    probs: np.ndarray, token_ids: np.ndarray, padding_mask: np.ndarray, special_ids
) -> tuple[np.ndarray, np.ndarray]:
    """Per (layer, head): share of real tokens whose argmax is adjacent, and share whose argmax is special.

    A token's argmax is the key it puts its maximum attention on, padding never counted; adjacent is i-1 or i+1.
    Only real (unpadded) tokens are counted.

    Args:
        probs: attention probabilities ``(layers, batch, heads, seq, seq)`` (:func:`attention_maps`).
        token_ids: the batch's token ids ``(batch, seq)``.
        padding_mask: ``(batch, seq)``, true (1) at real tokens.
        special_ids: the ids that make a head vertical: [CLS], [SEP] and the period (:func:`special_token_ids`).

    Returns:
        ``(positional, vertical)``: two ``(layers, heads)`` arrays of shares in [0, 1].

    Raises:
        ValueError: ``probs`` is not 5-D.
    """
    probs = np.asarray(probs, dtype="float64")
    mask = np.asarray(padding_mask).astype(bool)
    if probs.ndim != 5:
        raise ValueError(f"expected (layers, batch, heads, seq, seq), got shape {probs.shape}")
    keyed = np.where(mask[None, :, None, None, :], probs, -np.inf)  # never attend to padding
    best = keyed.argmax(-1)  # (layers, batch, heads, query)
    q = np.arange(probs.shape[-1])
    adjacent = np.abs(best - q) == 1
    special = np.isin(np.asarray(token_ids), list(special_ids))  # (batch, seq)
    b_idx = np.arange(probs.shape[1])[None, :, None, None]
    vertical = special[b_idx, best]
    real = mask[None, :, None, :]
    n = real.sum(axis=(1, 3))
    return (adjacent & real).sum(axis=(1, 3)) / n, (vertical & real).sum(axis=(1, 3)) / n


def classify_heads(probs, token_ids, padding_mask, special_ids, threshold: float = 0.9) -> np.ndarray:
    """``(layers, heads)`` labels: ``"positional"``, ``"vertical"`` or ``"other"`` (TLM's 90% rule).

    A head is positional when at least ``threshold`` of the real tokens attend most to an adjacent token, vertical
    when at least ``threshold`` attend most to a special token; positional wins where both hold
    (:func:`head_statistics` gives the shares).

    Args:
        probs: attention probabilities ``(layers, batch, heads, seq, seq)`` (:func:`attention_maps`).
        token_ids: the batch's token ids ``(batch, seq)``.
        padding_mask: ``(batch, seq)``, true (1) at real tokens.
        special_ids: the ids that make a head vertical (:func:`special_token_ids`).
        threshold: the share of tokens that labels a head (TLM: 0.9).

    Returns:
        A ``(layers, heads)`` array of the labels.
    """
    pos, vert = head_statistics(probs, token_ids, padding_mask, special_ids)
    out = np.full(pos.shape, "other", dtype="<U10")
    out[vert >= threshold] = "vertical"
    out[pos >= threshold] = "positional"
    return out


def special_token_ids(tokenizer) -> list[int]:
    """Ids of [CLS], [SEP] and the period in a keras-hub BERT tokenizer.

    Args:
        tokenizer: a keras-hub BERT tokenizer.

    Returns:
        ``[cls, sep, period]``, the ids a vertical head attends to.
    """
    return [int(tokenizer.token_to_id(t)) for t in ("[CLS]", "[SEP]", ".")]
