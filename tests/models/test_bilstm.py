"""LSTM-n-k: layer contract, masking, the torch fast path, pretrained embeddings, parameter counts."""

import keras
import numpy as np
import pytest

from kit.models import (
    BiLSTMEncoder,
    PretrainedTokenEmbedding,
    TokenTable,
    build_lstm_classifier,
    count_params_without_embeddings,
)
from kit.testing import run_layer_test, run_precision_test


def _x(batch=3, steps=6, dim=5, seed=0):
    return np.random.default_rng(seed).normal(size=(batch, steps, dim)).astype("float32")


@pytest.mark.parametrize("pooling", ["max", "mean", "last"])
def test_bilstm_layer_contract(pooling):
    # 2 layers x 2 directions x (kernel, recurrent kernel, bias)
    run_layer_test(
        BiLSTMEncoder,
        {"n_layers": 2, "cells": 4, "dropout": 0.0, "pooling": pooling, "fast_path": True},
        _x(),
        expected_output_shape=(3, 8),
        expected_num_trainable_weights=12,
    )


@pytest.mark.parametrize("pooling", ["max", "mean", "last"])
def test_padding_is_ignored(pooling):
    enc = BiLSTMEncoder(n_layers=2, cells=4, dropout=0.0, pooling=pooling)
    x = _x(batch=1, steps=5)
    alone = keras.ops.convert_to_numpy(enc(x))
    padded = np.concatenate([x, np.full((1, 3, 5), 7.0, "float32")], axis=1)
    mask = np.array([[True] * 5 + [False] * 3])
    np.testing.assert_allclose(
        keras.ops.convert_to_numpy(enc(padded, mask=keras.ops.convert_to_tensor(mask))), alone, atol=1e-5
    )


MASKS = {  # right padding, left padding, holes, a full row, a one-token row
    "right": [[1] * 7, [1] * 4 + [0] * 3, [1] + [0] * 6, [1] * 6 + [0]],
    "left": [[1] * 7, [0] * 3 + [1] * 4, [0] * 6 + [1], [0] + [1] * 6],
    "holes": [[1, 0, 1, 1, 0, 1, 1], [0, 1, 1, 0, 1, 0, 0], [1] * 7, [0, 0, 1, 1, 1, 0, 1]],
}


def _fast_and_slow(pooling="max", **kw):
    fast = BiLSTMEncoder(n_layers=2, cells=6, dropout=0.0, pooling=pooling, fast_path=True, **kw)
    slow = BiLSTMEncoder(n_layers=2, cells=6, dropout=0.0, pooling=pooling, fast_path=False, **kw)
    x = _x(batch=4, steps=7)
    fast(x), slow(x)
    slow.set_weights(fast.get_weights())
    return fast, slow, x


@pytest.mark.parametrize("padding", sorted(MASKS))
@pytest.mark.parametrize("pooling", ["max", "mean", "last", None])
def test_torch_fast_path_equals_generic_path(padding, pooling):
    """Outputs AND gradients of the fused path equal Keras' generic masked LSTM, whatever side the padding is on."""
    if keras.backend.backend() != "torch":
        pytest.skip("the fast path exists on the torch backend only")
    import torch

    fast, slow, x = _fast_and_slow(pooling)
    mask = torch.tensor(np.array(MASKS[padding], bool))
    outs, grads = [], []
    for layer in (fast, slow):
        for w in layer.trainable_weights:
            w.value.grad = None
        out = layer(torch.tensor(x), mask=mask, training=True)
        (out * torch.linspace(0.5, 1.5, out.numel()).reshape(out.shape)).sum().backward()
        outs.append(out.detach().numpy())
        grads.append([w.value.grad.numpy().copy() for w in layer.trainable_weights])
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-5)
    for g_fast, g_slow, w in zip(grads[0], grads[1], fast.trainable_weights):
        np.testing.assert_allclose(g_fast, g_slow, atol=1e-5, err_msg=f"gradient of {w.path}")
    assert all(np.abs(g).sum() > 0 for g in grads[0])
    if padding == "right":  # no padding at all: the unpacked fused call
        np.testing.assert_allclose(keras.ops.convert_to_numpy(fast(x)), keras.ops.convert_to_numpy(slow(x)), atol=1e-5)


