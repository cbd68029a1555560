"""LSTM-n-k: the BiLSTM encoder of *To Pretrain or Not to Pretrain*, and its classifier.

``BiLSTMEncoder(n_layers=n, cells=k)`` stacks ``n`` bidirectional LSTM layers
of ``k`` cells per direction over embedded tokens, honours the padding mask,
and pools the last layer's outputs over time (``"max"``, ``"mean"`` or
``"last"``: the final forward and backward states).

On the torch backend Keras runs an LSTM as a Python loop on the CPU (its fused
kernel is CUDA-only). The layer therefore has a fast path there: the same
weights fed to PyTorch's fused ``_VF.lstm`` over a packed sequence, which is
what ``torch.nn.LSTM`` runs. It computes the same function (tested against the
generic path) and is used for inference and training alike; ``fast_path=False``
turns it off.

>>> import numpy as np
>>> enc = BiLSTMEncoder(n_layers=2, cells=8, pooling="max")
>>> tuple(enc(np.zeros((3, 5, 4), "float32")).shape)
(3, 16)
"""

from __future__ import annotations

import keras
from keras import ops

POOLINGS = ("max", "mean", "last")


@keras.saving.register_keras_serializable(package="kit")
class BiLSTMEncoder(keras.layers.Layer):
    """``n_layers`` stacked bidirectional LSTMs of ``cells`` units each way, masked, pooled."""

    def __init__(self, n_layers: int = 2, cells: int = 256, dropout: float = 0.1, pooling: str = "max",
                 fast_path: bool = True, **kwargs):
        super().__init__(**kwargs)
        if n_layers < 1 or cells < 1:
            raise ValueError(f"LSTM-n-k needs n_layers >= 1 and cells >= 1, got n_layers={n_layers}, cells={cells}.")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        self.n_layers, self.cells, self.dropout, self.pooling = n_layers, cells, dropout, pooling
        self.fast_path = fast_path
        self.supports_masking = True
        self.layers_ = [keras.layers.Bidirectional(keras.layers.LSTM(cells, return_sequences=True,
                                                                     return_state=False), name=f"bilstm_{i}")
                        for i in range(n_layers)]
        self.dropout_layer = keras.layers.Dropout(dropout)

    def build(self, input_shape):
        shape = tuple(input_shape)
        for layer in self.layers_:
            layer.build(shape)
            shape = shape[:-1] + (2 * self.cells,)

    # -- the generic path (all backends) ----------------------------------------
    def _generic(self, x, mask, training):
        for i, layer in enumerate(self.layers_):
            if i > 0:
                x = self.dropout_layer(x, training=training)
            x = layer(x, mask=mask, training=training)
        return x

    # -- torch: fused LSTM over packed sequences ----------------------------------
    def _torch_fast(self, x, mask, training):
        import torch
        from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

        batch, steps = x.shape[0], x.shape[1]
        if mask is None:
            lengths = torch.full((batch,), steps, dtype=torch.int64)
        else:
            lengths = torch.as_tensor(mask).to(torch.int64).sum(1).cpu()
        lengths = lengths.clamp(min=1)  # an all-padding row reads one (padding) step instead of failing
        full = bool((lengths == steps).all())  # no padding: skip packing
        for i, layer in enumerate(self.layers_):
            if i > 0:
                x = self.dropout_layer(x, training=training)
            params = []
            for cell in (layer.forward_layer.cell, layer.backward_layer.cell):
                kernel = torch.as_tensor(cell.kernel.value)
                recurrent = torch.as_tensor(cell.recurrent_kernel.value)
                bias = torch.as_tensor(cell.bias.value)
                params += [kernel.T, recurrent.T, bias, torch.zeros_like(bias)]
            h0 = torch.zeros(2, batch, self.cells, dtype=x.dtype, device=x.device)
            if full:
                x, _, _ = torch._VF.lstm(x, (h0, h0), params, True, 1, 0.0, bool(training), True, True)
                continue
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, _, _ = torch._VF.lstm(packed.data, packed.batch_sizes, (h0, h0), params, True, 1, 0.0,
                                       bool(training), True)
            x, _ = pad_packed_sequence(PackedSequence(out, packed.batch_sizes, packed.sorted_indices,
                                                      packed.unsorted_indices),
                                       batch_first=True, total_length=steps)
        return x

    def call(self, x, mask=None, training=None):
        use_fast = self.fast_path and keras.backend.backend() == "torch"
        seq = self._torch_fast(x, mask, training) if use_fast else self._generic(x, mask, training)
        if mask is None:
            mask = ops.ones(ops.shape(seq)[:2], dtype="bool")
        m = ops.cast(mask, seq.dtype)[..., None]
        if self.pooling == "max":
            pooled = ops.max(seq * m + (1.0 - m) * -1e9, axis=1)
        elif self.pooling == "mean":
            pooled = ops.sum(seq * m, axis=1) / ops.maximum(ops.sum(m, axis=1), 1.0)
        else:  # last: forward state at the last real token, backward state at the first token
            last = ops.maximum(ops.sum(ops.cast(mask, "int32"), axis=1) - 1, 0)
            idx = ops.expand_dims(ops.expand_dims(last, 1), 2)
            fwd = ops.take_along_axis(seq[..., : self.cells], idx, axis=1)[:, 0]
            pooled = ops.concatenate([fwd, seq[:, 0, self.cells:]], axis=-1)
        return pooled

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape):
        return (input_shape[0], 2 * self.cells)

    def get_config(self):
        config = super().get_config()
        config.update({"n_layers": self.n_layers, "cells": self.cells, "dropout": self.dropout,
                       "pooling": self.pooling, "fast_path": self.fast_path})
        return config
