"""On a GPU (jax): do the gradients of the cuDNN LSTM path equal Keras' generic LSTM's, and does training behave alike?

    KERAS_BACKEND=jax python benchmarks/lstm_gpu_gradients.py

Measured on an H100 (2026-11-22; see README.md): outputs matched, gradients drifted (4e-2 in a 4-layer stack) and a
4-layer classifier trained worse, so the kit runs the cuDNN path for inference only (training=False).
"""

import time

import jax
import jax.numpy as jnp
import keras
import numpy as np

from kit.models import BiLSTMEncoder, build_lstm_classifier

# the kit trains with Keras' LSTM on jax; to measure the cuDNN path's training behaviour, force it here
generic_choice = BiLSTMEncoder.implementation


def force_cudnn(layer_or_none=None, training=False):
    return "jax-cudnn" if jax.default_backend() == "gpu" else "generic"


rng = np.random.default_rng(0)
x = rng.normal(size=(16, 30, 32)).astype("float32")
mask = np.arange(30)[None] < rng.integers(3, 31, 16)[:, None]
BiLSTMEncoder.implementation = lambda self, training=False: force_cudnn() if self.fast_path else "generic"
for n_layers in (1, 2, 4):
    f = BiLSTMEncoder(n_layers, 64, dropout=0.0, pooling="max")
    g = BiLSTMEncoder(n_layers, 64, dropout=0.0, pooling="max", fast_path=False)
    f(x), g(x)
    g.set_weights(f.get_weights())

    def loss(weights, layer):
        out, _ = layer.stateless_call(
            weights, [v.value for v in layer.non_trainable_variables], x, mask=mask, training=True
        )
        return jnp.sum(out * jnp.linspace(0.5, 1.5, out.size).reshape(out.shape))

    gf = jax.grad(loss)([v.value for v in f.trainable_variables], f)
    gg = jax.grad(loss)([v.value for v in g.trainable_variables], g)
    diff = max(float(jnp.abs(a - b).max()) for a, b in zip(gf, gg))
    scale = max(float(jnp.abs(b).max()) for b in gg)
    print(
        f"{n_layers} layers [{f.implementation()}]: max |grad fast - grad generic| {diff:.2e} "
        f"(largest grad {scale:.2e})",
        flush=True,
    )

# a learnable task: the label is whether token 7 occurs; right-padded sequences of 20-64 tokens
n, L = 2048, 64
ids = rng.integers(10, 1000, (n, L)).astype("int32")
y = rng.integers(0, 2, n)
pos = rng.integers(0, 20, n)
ids[np.arange(n), pos] = np.where(y == 1, 7, 8)
lengths = rng.integers(20, L + 1, n)
ids[np.arange(L)[None] >= lengths[:, None]] = 0
for fast in (True, False):
    for seed in (0, 1):
        keras.utils.set_random_seed(seed)
        m = build_lstm_classifier(1000, 2, n_layers=4, cells=256, embedding_dim=300)
        m.get_layer("encoder").fast_path = fast  # the patched choice above: True = cuDNN in training too
        m.compile(
            keras.optimizers.Adam(1e-3),
            keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
        t = time.time()
        h = m.fit(ids, y, batch_size=64, epochs=4, verbose=0)
        print(
            f"LSTM-4-256 fast_path={fast} seed {seed}: "
            f"accuracy per epoch {[round(a, 3) for a in h.history['accuracy']]} ({time.time() - t:.0f}s)",
            flush=True,
        )
        keras.backend.clear_session()
