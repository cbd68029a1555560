"""The token tagger head: BERT token states → BiLSTM → per-token tag logits (the paper's Experiment A).

Its finetune-only baseline is two dense layers per token (``TokenTaggerHead(n_layers=0, hidden_dim=...)``). Labels live
on words: :func:`kit.text.align_labels` puts them on first sub-tokens, ``IGNORE`` elsewhere, and the masked loss and
accuracy of :mod:`kit.metrics.masked_tokens` skip the rest.

>>> import numpy as np
>>> head = TokenTaggerHead(num_tags=5, n_layers=1, cells=4)
>>> states = {"sequence_output": np.zeros((2, 6, 8), "float32"), "padding_mask": np.ones((2, 6), "int32")}
>>> tuple(head(states).shape)
(2, 6, 5)
"""

from __future__ import annotations

import keras

from ..bilstm import BiLSTMEncoder
from .rich_head import RichHead, full_mask, unpack_states


@keras.saving.register_keras_serializable(package="kit")
class TokenTaggerHead(RichHead):
    """Token states → (BiLSTM, ``n_layers`` × ``cells`` each way) → (Dense ``hidden_dim``, ReLU) → tag logits.

    Input: ``{"sequence_output": (B, T, H), "padding_mask": (B, T)}`` or a ``(B, T, H)`` tensor (with a Keras mask);
    output ``(B, T, num_tags)`` logits, with no Keras mask: score them with
    :class:`kit.metrics.MaskedSparseCategoricalCrossentropy`, whose labels mark what to skip. ``n_layers`` 0 drops the
    BiLSTM (the finetune-only head); ``hidden_dim`` None drops the hidden layer. ``dropout`` sits between the BiLSTM
    layers, then before and after the hidden layer. The BiLSTM skips padding (zero states there); Dense kernels are
    Kaiming (``he_normal``), as in the paper; the LSTM keeps Keras' defaults. ``num_tags`` below 2, ``n_layers`` below
    0, or ``cells`` below 1 with a BiLSTM, is a ValueError.

    Example:
        >>> import numpy as np
        >>> head = TokenTaggerHead(num_tags=3, n_layers=0, hidden_dim=4)
        >>> tuple(head(np.zeros((2, 6, 8), "float32")).shape)
        (2, 6, 3)
    """

    CONFIG = ("num_tags", "n_layers", "cells", "hidden_dim", "dropout")

    def __init__(
        self,
        num_tags: int,
        n_layers: int = 1,
        cells: int = 128,
        hidden_dim: int | None = None,
        dropout: float = 0.1,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if num_tags < 2:
            raise ValueError(f"num_tags must be >= 2 (tag logits), got {num_tags}.")
        if n_layers < 0 or (n_layers > 0 and cells < 1):
            raise ValueError(f"n_layers must be >= 0 and cells >= 1, got n_layers={n_layers}, cells={cells}.")
        self.num_tags, self.n_layers, self.cells = num_tags, n_layers, cells
        self.hidden_dim, self.dropout = hidden_dim, dropout
        self.supports_masking = True
        policy = self.dtype_policy
        self.bilstm = (
            BiLSTMEncoder(n_layers=n_layers, cells=cells, dropout=dropout, pooling=None, dtype=policy, name="bilstm")
            if n_layers
            else None
        )
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=policy)
        self.hidden = (
            keras.layers.Dense(
                hidden_dim, activation="relu", kernel_initializer="he_normal", dtype=policy, name="hidden"
            )
            if hidden_dim
            else None
        )
        self.logits = keras.layers.Dense(num_tags, kernel_initializer="he_normal", dtype=policy, name="logits")

    def build(self, input_shape):
        shape = tuple(input_shape["sequence_output"] if isinstance(input_shape, dict) else input_shape)
        if self.bilstm is not None:
            self.bilstm.build(shape)
            shape = shape[:-1] + (2 * self.cells,)
        if self.hidden is not None:
            self.hidden.build(shape)
            shape = shape[:-1] + (self.hidden_dim,)
        self.logits.build(shape)

    def call(self, inputs, mask=None, training=None):
        x, m, _ = unpack_states(inputs, mask)
        if self.bilstm is not None:
            x = self.bilstm(x, mask=full_mask(x, m), training=training)
        x = self.dropout_layer(x, training=training)
        if self.hidden is not None:
            x = self.dropout_layer(self.hidden(x), training=training)
        return self.logits(x)

    def compute_output_shape(self, input_shape):
        shape = input_shape["sequence_output"] if isinstance(input_shape, dict) else input_shape
        return tuple(shape[:-1]) + (self.num_tags,)
