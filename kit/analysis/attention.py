"""Attention probabilities out of a BERT backbone and TLM's head taxonomy (notebook 02 draws them: draw_heads).

:func:`attention_maps` collects every layer's softmax ``(layers, batch, heads, query, key)``; :func:`trace_attention`
records one layer's attention in a forward pass (notebook 00 recomputes it); :func:`draw_attention` draws a head on a
sentence. TLM (Sec. 5.3) sorts heads by each token's *maximum* attention: **positional** (>= 90% of tokens on i-1 or
i+1), **vertical** (>= 90% on [CLS], [SEP] or the period).

>>> import numpy as np
>>> shift = np.eye(5, k=-1); shift[0, 1] = 1                  # every token looks at its neighbour
>>> probs = shift[None, None, None]                             # (layers, batch, heads, q, k)
>>> classify_heads(probs, np.array([[101, 7, 8, 9, 102]]), np.ones((1, 5), int), special_ids=[101, 102])
array([['positional']], dtype='<U10')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def attention_maps(backbone, inputs: dict) -> np.ndarray:
    """Softmax attention of every layer and head: ``(layers, batch, heads, query, key)`` (NumPy).

    keras-hub's ``BertBackbone`` returns no attention, so the backbone runs layer by layer, each ``TransformerEncoder``
    with ``return_attention_scores=True``. ``inputs``: one batch, ``token_ids``, ``segment_ids``, ``padding_mask``, each
    ``(batch, seq)``.
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
    """Per (layer, head): share of real tokens whose argmax is adjacent (i-1, i+1), and share whose argmax is special.

    ``probs``: ``(layers, batch, heads, seq, seq)`` (:func:`attention_maps`); ``token_ids``, ``padding_mask`` (1 at real
    tokens): ``(batch, seq)``; ``special_ids``: [CLS], [SEP], the period (:func:`special_token_ids`). Padding is never
    an argmax nor counted. Returns ``(positional, vertical)``, two ``(layers, heads)`` arrays; ValueError if ``probs``
    is not 5-D.
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

    A head is positional (winning ties) or vertical when at least ``threshold`` of the real tokens attend most to an
    adjacent or a special token (:func:`head_statistics`, same arguments).
    """
    pos, vert = head_statistics(probs, token_ids, padding_mask, special_ids)
    out = np.full(pos.shape, "other", dtype="<U10")
    out[vert >= threshold] = "vertical"
    out[pos >= threshold] = "positional"
    return out


def special_token_ids(tokenizer) -> list[int]:
    """Ids of [CLS], [SEP] and the period in a keras-hub BERT tokenizer: the ones a vertical head attends to."""
    return [int(tokenizer.token_to_id(t)) for t in ("[CLS]", "[SEP]", ".")]


@dataclass
class AttentionTrace:
    """What one encoder layer's multi-head self-attention read and wrote in a forward pass (NumPy arrays).

    ``inputs`` :math:`X` ``(batch, seq, hidden)`` (layer 0: the embedding output); ``padding_mask`` ``(batch, seq)``, 1
    at real tokens; ``weights`` :math:`A` ``(batch, heads, query, key)``; ``output`` ``(batch, seq, hidden)``, after the
    output dense layer, before the residual and layer norm; ``attention``: the ``keras.layers.MultiHeadAttention`` (its
    ``query_dense``, ``key_dense``, ``value_dense``, ``output_dense`` hold the weights).
    """

    inputs: np.ndarray
    padding_mask: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    attention: object


