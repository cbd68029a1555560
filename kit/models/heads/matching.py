"""Sentence-pair heads over one pair encoding: BiMPM-style matching and the "Sim-Transformer".

BERT encodes ``[CLS] a [SEP] b [SEP]`` as one sequence; :func:`pair_masks` splits it by ``segment_ids`` into two masks
on the same ``(B, T)`` grid (no gather/re-pad; nothing from padding or the other side enters a side's computation).
Dense, matching and transformer kernels are Kaiming (``he_normal``) initialised.

>>> import numpy as np
>>> seg = np.array([[0, 0, 0, 1, 1, 1, 0]]); pad = np.array([[1, 1, 1, 1, 1, 1, 0]])
>>> a, b = pair_masks(pad, seg)
>>> keras.ops.convert_to_numpy(a).astype(int).tolist(), keras.ops.convert_to_numpy(b).astype(int).tolist()
([[0, 1, 0, 0, 0, 0, 0]], [[0, 0, 0, 1, 1, 0, 0]])
>>> head = BiMPMHead(num_classes=2, perspectives=3, context_cells=4, aggregation_cells=4)
>>> states = {"sequence_output": np.ones((1, 7, 6), "float32"), "padding_mask": pad, "segment_ids": seg}
>>> tuple(head(states).shape)
(1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
import keras_hub
from keras import ops

from ..bilstm import BiLSTMEncoder, masked_mean
from .rich_head import RichHead, as_group, unpack_states

_EPS = 1e-12


def pair_masks(padding_mask, segment_ids, drop_special: bool = True):
    """``(mask_a, mask_b)``: bool ``(B, T)`` masks of the pair's first (segment 0) and second (segment 1) text.

    Both lie within ``padding_mask``; ``drop_special`` leaves out ``[CLS]`` (position 0) and each side's last token (its
    ``[SEP]``).
    """
    m = ops.cast(padding_mask, "bool")
    seg = ops.cast(segment_ids, "int32")
    a = ops.logical_and(m, ops.equal(seg, 0))
    b = ops.logical_and(m, ops.equal(seg, 1))
    if drop_special:
        pos = ops.expand_dims(ops.arange(ops.shape(seg)[1], dtype="int32"), 0)
        a = ops.logical_and(a, ops.not_equal(pos, 0))
        last_a = ops.max(ops.where(a, pos, -1), axis=1, keepdims=True)
        last_b = ops.max(ops.where(b, pos, -1), axis=1, keepdims=True)
        a = ops.logical_and(a, ops.not_equal(pos, last_a))
        b = ops.logical_and(b, ops.not_equal(pos, last_b))
    return a, b


def _unit(x):
    return x * ops.rsqrt(ops.sum(x * x, axis=-1, keepdims=True) + _EPS)


def _mp_cos(v1, v2, w):
    """``(B, T, d)`` against ``(B, T or 1, d)`` with ``w`` ``(l, d)`` → ``(B, T, l)`` cosines."""
    return ops.sum(_unit(v1[:, :, None, :] * w) * _unit(v2[:, :, None, :] * w), axis=-1)


def _mp_pairwise(v1, v2, w):
    """Every step of ``v1`` ``(B, T1, d)`` against every step of ``v2`` ``(B, T2, d)`` → ``(B, T1, T2, l)``."""
    return ops.einsum("bild,bjld->bijl", _unit(v1[:, :, None, :] * w), _unit(v2[:, :, None, :] * w))


@keras.saving.register_keras_serializable(package="kit")
class MultiPerspectiveMatching(keras.layers.Layer):
    """BiMPM's four matching strategies of side ``p`` against side ``q``: ``(B, T, 4·l·directions)``.

    BiMPM (Wang et al. 2017), ``l`` = ``perspectives`` weights ``W_k``:
    ``f_m(v1, v2; W) = [cos(W_k ∘ v1, W_k ∘ v2)]_k``. Each step ``p_i`` is matched against ``Q`` four ways, each with
    its own weights: full (``Q``'s last forward state, first backward state), max-pooling (the max over ``q_j`` of
    ``f_m(p_i, q_j)``), attentive (the mean of ``Q`` weighted by ``alpha_ij = cos(p_i, q_j)``, negative cosines counted
    0 so weights cannot cancel), max-attentive (the ``q_j`` of largest ``alpha_ij``). ``directions=2`` matches the
    forward and backward halves of ``D`` (a BiLSTM's) separately; ``directions=1`` matches BERT states whole, "full"
    against ``Q``'s masked mean. Cosines are computed in float32.

    Input: ``{"p": (B, T, D), "q": (B, T, D), "p_mask": (B, T), "q_mask": (B, T)}``; the output is zero outside
    ``p_mask``. ValueError: ``perspectives`` below 1, ``directions`` not 1 or 2, or (when built) ``D`` not divisible by
    ``directions``.

    Example:
        >>> import numpy as np
        >>> mpm = MultiPerspectiveMatching(perspectives=3, directions=1)
        >>> x, m = np.ones((2, 4, 6), "float32"), np.ones((2, 4), bool)
        >>> tuple(mpm({"p": x, "q": x, "p_mask": m, "q_mask": m}).shape)
        (2, 4, 12)
    """

    def __init__(self, perspectives: int = 20, directions: int = 2, **kwargs):
        super().__init__(**kwargs)
        if perspectives < 1:
            raise ValueError(f"perspectives (l) must be >= 1, got {perspectives}.")
        if directions not in (1, 2):
            raise ValueError(f"directions must be 1 or 2, got {directions}.")
        self.perspectives, self.directions = perspectives, directions
        self.supports_masking = True  # masks come in as inputs; the output carries none

    def compute_mask(self, inputs, mask=None):
        return None

    def build(self, input_shape):
        dim = input_shape["p"][-1]
        if dim is None or dim % self.directions:
            raise ValueError(
                f"MultiPerspectiveMatching(directions={self.directions}) needs a known feature size "
                f"divisible by {self.directions}; got {dim}."
            )
        d = dim // self.directions
        # one (l, d) matrix per strategy (full, max-pooling, attentive, max-attentive) and direction
        self.w = self.add_weight(
            shape=(4, self.directions, self.perspectives, d), initializer="he_normal", name="perspectives"
        )

    def call(self, inputs):
        p = ops.cast(inputs["p"], "float32")
        q = ops.cast(inputs["q"], "float32")
        p_mask = ops.cast(inputs["p_mask"], "bool")
        q_mask = ops.cast(inputs["q_mask"], "bool")
        w = ops.cast(self.w, "float32")
        qm = ops.cast(q_mask, "float32")
        q_any = ops.any(q_mask, axis=1)[:, None, None]  # (B, 1, 1): does the other side have tokens?
        steps = ops.shape(q)[1]
        pos = ops.expand_dims(ops.arange(steps, dtype="int32"), 0)
        d = ops.shape(p)[-1] // self.directions
        feats = []
        for k in range(self.directions):
            pk = p[..., k * d : (k + 1) * d] if self.directions == 2 else p
            qk = q[..., k * d : (k + 1) * d] if self.directions == 2 else q
            # full: the other side's summary state
            if self.directions == 2 and k == 0:  # forward states: the last real step
                idx = ops.maximum(ops.max(ops.where(q_mask, pos, -1), axis=1), 0)
            elif self.directions == 2:  # backward states: the first real step
                idx = ops.minimum(ops.min(ops.where(q_mask, pos, steps), axis=1), steps - 1)
            if self.directions == 2:
                summary = ops.take_along_axis(qk, idx[:, None, None], axis=1)
            else:
                summary = ops.sum(qk * qm[..., None], axis=1, keepdims=True) / ops.maximum(
                    ops.sum(qm, axis=1)[:, None, None], 1.0
                )
            feats.append(_mp_cos(pk, summary, w[0, k]))
            # max-pooling over the other side's steps
            pair = _mp_pairwise(pk, qk, w[1, k])
            pair = ops.where(q_mask[:, None, :, None], pair, -2.0)
            feats.append(ops.where(q_any, ops.max(pair, axis=2), 0.0))
            # attentive: cosine-weighted mean of the other side
            alpha = ops.einsum("bid,bjd->bij", _unit(pk), _unit(qk))
            weights = ops.where(q_mask[:, None, :], ops.relu(alpha), 0.0)
            mean = ops.einsum("bij,bjd->bid", weights, qk) / ops.maximum(ops.sum(weights, axis=-1, keepdims=True), 1e-6)
            feats.append(_mp_cos(pk, mean, w[2, k]))
            # max-attentive: the other side's most similar step
            best = ops.argmax(ops.where(q_mask[:, None, :], alpha, -2.0), axis=-1)
            chosen = ops.take_along_axis(qk, ops.cast(best, "int32")[..., None], axis=1)
            feats.append(_mp_cos(pk, chosen, w[3, k]))
        out = ops.concatenate(feats, axis=-1) * ops.cast(p_mask, "float32")[..., None]
        return ops.cast(out, self.compute_dtype)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape["p"][:-1]) + (4 * self.perspectives * self.directions,)

    def get_config(self):
        config = super().get_config()
        config.update({"perspectives": self.perspectives, "directions": self.directions})
        return config


def _pair_sides(inputs, mask, drop_special, who):
    seq, m, seg = unpack_states(inputs, mask)
    if seg is None:
        raise ValueError(
            f"{who} needs the pair's segment_ids to split it into its two texts: pass "
            "{'sequence_output', 'padding_mask', 'segment_ids'} (build_stacked_model does)."
        )
    if m is None:
        m = ops.ones(ops.shape(seq)[:2], dtype="bool")
    a, b = pair_masks(m, seg, drop_special)
    return seq, a, b


@keras.saving.register_keras_serializable(package="kit")
class BiMPMHead(RichHead):
    """BiMPM over a pair encoding: context BiLSTM → matching both ways → aggregation BiLSTM → MLP → logits.

    Input: ``{"sequence_output", "padding_mask", "segment_ids"}`` (segment ids split the pair, :func:`pair_masks`).
    Matching runs P against Q and Q against P with shared weights; the aggregation BiLSTM (``aggregation_cells`` each
    way) gives each side's final states. ``context_cells=0`` is the paper's variant without the context BiLSTM;
    ``hidden_dim`` (the MLP's ReLU layer) defaults to ``2 * aggregation_cells``; ``dropout`` acts on the token states,
    the matching vectors and around the hidden layer; ``drop_special`` leaves ``[CLS]`` and ``[SEP]`` out of both sides.
    ValueError: ``num_classes`` below 1, ``context_cells`` below 0 or ``aggregation_cells`` below 1; when called, an
    input without ``segment_ids``.
    """

    CONFIG = (
        "num_classes",
        "perspectives",
        "context_cells",
        "aggregation_cells",
        "hidden_dim",
        "dropout",
        "drop_special",
    )

    def __init__(
        self,
        num_classes: int,
        perspectives: int = 20,
        context_cells: int = 100,
        aggregation_cells: int = 100,
        hidden_dim: int | None = None,
        dropout: float = 0.1,
        drop_special: bool = True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if num_classes < 1:
            raise ValueError(f"num_classes must be >= 1 (1 means regression), got {num_classes}.")
        if context_cells < 0 or aggregation_cells < 1:
            raise ValueError(
                f"context_cells must be >= 0 (0: no context BiLSTM) and aggregation_cells >= 1; got "
                f"{context_cells}, {aggregation_cells}."
            )
        self.num_classes, self.perspectives = num_classes, perspectives
        self.context_cells, self.aggregation_cells = context_cells, aggregation_cells
        self.hidden_dim = hidden_dim if hidden_dim is not None else 2 * aggregation_cells
        self.dropout, self.drop_special = dropout, drop_special
        self.supports_masking = True
        policy = self.dtype_policy
        self.context = (
            BiLSTMEncoder(n_layers=1, cells=context_cells, dropout=0.0, pooling=None, dtype=policy, name="context")
            if context_cells
            else None
        )
        self.matching = MultiPerspectiveMatching(
            perspectives, directions=2 if context_cells else 1, dtype=policy, name="matching"
        )
        self.aggregation = BiLSTMEncoder(
            n_layers=1, cells=aggregation_cells, dropout=0.0, pooling="last", dtype=policy, name="aggregation"
        )
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy)
        self.hidden = keras.layers.Dense(
            self.hidden_dim, activation="relu", kernel_initializer="he_normal", dtype=policy, name="hidden"
        )
        self.logits = keras.layers.Dense(num_classes, kernel_initializer="he_normal", dtype=policy, name="logits")

    def build(self, input_shape):
        shape = tuple(input_shape["sequence_output"])
        if self.context is not None:
            self.context.build(shape)
            shape = shape[:-1] + (2 * self.context_cells,)
        self.matching.build({"p": shape, "q": shape, "p_mask": shape[:-1], "q_mask": shape[:-1]})
        feat = 4 * self.perspectives * (2 if self.context is not None else 1)
        self.aggregation.build(shape[:-1] + (feat,))
        self.hidden.build((shape[0], 4 * self.aggregation_cells))
        self.logits.build((shape[0], self.hidden_dim))

    def call(self, inputs, mask=None, training=None):
        seq, a, b = _pair_sides(inputs, mask, self.drop_special, "BiMPMHead")
        seq = self.dropout_layer(seq, training=training)
        # both sides in one batch (side a rows, then side b rows): each shared layer runs once
        both = ops.concatenate([a, b], axis=0)
        twice = ops.concatenate([seq, seq], axis=0)
        if self.context is not None:
            ctx = self.context(twice, mask=both, training=training)
        else:
            ctx = twice * ops.cast(both, seq.dtype)[..., None]
        n = ops.shape(seq)[0]
        other = ops.concatenate([ctx[n:], ctx[:n]], axis=0)
        other_mask = ops.concatenate([b, a], axis=0)
        m = self.dropout_layer(
            self.matching({"p": ctx, "q": other, "p_mask": both, "q_mask": other_mask}), training=training
        )
        v = self.aggregation(m, mask=both, training=training)
        v = ops.concatenate([v[:n], v[n:]], axis=-1)
        h = self.dropout_layer(self.hidden(self.dropout_layer(v, training=training)), training=training)
        return self.logits(h)


@dataclass(frozen=True)
class TransformerLayers:
    """The Sim-Transformer's stack of ``keras_hub.layers.TransformerEncoder`` layers: depth, heads and widths.

    ``num_layers`` layers of ``num_heads`` heads, width ``hidden_dim`` (a multiple of ``num_heads``), feed-forward inner
    size ``intermediate_dim``. ``num_layers`` below 1, or ``hidden_dim`` not divisible by ``num_heads``, is a
    ValueError.

    Example:
        >>> TransformerLayers(num_layers=1, num_heads=2, hidden_dim=32, intermediate_dim=64).hidden_dim
        32
    """

    num_layers: int = 2
    num_heads: int = 4
    hidden_dim: int = 128
    intermediate_dim: int = 256

    def __post_init__(self):
        if self.num_layers < 1:
            raise ValueError(f"num_layers must be >= 1, got {self.num_layers}.")
        if self.hidden_dim % self.num_heads:
            raise ValueError(f"hidden_dim ({self.hidden_dim}) must be divisible by num_heads ({self.num_heads}).")


@keras.saving.register_keras_serializable(package="kit")
class SimTransformerHead(RichHead):
    """Sim-Transformer: matching vectors (or token states) → TransformerEncoder layers → side pooling → logits.

    The paper's "Sim-Transformer" is BiMPM with the aggregation BiLSTM replaced by ``transformer`` (a
    :class:`TransformerLayers` or a dict of its fields; default: 2 layers of 4 heads, width 128, feed-forward 256) over
    both sides' matching vectors (``perspectives`` = ``l``, ``directions=1``), masked; each side's masked mean of the
    last layer is concatenated before the logits. ``use_matching=False`` runs the layers on the token states. Input and
    ``drop_special`` as :class:`BiMPMHead`'s; ``dropout`` before the projection, inside the layers and before the
    logits. ValueError: ``num_classes`` below 1 or a bad ``transformer``; when called, an input without ``segment_ids``.

    Example:
        >>> import numpy as np
        >>> layers = TransformerLayers(num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=8)
        >>> head = SimTransformerHead(num_classes=2, transformer=layers, perspectives=3)
        >>> seg = np.array([[0, 0, 0, 1, 1, 1, 0]]); pad = np.array([[1, 1, 1, 1, 1, 1, 0]])
        >>> states = {"sequence_output": np.ones((1, 7, 6), "float32"), "padding_mask": pad, "segment_ids": seg}
        >>> tuple(head(states).shape)
        (1, 2)
    """

    CONFIG = ("num_classes", "transformer", "perspectives", "use_matching", "dropout", "drop_special")
    GROUPS = {"transformer": TransformerLayers}

    def __init__(
        self,
        num_classes: int,
        transformer: TransformerLayers | dict | None = None,
        perspectives: int = 20,
        use_matching: bool = True,
        dropout: float = 0.1,
        drop_special: bool = True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if num_classes < 1:
            raise ValueError(f"num_classes must be >= 1 (1 means regression), got {num_classes}.")
        self.num_classes, self.transformer = num_classes, as_group(transformer, TransformerLayers, "transformer")
        self.perspectives, self.use_matching = perspectives, use_matching
        self.dropout, self.drop_special = dropout, drop_special
        self.supports_masking = True
        policy, t = self.dtype_policy, self.transformer
        self.matching = (
            MultiPerspectiveMatching(perspectives, directions=1, dtype=policy, name="matching")
            if use_matching
            else None
        )
        self.project = keras.layers.Dense(t.hidden_dim, kernel_initializer="he_normal", dtype=policy, name="project")
        self.encoders = [
            keras_hub.layers.TransformerEncoder(
                t.intermediate_dim,
                t.num_heads,
                dropout=dropout,
                kernel_initializer="he_normal",
                dtype=policy,
                name=f"transformer_{i}",
            )
            for i in range(t.num_layers)
        ]
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy)
        self.logits = keras.layers.Dense(num_classes, kernel_initializer="he_normal", dtype=policy, name="logits")

    def build(self, input_shape):
        shape = tuple(input_shape["sequence_output"])
        if self.matching is not None:
            self.matching.build({"p": shape, "q": shape, "p_mask": shape[:-1], "q_mask": shape[:-1]})
            shape = shape[:-1] + (4 * self.perspectives,)
        self.project.build(shape)
        shape = shape[:-1] + (self.transformer.hidden_dim,)
        for enc in self.encoders:
            enc.build(shape)
        self.logits.build((shape[0], 2 * self.transformer.hidden_dim))

    def call(self, inputs, mask=None, training=None):
        seq, a, b = _pair_sides(inputs, mask, self.drop_special, "SimTransformerHead")
        if self.matching is not None:
            p, q = seq * ops.cast(a, seq.dtype)[..., None], seq * ops.cast(b, seq.dtype)[..., None]
            n = ops.shape(seq)[0]
            m = self.matching(
                {
                    "p": ops.concatenate([p, q], axis=0),
                    "q": ops.concatenate([q, p], axis=0),
                    "p_mask": ops.concatenate([a, b], axis=0),
                    "q_mask": ops.concatenate([b, a], axis=0),
                }
            )
            # the two sides occupy disjoint positions: their matching vectors share one grid
            x = m[:n] + m[n:]
        else:
            x = seq
        both = ops.logical_or(a, b)
        x = self.project(self.dropout_layer(x, training=training)) * ops.cast(both, seq.dtype)[..., None]
        for enc in self.encoders:
            x = enc(x, padding_mask=both, training=training)
        pooled = ops.concatenate([masked_mean(x, a), masked_mean(x, b)], axis=-1)
        return self.logits(self.dropout_layer(pooled, training=training))
