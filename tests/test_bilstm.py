"""LSTM-n-k: layer contract, masking, the torch fast path, pretrained embeddings, parameter counts."""

import keras
import numpy as np
import pytest

from kit.models import (BiLSTMEncoder, PretrainedTokenEmbedding, build_lstm_classifier,
                        count_params_without_embeddings)
from kit.testing import run_layer_test


def _x(batch=3, steps=6, dim=5, seed=0):
    return np.random.default_rng(seed).normal(size=(batch, steps, dim)).astype("float32")


@pytest.mark.parametrize("pooling", ["max", "mean", "last"])
def test_bilstm_layer_contract(pooling):
    # 2 layers x 2 directions x (kernel, recurrent kernel, bias)
    run_layer_test(BiLSTMEncoder, {"n_layers": 2, "cells": 4, "dropout": 0.0, "pooling": pooling,
                                   "fast_path": True},
                   _x(), expected_output_shape=(3, 8), expected_num_trainable_weights=12)


@pytest.mark.parametrize("pooling", ["max", "mean", "last"])
def test_padding_is_ignored(pooling):
    enc = BiLSTMEncoder(n_layers=2, cells=4, dropout=0.0, pooling=pooling)
    x = _x(batch=1, steps=5)
    alone = keras.ops.convert_to_numpy(enc(x))
    padded = np.concatenate([x, np.full((1, 3, 5), 7.0, "float32")], axis=1)
    mask = np.array([[True] * 5 + [False] * 3])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(enc(padded, mask=keras.ops.convert_to_tensor(mask))),
                               alone, atol=1e-5)


def test_torch_fast_path_equals_generic_path():
    if keras.backend.backend() != "torch":
        pytest.skip("the fast path exists on the torch backend only")
    fast = BiLSTMEncoder(n_layers=2, cells=6, dropout=0.0, pooling="max", fast_path=True)
    slow = BiLSTMEncoder(n_layers=2, cells=6, dropout=0.0, pooling="max", fast_path=False)
    x = _x(batch=4, steps=7)
    mask = keras.ops.convert_to_tensor(np.array([[1] * 7, [1] * 4 + [0] * 3, [1] * 1 + [0] * 6, [1] * 6 + [0]], bool))
    fast(x), slow(x)
    slow.set_weights(fast.get_weights())
    np.testing.assert_allclose(keras.ops.convert_to_numpy(fast(x, mask=mask)),
                               keras.ops.convert_to_numpy(slow(x, mask=mask)), atol=1e-5)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(fast(x)), keras.ops.convert_to_numpy(slow(x)),
                               atol=1e-5)  # no padding: the unpacked fused call
    # gradients flow through the fast path to every weight
    import torch

    xt = torch.tensor(x)
    out = fast(xt, mask=mask, training=True)
    out.sum().backward()
    assert all(w.value.grad is not None and float(w.value.grad.abs().sum()) > 0 for w in fast.trainable_weights)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_layers >= 1"):
        BiLSTMEncoder(n_layers=0)
    with pytest.raises(ValueError, match="pooling must be one of"):
        BiLSTMEncoder(pooling="attention")


def test_pretrained_token_embedding_contract():
    ids = np.array([[3, 5, 0, 0], [1, 2, 3, 4]], "int32")
    layer = run_layer_test(PretrainedTokenEmbedding, {"vocabulary_size": 10, "table_dim": 6, "output_dim": 4},
                           ids, expected_output_shape=(2, 4, 4), expected_num_trainable_weights=2,
                           expected_num_non_trainable_weights=1)
    mask = keras.ops.convert_to_numpy(layer.compute_mask(ids))
    assert mask.tolist() == [[True, True, False, False], [True, True, True, True]]


def test_pretrained_table_is_frozen_and_used(tmp_path):
    table = np.random.default_rng(0).normal(size=(20, 6)).astype("float32")
    model = build_lstm_classifier(20, num_classes=2, n_layers=1, cells=4, embedding_dim=5, pretrained_table=table)
    emb = model.get_layer("embedding")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(emb.table.embeddings), table)
    x = np.array([[1, 2, 3, 0], [4, 5, 0, 0]] * 4, "int32")
    y = np.array([0, 1] * 4)
    model.compile(optimizer=keras.optimizers.Adam(1e-2),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
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
    model.compile(optimizer=keras.optimizers.Adam(1e-2),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
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