def trace_attention(backbone, inputs: dict, layer: int = 0) -> AttentionTrace:
    """Run the backbone once (inference) and record what layer ``layer``'s (0: nearest the input) self-attention did.

    ``MultiHeadAttention`` is wrapped for this call (as SMART wraps the embeddings), so the numbers are the encoder's
    own pass; asking for weights makes Keras take its explicit (non-fused) path. ``inputs``: ``token_ids``,
    ``segment_ids``, ``padding_mask``, each ``(batch, seq)``. ValueError: no such layer.

    Example:
        >>> from kit.models import BertBackbone
        >>> bb = BertBackbone(vocabulary_size=20, num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16,
        ...                   max_sequence_length=6)
        >>> x = {"token_ids": np.array([[2, 5, 7, 3, 0, 0]]), "segment_ids": np.zeros((1, 6), "int32"),
        ...      "padding_mask": np.array([[1, 1, 1, 1, 0, 0]])}
        >>> trace = trace_attention(bb, x, layer=1)
        >>> trace.weights.shape, float(trace.weights[0, :, :, 4:].max())   # padding gets no weight
        ((1, 2, 6, 6), 0.0)
    """
    import keras  # noqa: PLC0415 - kit.analysis imports without Keras (a light room)

    layers = backbone.transformer_layers
    if not 0 <= layer < len(layers):
        raise ValueError(f"layer={layer}: the backbone has layers 0 to {len(layers) - 1}.")
    attention = layers[layer]._self_attention_layer  # keras-hub's TransformerEncoder keeps it under this name
    seen = {}
    original = attention.call

    def recording(query, value, *args, return_attention_scores=False, **kwargs):
        out, weights = original(query, value, *args, return_attention_scores=True, **kwargs)
        seen.update(inputs=query, weights=weights, output=out)
        return (out, weights) if return_attention_scores else out

    object.__setattr__(attention, "call", recording)
    try:
        backbone(inputs, training=False)
    finally:
        object.__delattr__(attention, "call")
    numpy = {k: np.asarray(keras.ops.convert_to_numpy(v), "float32") for k, v in seen.items()}
    mask = np.asarray(inputs["padding_mask"]).astype("int32")
    return AttentionTrace(numpy["inputs"], mask, numpy["weights"], numpy["output"], attention)


def draw_attention(weights, tokens: list, titles=None, ax=None):
    """Heat maps of attention weights on one sentence: the attending token on the rows, the attended one on the columns.

    ``weights``: one head's ``(query, key)`` or ``(n, query, key)`` side by side, cut to ``len(tokens)``; ``titles``:
    one per map; ``ax``: draw one map there (default: a new figure). Returns the figure; ValueError where ``weights`` is
    not 2-D/3-D, is shorter than ``tokens`` or titles do not match.

    Example:
        >>> fig = draw_attention(np.eye(3), ["[CLS]", "hi", "[SEP]"], titles=["every token looks at itself"])
        >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
        ['[CLS]', 'hi', '[SEP]']
    """
    import matplotlib.pyplot as plt

    maps = np.asarray(weights, dtype="float64")
    maps = maps[None] if maps.ndim == 2 else maps
    n = len(tokens)
    if maps.ndim != 3 or min(maps.shape[1:]) < n:
        raise ValueError(f"weights must be (query, key) or (n, query, key) covering {n} tokens, got {maps.shape}.")
    titles = list(titles) if titles is not None else [""] * len(maps)
    if len(titles) != len(maps):
        raise ValueError(f"{len(titles)} titles for {len(maps)} maps.")
    if ax is not None and len(maps) != 1:
        raise ValueError("ax draws one map: pass a single (query, key) array, or no ax.")
    if ax is None:
        side = 0.32 * n + 1.6
        fig, axes = plt.subplots(1, len(maps), figsize=(side * len(maps) + 0.6, side), squeeze=False)
        axes = list(axes[0])
    else:
        fig, axes = ax.figure, [ax]
    for ax_, heat, title in zip(axes, maps, titles):
        image = ax_.imshow(heat[:n, :n], cmap="viridis", vmin=0, vmax=1)
        ax_.set_xticks(range(n), tokens, rotation=90, fontsize=8)
        ax_.set_yticks(range(n), tokens, fontsize=8)
        ax_.set(xlabel="attended token (key j)", ylabel="attending token (query i)")
        ax_.set_title(title, fontsize=9)
        fig.colorbar(image, ax=ax_, fraction=0.046, pad=0.03).set_label("weight $A_{ij}$ (each row sums to 1)")
    fig.tight_layout()
    return fig