@pytest.mark.parametrize("padding", sorted(MASKS))
def test_jax_cudnn_weight_layout_equals_generic_path(padding):
    """The jax GPU path packs Keras' weights into cuDNN's flat layout; jax's reference LSTM on that layout
    must compute what Keras' generic masked LSTM computes (the cuDNN kernel itself runs in benchmarks/gpu.py)."""
    if keras.backend.backend() != "jax":
        pytest.skip("the jax cuDNN path exists on the jax backend only")
    import jax
    import jax.numpy as jnp

    fast, slow, x = _fast_and_slow(pooling=None)
    mask = jnp.asarray(np.array(MASKS[padding], bool))
    want = keras.ops.convert_to_numpy(slow(x, mask=mask))
    got = np.asarray(fast._jax_fast(jnp.asarray(x), mask, False, reference=True)) * np.asarray(mask)[..., None]
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert fast.implementation() == ("jax-cudnn" if jax.default_backend() == "gpu" else "generic")
    assert fast.implementation(training=True) == "generic"  # its gradients differed from Keras' on an H100


def test_fused_kernel_gets_contiguous_weights(monkeypatch):
    """cuDNN rejects non-contiguous weights (a bare kernel.T); CPU kernels do not, so check what is handed over."""
    if keras.backend.backend() != "torch":
        pytest.skip("the fast path exists on the torch backend only")
    import torch

    seen = []
    real = torch._VF.lstm

    def spy(*args):
        params = next(
            a for a in args if isinstance(a, (list, tuple)) and len(a) and torch.is_tensor(a[0]) and a[0].dim() == 2
        )
        seen.append(all(p.is_contiguous() for p in params))
        return real(*args)

    fast, _, x = _fast_and_slow()
    monkeypatch.setattr(torch._VF, "lstm", spy)
    mask = torch.tensor(np.array(MASKS["right"], bool))
    fast(x), fast(x, mask=mask)
    assert len(seen) == 4 and all(seen)  # 2 calls x 2 layers, packed and unpacked


def test_max_pooling_does_not_overflow_in_float16():
    """(1 - m) * -1e9 is -inf in float16, and inf * 0 is NaN; the layer must stay finite under mixed_float16."""
    enc = BiLSTMEncoder(n_layers=1, cells=4, dropout=0.0, pooling="max", dtype="mixed_float16")
    x = (_x(batch=2, steps=5) * 100).astype("float32")
    mask = keras.ops.convert_to_tensor(np.array([[1, 1, 0, 0, 0], [0, 0, 0, 0, 0]], bool))
    out = keras.ops.convert_to_numpy(keras.ops.cast(enc(x, mask=mask), "float32"))
    assert np.isfinite(out).all() and (out[1] == 0).all()  # a row with no real token pools to 0


def test_sequence_output_for_taggers():
    enc = run_layer_test(
        BiLSTMEncoder,
        {"n_layers": 1, "cells": 4, "dropout": 0.0, "pooling": None},
        _x(),
        expected_output_shape=(3, 6, 8),
        expected_num_trainable_weights=6,
    )
    mask = keras.ops.convert_to_tensor(np.array([[1] * 6, [1] * 3 + [0] * 3, [1] * 5 + [0]], bool))
    out = keras.ops.convert_to_numpy(enc(_x(), mask=mask))
    assert (out[1, 3:] == 0).all() and (out[1, :3] != 0).any()
    assert (
        keras.ops.convert_to_numpy(enc.compute_mask(_x(), mask)).tolist() == keras.ops.convert_to_numpy(mask).tolist()
    )


@pytest.mark.parametrize("pooling", ["max", "last", None])
def test_bilstm_precision(pooling):
    mask = np.array([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [1] * 6], bool)
    run_precision_test(BiLSTMEncoder, {"n_layers": 2, "cells": 4, "pooling": pooling}, _x(), call_kwargs={"mask": mask})


