"""LSTM-n-k: the BiLSTM encoder of *To Pretrain or Not to Pretrain*, and its classifier.

``BiLSTMEncoder(n_layers=n, cells=k)``: ``n`` masked bidirectional LSTM layers of ``k`` cells per direction, pooled over
time (``"max"``, ``"mean"``, ``"last"``) or the whole sequence for a tagger (``pooling=None``). On torch, and on jax
with a GPU for inference, fused kernels run the same weights (:meth:`BiLSTMEncoder.implementation`).

>>> import numpy as np
>>> enc = BiLSTMEncoder(n_layers=2, cells=8, pooling="max")
>>> tuple(enc(np.zeros((3, 5, 4), "float32")).shape)
(3, 16)
>>> tuple(BiLSTMEncoder(n_layers=1, cells=8, pooling=None)(np.zeros((3, 5, 4), "float32")).shape)
(3, 5, 16)
"""

from __future__ import annotations

import os

import keras
import ml_dtypes  # numpy's finfo, bfloat16 included (a Keras dependency)
from keras import ops

POOLINGS = ("max", "mean", "last", None)


def masked_mean(x, mask, axis: int = 1):
    """Mean over ``axis`` of ``x`` ``(batch, steps, dim)`` where ``mask`` ``(batch, steps)`` is true (0 if none).

    Example:
        >>> import numpy as np
        >>> x = np.array([[[1.0], [3.0], [9.0]]], "float32")
        >>> float(keras.ops.convert_to_numpy(masked_mean(x, np.array([[1, 1, 0]])))[0, 0])
        2.0
    """
    x = keras.ops.convert_to_tensor(x)
    m = keras.ops.cast(mask, x.dtype)[..., None]
    return keras.ops.sum(x * m, axis=axis) / keras.ops.maximum(
        keras.ops.sum(m, axis=axis), keras.ops.cast(1.0, x.dtype)
    )


def masked_max(x, mask, axis: int = 1):
    """Max over ``axis`` of ``x`` ``(batch, steps, dim)`` where ``mask`` ``(batch, steps)`` is true (0 if none).

    Uses ``ops.where`` with the lowest value of ``x``'s dtype, so it cannot overflow in float16 the way
    ``x * m + (1 - m) * -1e9`` does.

    Example:
        >>> import numpy as np
        >>> x = np.array([[[1.0], [5.0], [9.0]]], "float16")
        >>> m = np.array([[True, True, False]])
        >>> float(keras.ops.convert_to_numpy(masked_max(x, m))[0, 0])
        5.0
    """
    m = ops.expand_dims(ops.cast(mask, "bool"), -1)
    lowest = float(ml_dtypes.finfo(keras.backend.standardize_dtype(x.dtype)).min)
    pooled = ops.max(ops.where(m, x, ops.cast(lowest, x.dtype)), axis=axis)
    return ops.where(ops.any(m, axis=axis), pooled, ops.zeros_like(pooled))


