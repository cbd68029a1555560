"""Notebook 03's classification heads: DenseNet CNN, highway BiLSTM; prediction averaging."""

import keras
import numpy as np
import pytest

from kit.models.heads.dense_cnn import DenseBlocks, DenseCNNHead
from kit.models.heads.highway import HighwayBiLSTMHead
from kit.testing import run_layer_test, run_precision_test
from kit.train.ensemble import average_predictions
from tests.helpers import token_states


def _states(batch=3, steps=7, dim=8, seed=0):
    return token_states(batch, steps, dim, seed, ends=(5, 4))


def _out(layer, s):
    return keras.ops.convert_to_numpy(layer(s))


def _scramble(s, where):
    """The same input with the states at positions ``where`` (bool (B, T)) replaced by large noise."""
    noise = np.random.default_rng(9).normal(scale=5.0, size=s["sequence_output"].shape).astype("float32")
    return dict(s, sequence_output=np.where(where[..., None], noise, s["sequence_output"]).astype("float32"))


HEADS = [
    (
        DenseCNNHead,
        {
            "num_classes": 3,
            "filters": 4,
            "dense": DenseBlocks(blocks=2, convs_per_block=2, growth=2, kernel_size=3),
            "dropout": 0.1,
            "use_cls": True,
        },
        2 + 2 * (2 * 2 + 2) + 2,
    ),
    (HighwayBiLSTMHead, {"num_classes": 3, "n_layers": 1, "cells": 3, "pooling": "max", "dropout": 0.1}, 6 + 3 + 2),
]


@pytest.mark.parametrize("cls,kwargs,n_weights", HEADS, ids=[h[0].__name__ for h in HEADS])
def test_head_contract_and_precision(cls, kwargs, n_weights):
    s = _states()
    run_layer_test(cls, kwargs, s, expected_output_shape=(3, 3), expected_num_trainable_weights=n_weights)
    run_precision_test(cls, kwargs, s)


@pytest.mark.parametrize("cls,kwargs,n_weights", HEADS, ids=[h[0].__name__ for h in HEADS])
def test_padding_does_not_leak(cls, kwargs, n_weights):
    head = cls(**{**kwargs, "dropout": 0.0})
    s = _states()
    ref = _out(head, s)
    np.testing.assert_allclose(_out(head, _scramble(s, s["padding_mask"] == 0)), ref, atol=1e-5)
    real = _scramble(s, s["padding_mask"] == 1)  # and the real tokens do matter
    assert np.abs(_out(head, real) - ref).max() > 1e-4


def test_deeper_highway_and_cnn_without_cls():
    s = _states()
    deep = HighwayBiLSTMHead(num_classes=1, n_layers=2, cells=2, pooling="mean", dropout=0.0)
    ref = _out(deep, s)
    assert ref.shape == (3, 1) and len(deep.trainable_weights) == 2 * (6 + 3) + 2
    np.testing.assert_allclose(_out(deep, _scramble(s, s["padding_mask"] == 0)), ref, atol=1e-5)
    head = DenseCNNHead(num_classes=2, filters=4, dense=DenseBlocks(1, 1, growth=2), use_cls=False, dropout=0.0)
    ref = _out(head, s)
    cls_changed = _scramble(s, np.arange(7)[None, :].repeat(3, 0) == 0)
    assert np.abs(_out(head, cls_changed) - ref).max() > 1e-5  # position 0 is a real token for the CNN
    with pytest.raises(ValueError, match="pooling must be one of"):
        HighwayBiLSTMHead(num_classes=2, pooling="last")
    with pytest.raises(ValueError, match="must all be >= 1"):
        DenseCNNHead(num_classes=2, dense={"blocks": 0})
    with pytest.raises(ValueError, match="filters must be >= 1"):
        DenseCNNHead(num_classes=2, filters=0)
    with pytest.raises(TypeError, match="dense must be a DenseBlocks"):
        DenseCNNHead(num_classes=2, dense=(4, 4))


def test_a_grouped_head_saves_its_group_as_a_dict_and_reads_the_flat_sizes():
    """keras-hub's convention: every __init__ argument is a config entry (the group as a plain dict); a paper's flat
    sizes table (and a config saved before the grouping) gathers into the same head."""
    head = DenseCNNHead.from_sizes(3, {"filters": 4, "growth": 2, "blocks": 1, "convs_per_block": 2}, dropout=0.0)
    config = head.get_config()
    assert (
        config["dense"] == {"blocks": 1, "convs_per_block": 2, "growth": 2, "kernel_size": 3} and config["filters"] == 4
    )
    assert DenseCNNHead.from_config(config).dense == head.dense
    flat = {k: v for k, v in config.items() if k != "dense"} | {"growth": 2, "blocks": 1, "convs_per_block": 2}
    assert DenseCNNHead.from_config(flat).get_config() == config


def test_average_predictions():
    a = np.array([[4.0, 0.0], [0.0, 1.0]])
    b = np.array([[0.0, 4.0], [0.0, 3.0]])
    probs = average_predictions([a, b])
    np.testing.assert_allclose(probs.sum(-1), 1.0)
    assert probs[0, 0] == pytest.approx(0.5) and probs.argmax(-1).tolist()[1] == 1
    np.testing.assert_allclose(average_predictions([a, b], space="logits"), (a + b) / 2)
    np.testing.assert_allclose(average_predictions([a[:, :1], b[:, :1]], weights=[3, 1]), [[3.0], [0.0]])
    with pytest.raises(ValueError, match="same shape"):
        average_predictions([a, b[:1]])
    with pytest.raises(ValueError, match="non-negative"):
        average_predictions([a, b], weights=[1, -1])
