"""A highway BiLSTM head over BERT's token states (Experiment B of arXiv 1907.05338).

Each layer is Stanza's simple highway LSTM (cuDNN-friendly: the gate does not enter the recurrence)::

    h = BiLSTM(x) + sigmoid(W_g x) ⊙ (W_h x)

so the input reaches the output through a learned gate even where the LSTM saturates. Padding is skipped by the LSTM and
zeroed in the highway term; ``W_g``, ``W_h`` and the logits are Kaiming (``he_normal``) initialised.

>>> import numpy as np
>>> head = HighwayBiLSTMHead(num_classes=3, cells=4)
>>> states = {"sequence_output": np.ones((2, 5, 8), "float32"), "padding_mask": np.ones((2, 5), "int32")}
>>> tuple(head(states).shape)
(2, 3)
"""

from __future__ import annotations

import keras
from keras import ops

from ..bilstm import BiLSTMEncoder, masked_max, masked_mean
from .rich_head import RichHead, full_mask, unpack_states

POOLINGS = ("max", "mean")


@keras.saving.register_keras_serializable(package="kit")
class HighwayBiLSTMHead(RichHead):
    """Token states → ``n_layers`` × [BiLSTM(x) + sigmoid(W_g x) ⊙ W_h x] → masked pooling → logits.

    ``cells`` LSTM units per direction; ``pooling`` over the real tokens: ``"max"`` or ``"mean"``; ``dropout`` between
    the layers and before the logits; ``num_classes`` 1 is regression. ``num_classes``, ``n_layers`` or ``cells`` below
    1, or an unknown ``pooling``, is a ValueError.
    """

    CONFIG = ("num_classes", "n_layers", "cells", "pooling", "dropout")

    def __init__(
        self,
        num_classes: int,
        n_layers: int = 1,
        cells: int = 128,
        pooling: str = "max",
        dropout: float = 0.1,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if num_classes < 1:
            raise ValueError(f"num_classes must be >= 1 (1 means regression), got {num_classes}.")
        if n_layers < 1 or cells < 1:
            raise ValueError(f"n_layers and cells must be >= 1, got n_layers={n_layers}, cells={cells}.")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        self.num_classes, self.n_layers, self.cells = num_classes, n_layers, cells
        self.pooling, self.dropout = pooling, dropout
        self.supports_masking = True
        policy = self.dtype_policy
        self.lstms = [
            BiLSTMEncoder(n_layers=1, cells=cells, dropout=0.0, pooling=None, dtype=policy, name=f"bilstm_{i}")
            for i in range(n_layers)
        ]
        self.gates = [
            keras.layers.Dense(
                2 * cells, activation="sigmoid", kernel_initializer="he_normal", dtype=policy, name=f"gate_{i}"
            )
            for i in range(n_layers)
        ]
        self.highways = [
            keras.layers.Dense(
                2 * cells, use_bias=False, kernel_initializer="he_normal", dtype=policy, name=f"highway_{i}"
            )
            for i in range(n_layers)
        ]
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy)
        self.logits = keras.layers.Dense(num_classes, kernel_initializer="he_normal", dtype=policy, name="logits")

    def build(self, input_shape):
        shape = tuple(input_shape["sequence_output"] if isinstance(input_shape, dict) else input_shape)
        for lstm, gate, highway in zip(self.lstms, self.gates, self.highways):
            lstm.build(shape)
            gate.build(shape)
            highway.build(shape)
            shape = shape[:-1] + (2 * self.cells,)
        self.logits.build((shape[0], 2 * self.cells))

    def call(self, inputs, mask=None, training=None):
        x, m, _ = unpack_states(inputs, mask)
        m = full_mask(x, m)
        keep = ops.cast(m, x.dtype)[..., None]
        for i, (lstm, gate, highway) in enumerate(zip(self.lstms, self.gates, self.highways)):
            if i > 0:
                x = self.dropout_layer(x, training=training)
            x = lstm(x, mask=m, training=training) + gate(x) * highway(x) * keep
        if self.pooling == "max":
            pooled = masked_max(x, m)
        else:
            pooled = masked_mean(x, m)
        return self.logits(self.dropout_layer(pooled, training=training))