@keras.saving.register_keras_serializable(package="kit")
class BiLSTMEncoder(keras.layers.Layer):
    """``n_layers`` stacked bidirectional LSTMs of ``cells`` units each way, masked, pooled (or not).

    The paper's LSTM-n-k (``n_layers`` = n, ``cells`` = k). Output ``(batch, 2 * cells)``, or
    ``(batch, steps, 2 * cells)`` with ``pooling=None`` (zeros at padding, the mask passed on); ``"last"`` pools the
    final forward and backward states. ``dropout`` acts between the layers (not after the last); ``fast_path``: see
    :meth:`implementation`. ``n_layers`` or ``cells`` below 1, or an unknown ``pooling``, is a ValueError.

    Example:
        >>> import numpy as np
        >>> enc = BiLSTMEncoder(n_layers=1, cells=4, pooling="last")
        >>> mask = np.array([[True, True, True, False, False]] * 2)
        >>> tuple(enc(np.zeros((2, 5, 3), "float32"), mask=mask).shape)
        (2, 8)
    """

    def __init__(
        self,
        n_layers: int = 2,
        cells: int = 256,
        dropout: float = 0.1,
        pooling: str | None = "max",
        fast_path: bool = True,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if n_layers < 1 or cells < 1:
            raise ValueError(f"LSTM-n-k needs n_layers >= 1 and cells >= 1, got n_layers={n_layers}, cells={cells}.")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        self.n_layers, self.cells, self.dropout, self.pooling = n_layers, cells, dropout, pooling
        self.fast_path = fast_path
        self.supports_masking = True
        self.layers_ = [
            keras.layers.Bidirectional(
                keras.layers.LSTM(cells, return_sequences=True, return_state=False, dtype=self.dtype_policy),
                name=f"bilstm_{i}",
                dtype=self.dtype_policy,
            )
            for i in range(n_layers)
        ]
        self.dropout_layer = keras.layers.Dropout(dropout, dtype=self.dtype_policy)

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
    def _torch_params(self, layer, dtype):
        """The fused kernel's weight list for one bidirectional layer: contiguous, in the input's dtype."""
        import torch

        params = []
        for cell in (layer.forward_layer.cell, layer.backward_layer.cell):
            kernel = torch.as_tensor(cell.kernel.value).to(dtype)
            recurrent = torch.as_tensor(cell.recurrent_kernel.value).to(dtype)
            bias = torch.as_tensor(cell.bias.value).to(dtype)
            params += [kernel.T.contiguous(), recurrent.T.contiguous(), bias, torch.zeros_like(bias)]
        return params

    def _torch_fast(self, x, mask, training):
        import torch
        from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

        batch, steps = x.shape[0], x.shape[1]
        restore = None
        if mask is None:
            lengths = torch.full((batch,), steps, dtype=torch.int64)
        else:
            m = torch.as_tensor(mask).to(torch.bool)
            lengths = m.sum(1)
            right_aligned = torch.arange(steps, device=m.device)[None, :] < lengths[:, None]
            if not bool((m == right_aligned).all()):  # left padding or holes: real tokens to the front
                order = torch.argsort((~m).to(torch.int8), dim=1, stable=True)
                x = torch.gather(x, 1, order[..., None].expand(-1, -1, x.shape[-1]))
                restore = torch.argsort(order, dim=1)
            lengths = lengths.cpu()
        lengths = lengths.clamp(min=1)  # an all-padding row reads one (padding) step instead of failing
        full = bool((lengths == steps).all())  # no padding: skip packing
        for i, layer in enumerate(self.layers_):
            if i > 0:
                x = self.dropout_layer(x, training=training)
            params = self._torch_params(layer, x.dtype)
            h0 = torch.zeros(2, batch, self.cells, dtype=x.dtype, device=x.device)
            if full:
                x, _, _ = torch._VF.lstm(x, (h0, h0), params, True, 1, 0.0, bool(training), True, True)
                continue
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, _, _ = torch._VF.lstm(
                packed.data, packed.batch_sizes, (h0, h0), params, True, 1, 0.0, bool(training), True
            )
            x, _ = pad_packed_sequence(
                PackedSequence(out, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices),
                batch_first=True,
                total_length=steps,
            )
        if restore is not None:
            x = torch.gather(x, 1, restore[..., None].expand(-1, -1, x.shape[-1]))
        return x

    # -- jax on a GPU: cuDNN through jax.experimental.rnn --------------------------
    def _jax_params(self, layer):
        """One bidirectional layer's weights as cuDNN's flat vector: [W_ih, W_hh] per direction, then biases."""
        import jax.numpy as jnp

        weights, biases = [], []
        for cell in (layer.forward_layer.cell, layer.backward_layer.cell):
            weights += [
                jnp.transpose(cell.kernel.value).reshape(-1),
                jnp.transpose(cell.recurrent_kernel.value).reshape(-1),
            ]
            biases += [cell.bias.value, jnp.zeros_like(cell.bias.value)]
        return jnp.concatenate(weights + biases).astype("float32")

    def _jax_fast(self, x, mask, training, reference: bool = False):
        import jax.numpy as jnp
        from jax.experimental import rnn

        dtype = x.dtype
        x = x.astype("float32")  # jax's cuDNN LSTM runs in float32 (it has no bfloat16 path)
        batch, steps = x.shape[0], x.shape[1]
        restore = None
        if mask is None:
            lengths = jnp.full((batch,), steps, dtype="int32")
        else:
            m = mask.astype(bool)
            lengths = m.sum(axis=1).astype("int32")
            order = jnp.argsort(~m, axis=1, stable=True)  # real tokens first, in order (a no-op for right padding)
            x = jnp.take_along_axis(x, order[..., None], axis=1)
            restore = jnp.argsort(order, axis=1)
        lengths = jnp.maximum(lengths, 1)
        for i, layer in enumerate(self.layers_):
            if i > 0:
                x = self.dropout_layer(x, training=training).astype("float32")
            w = self._jax_params(layer)
            h0 = jnp.zeros((2, batch, self.cells), dtype="float32")
            size = x.shape[-1]
            if reference:  # jax's pure-jax reference of the same call (CPU tests of the weight layout)
                unpacked = rnn.unpack_lstm_weights(w, size, self.cells, 1, True)
                x, _, _ = rnn.lstm_ref(x, h0, h0, *unpacked, lengths, size, self.cells, 1, 0.0, True)
            else:
                x, _, _ = rnn.lstm(
                    x,
                    h0,
                    h0,
                    w,
                    lengths,
                    input_size=size,
                    hidden_size=self.cells,
                    num_layers=1,
                    dropout=0.0,
                    bidirectional=True,
                )
        if restore is not None:
            x = jnp.take_along_axis(x, restore[..., None], axis=1)
        return x.astype(dtype)

    def implementation(self, training: bool = False) -> str:
        """Which implementation runs on this backend and device: ``"torch"``, ``"jax-cudnn"`` or ``"generic"``.

        ``"torch"``: Keras runs an LSTM on torch as a Python loop on the CPU (its fused kernel is CUDA-only), so the
        same weights go to PyTorch's fused ``_VF.lstm`` over a packed sequence (what ``torch.nn.LSTM`` runs; cuDNN on a
        GPU). ``"jax-cudnn"`` (jax on a GPU, ``training`` False only): ``jax.experimental.rnn.lstm`` with the weights in
        cuDNN's layout. On an H100 its forward pass matched Keras' LSTM (2.5e-5) but its gradients did not (4e-2 in a
        4-layer stack) and a 4-layer classifier trained worse with it, so jax trains with Keras' own LSTM (a
        ``lax.scan``). Rows padded on the left (or with holes) are compacted for the fused call and put back, as Keras'
        masked LSTM skips masked steps. Both paths are tested equal to the generic one (jax's through its reference LSTM
        on a CPU, the cuDNN call by ``benchmarks/gpu.py`` on a GPU); ``fast_path=False``, or ``KIT_LSTM_FAST_PATH=0``
        for every layer, gives ``"generic"``.
        """
        backend = keras.backend.backend()
        if not self.fast_path or os.environ.get("KIT_LSTM_FAST_PATH", "1").strip() in ("0", "false", "False"):
            return "generic"
        if backend == "torch":
            return "torch"
        if backend == "jax":
            import jax

            if jax.default_backend() == "gpu" and not training:
                return "jax-cudnn"
        return "generic"

    def call(self, x, mask=None, training=None):
        path = self.implementation(bool(training))
        if path == "torch":
            seq = self._torch_fast(x, mask, training)
        elif path == "jax-cudnn":
            seq = self._jax_fast(x, mask, training)
        else:
            seq = self._generic(x, mask, training)
        if mask is None:
            mask = ops.ones(ops.shape(seq)[:2], dtype="bool")
        if self.pooling is None:
            return seq * ops.cast(mask, seq.dtype)[..., None]
        if self.pooling == "max":
            return masked_max(seq, mask)
        if self.pooling == "mean":
            m = ops.cast(mask, seq.dtype)[..., None]
            return ops.sum(seq * m, axis=1) / ops.maximum(ops.sum(m, axis=1), ops.cast(1.0, seq.dtype))
        # last: forward state at the last real token, backward state at the first real token
        steps = ops.arange(ops.shape(seq)[1], dtype="int32")[None, :]
        real = ops.cast(mask, "bool")
        last = ops.max(ops.where(real, steps, -1), axis=1)
        first = ops.min(ops.where(real, steps, ops.shape(seq)[1]), axis=1)
        last, first = ops.maximum(last, 0), ops.minimum(first, ops.shape(seq)[1] - 1)
        fwd = ops.take_along_axis(seq[..., : self.cells], last[:, None, None], axis=1)[:, 0]
        bwd = ops.take_along_axis(seq[..., self.cells :], first[:, None, None], axis=1)[:, 0]
        return ops.concatenate([fwd, bwd], axis=-1)

    def compute_mask(self, inputs, mask=None):
        return mask if self.pooling is None else None

    def compute_output_shape(self, input_shape):
        if self.pooling is None:
            return tuple(input_shape[:-1]) + (2 * self.cells,)
        return (input_shape[0], 2 * self.cells)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "n_layers": self.n_layers,
                "cells": self.cells,
                "dropout": self.dropout,
                "pooling": self.pooling,
                "fast_path": self.fast_path,
            }
        )
        return config
