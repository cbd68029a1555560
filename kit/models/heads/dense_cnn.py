"""A DenseNet-style CNN head over BERT's token states (Experiment B of arXiv 1907.05338).

A 1×1 convolution projects to ``filters`` channels; in each dense block every Conv1D (``growth`` filters, ReLU) reads
the concatenation of the block's input and all earlier outputs, and a 1×1 transition returns to ``filters``. The result,
max-pooled over real tokens ⊕ ``[CLS]``, goes through dropout → Dense logits. Padding is zeroed before every convolution
(it never leaks into real tokens' receptive fields); kernels are Kaiming (``he_normal``) initialised. DenseNet's batch
normalisation is left out (statistics over padded token grids are ill-defined).

>>> import numpy as np
>>> head = DenseCNNHead(num_classes=2, filters=8, dense=DenseBlocks(blocks=2, convs_per_block=2, growth=4))
>>> states = {"sequence_output": np.ones((3, 7, 16), "float32"), "padding_mask": np.ones((3, 7), "int32")}
>>> tuple(head(states).shape)
(3, 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
from keras import ops

from ..bilstm import masked_max
from .rich_head import RichHead, as_group, full_mask, unpack_states


@dataclass(frozen=True)
class DenseBlocks:
    """The dense blocks' layout: how many, how deep, and each convolution's growth and width (DenseNet's).

    ``blocks`` dense blocks of ``convs_per_block`` Conv1D layers, each with ``growth`` filters (DenseNet's growth rate)
    and width ``kernel_size``. A size below 1 is a ValueError.

    Example:
        >>> DenseBlocks(blocks=2, convs_per_block=2, growth=16)
        DenseBlocks(blocks=2, convs_per_block=2, growth=16, kernel_size=3)
    """

    blocks: int = 4
    convs_per_block: int = 4
    growth: int = 32
    kernel_size: int = 3

    def __post_init__(self):
        if min(self.blocks, self.convs_per_block, self.growth, self.kernel_size) < 1:
            raise ValueError(
                "growth, blocks, convs_per_block and kernel_size must all be >= 1; got "
                f"{self.growth}, {self.blocks}, {self.convs_per_block}, {self.kernel_size}."
            )


@keras.saving.register_keras_serializable(package="kit")
class DenseCNNHead(RichHead):
    """Token states → dense blocks of Conv1D → masked max pool ⊕ [CLS] → logits (``(B, num_classes)``).

    ``filters``: channels of the 1×1 projection and of each transition. ``dense``: a :class:`DenseBlocks` or a dict of
    its fields (default: the paper's 4 blocks of 4 convolutions, growth 32, width 3). ``dropout`` comes before the
    logits; ``use_cls`` concatenates the ``[CLS]`` state (position 0) to the pooled features; ``num_classes`` 1 is
    regression. ``num_classes``, ``filters`` or a size of ``dense`` below 1 is a ValueError.
    """

    CONFIG = ("num_classes", "filters", "dense", "dropout", "use_cls")
    GROUPS = {"dense": DenseBlocks}

    def __init__(
        self,
        num_classes: int,
        filters: int = 128,
        dense: DenseBlocks | dict | None = None,
        dropout: float = 0.1,
        use_cls: bool = True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if num_classes < 1:
            raise ValueError(f"num_classes must be >= 1 (1 means regression), got {num_classes}.")
        if filters < 1:
            raise ValueError(f"filters must be >= 1, got {filters}.")
        self.num_classes, self.filters, self.dense = num_classes, filters, as_group(dense, DenseBlocks, "dense")
        self.dropout, self.use_cls = dropout, use_cls
        self.supports_masking = True
        policy, d = self.dtype_policy, self.dense

        def conv(units, size, name, act="relu"):
            return keras.layers.Conv1D(
                units, size, padding="same", activation=act, kernel_initializer="he_normal", dtype=policy, name=name
            )

        self.project = conv(filters, 1, "project")
        self.convs = [
            [conv(d.growth, d.kernel_size, f"block{b}_conv{c}") for c in range(d.convs_per_block)]
            for b in range(d.blocks)
        ]
        self.transitions = [conv(filters, 1, f"block{b}_transition") for b in range(d.blocks)]
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy)
        self.logits = keras.layers.Dense(num_classes, kernel_initializer="he_normal", dtype=policy, name="logits")

    def build(self, input_shape):
        shape = tuple(input_shape["sequence_output"] if isinstance(input_shape, dict) else input_shape)
        hidden = shape[-1]
        self.project.build(shape)
        for convs, transition in zip(self.convs, self.transitions):
            width = self.filters
            for c in convs:
                c.build(shape[:-1] + (width,))
                width += self.dense.growth
            transition.build(shape[:-1] + (width,))
        self.logits.build((shape[0], self.filters + (hidden if self.use_cls else 0)))

    def call(self, inputs, mask=None, training=None):
        seq, m, _ = unpack_states(inputs, mask)
        m = full_mask(seq, m)
        keep = ops.cast(m, seq.dtype)[..., None]
        x = self.project(seq * keep) * keep
        for convs, transition in zip(self.convs, self.transitions):
            features = [x]
            for c in convs:
                inp = features[0] if len(features) == 1 else ops.concatenate(features, axis=-1)
                features.append(c(inp) * keep)
            x = transition(ops.concatenate(features, axis=-1)) * keep
        pooled = masked_max(x, m)
        if self.use_cls:
            pooled = ops.concatenate([pooled, seq[:, 0, :]], axis=-1)
        return self.logits(self.dropout_layer(pooled, training=training))