def test_pretrained_token_embedding_precision():
    run_precision_test(
        PretrainedTokenEmbedding,
        {"vocabulary_size": 10, "table_dim": 6, "output_dim": 4},
        np.array([[3, 5, 0, 0], [1, 2, 3, 4]], "int32"),
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_layers >= 1"):
        BiLSTMEncoder(n_layers=0)
    with pytest.raises(ValueError, match="pooling must be one of"):
        BiLSTMEncoder(pooling="attention")


def test_pretrained_token_embedding_contract():
    ids = np.array([[3, 5, 0, 0], [1, 2, 3, 4]], "int32")
    layer = run_layer_test(
        PretrainedTokenEmbedding,
        {"vocabulary_size": 10, "table_dim": 6, "output_dim": 4},
        ids,
        expected_output_shape=(2, 4, 4),
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=1,
    )
    mask = keras.ops.convert_to_numpy(layer.compute_mask(ids))
    assert mask.tolist() == [[True, True, False, False], [True, True, True, True]]


def test_a_robertas_padding_id_is_masked_and_survives_save_load(tmp_path):
    """RoBERTa pads with id 1 (id 0 is <s>): the LSTM with its table must ignore id-1 padding, whatever its length."""
    table = np.random.default_rng(0).normal(size=(20, 6)).astype("float32")
    model = build_lstm_classifier(
        20, num_classes=2, n_layers=1, cells=4, embedding_dim=5, pooling="mean", pretrained=TokenTable(table, 1)
    )
    short = np.array([[0, 7, 9, 2]], "int32")  # <s> a b </s>
    padded = np.array([[0, 7, 9, 2, 1, 1, 1]], "int32")  # ... <pad> <pad> <pad>
    out = keras.ops.convert_to_numpy(model(short))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(model(padded)), out, atol=1e-5)
    path = tmp_path / "lstm_roberta_table.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.get_layer("embedding").padding_id == 1
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(padded)), out, atol=1e-5)
    bert_padded = build_lstm_classifier(
        20, num_classes=2, n_layers=1, cells=4, embedding_dim=5, pooling="mean", pretrained=TokenTable(table)
    )
    bert_padded.set_weights(model.get_weights())  # padding 0: the id-1 pads are read as tokens
    assert np.abs(keras.ops.convert_to_numpy(bert_padded(padded)) - out).max() > 1e-4
    layer = PretrainedTokenEmbedding(20, 6, 5, padding_id=1)  # called on its own, eagerly
    out_mask = getattr(layer(padded), "_keras_mask", None)  # the mask Keras attaches to the output
    assert out_mask is not None  # (it does on jax, tensorflow and torch)
    assert keras.ops.convert_to_numpy(out_mask).tolist() == [[True, True, True, True, False, False, False]]
    assert model.name == "LSTM-1-4_plus_pretrained"
    with pytest.raises(TypeError, match="wrap the array"):
        build_lstm_classifier(20, num_classes=2, n_layers=1, cells=4, embedding_dim=5, pretrained=table)


def test_pretrained_table_is_frozen_and_used(tmp_path):
    table = np.random.default_rng(0).normal(size=(20, 6)).astype("float32")
    model = build_lstm_classifier(20, num_classes=2, n_layers=1, cells=4, embedding_dim=5, pretrained=TokenTable(table))
    emb = model.get_layer("embedding")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(emb.table.embeddings), table)
    x = np.array([[1, 2, 3, 0], [4, 5, 0, 0]] * 4, "int32")
    y = np.array([0, 1] * 4)
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2), loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    )
    model.fit(x, y, epochs=2, verbose=0)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(emb.table.embeddings), table)  # frozen
    path = tmp_path / "lstm.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)), atol=1e-5)


def test_lstm_classifier_learns_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.integers(1, 30, size=(64, 8)).astype("int32")
    x[:, 6:] = 0
    y = (x[:, 0] > 15).astype("int32")  # the label is in the first token
    keras.utils.set_random_seed(0)
    model = build_lstm_classifier(30, num_classes=2, n_layers=1, cells=16, embedding_dim=16, dropout=0.0)
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(x, y, epochs=30, batch_size=16, verbose=0)
    assert model.evaluate(x, y, verbose=0)[1] > 0.9
    path = tmp_path / "lstm.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)), atol=1e-5)


def test_params_without_embeddings_matches_formula():
    model = build_lstm_classifier(5000, num_classes=2, n_layers=2, cells=256, embedding_dim=300)
    lstm = lambda d, k: 4 * (k * (d + k) + k)  # noqa: E731  one direction
    expected = 2 * lstm(300, 256) + 2 * lstm(512, 256) + (512 * 2 + 2)
    assert count_params_without_embeddings(model) == expected
    assert model.count_params() == expected + 5000 * 300
