"""A DenseNet-style CNN head over BERT's token states (Experiment B of arXiv 1907.05338).

The token states are projected to ``filters`` channels (1×1 convolution), then
pass ``blocks`` dense blocks. Inside a block each of ``convs_per_block``
Conv1D layers (``growth`` filters, ReLU) reads the concatenation of the
block's input and every earlier layer's output (DenseNet's dense
connectivity); a 1×1 transition convolution brings the block's concatenation
back to ``filters`` channels. The last block's output is max-pooled over the
real tokens and concatenated with the ``[CLS]`` state, then dropout → Dense
logits. Padding positions are zeroed before every convolution, so they never
leak into real tokens' receptive fields. Kernels are Kaiming (``he_normal``)
initialised. DenseNet's batch normalisation is left out (statistics over
padded token grids are ill-defined).

>>> import numpy as np
>>> head = DenseCNNHead(num_classes=2, filters=8, growth=4, blocks=2, convs_per_block=2)
>>> states = {"sequence_output": np.ones((3, 7, 16), "float32"), "padding_mask": np.ones((3, 7), "int32")}
>>> tuple(head(states).shape)
(3, 2)
"""

from __future__ import annotations

import keras
from keras import ops

from ..bilstm import masked_max
from .rich_head import RichHead, full_mask, unpack_states


@keras.saving.register_keras_serializable(package="kit")
class DenseCNNHead(RichHead):
    """Token states → dense blocks of Conv1D → masked max pool ⊕ [CLS] → logits (``(B, num_classes)``).

    Args:
        num_classes: the logits (1 for regression).
        filters: the channels of the 1×1 projection and of each block's transition.
        growth: the filters of each Conv1D inside a block (DenseNet's growth rate).
        blocks: dense blocks.
        convs_per_block: Conv1D layers per block.
        kernel_size: the width of the Conv1D layers inside a block.
        dropout: before the logits.
        use_cls: concatenate the ``[CLS]`` state (position 0) to the pooled features.
        **kwargs: ``keras.layers.Layer``'s arguments (``name``, ``dtype``, ...).

    Raises:
        ValueError: ``num_classes`` or a size below 1.
    """

    CONFIG = ("num_classes", "filters", "growth", "blocks", "convs_per_block", "kernel_size", "dropout", "use_cls")

    def __init__(
        self,
        num_classes: int,
        filters: int = 128,
        growth: int = 32,
        blocks: int = 4,
        convs_per_block: int = 4,
        kernel_size: int = 3,
        dropout: float = 0.1,
        use_cls: bool = True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if num_classes < 1:
            raise ValueError(f"num_classes must be >= 1 (1 means regression), got {num_classes}.")
        if min(filters, growth, blocks, convs_per_block, kernel_size) < 1:
            raise ValueError(
                "filters, growth, blocks, convs_per_block and kernel_size must all be >= 1; got "
                f"{filters}, {growth}, {blocks}, {convs_per_block}, {kernel_size}."
            )
        self.num_classes, self.filters, self.growth = num_classes, filters, growth
        self.blocks, self.convs_per_block, self.kernel_size = blocks, convs_per_block, kernel_size
        self.dropout, self.use_cls = dropout, use_cls
        self.supports_masking = True
        policy = self.dtype_policy

        def conv(units, size, name, act="relu"):
            return keras.layers.Conv1D(
                units, size, padding="same", activation=act, kernel_initializer="he_normal", dtype=policy, name=name
            )

        self.project = conv(filters, 1, "project")
        self.convs = [
            [conv(growth, kernel_size, f"block{b}_conv{c}") for c in range(convs_per_block)] for b in range(blocks)
        ]
        self.transitions = [conv(filters, 1, f"block{b}_transition") for b in range(blocks)]
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
                width += self.growth
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
