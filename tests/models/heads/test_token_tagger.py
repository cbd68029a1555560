"""The BiLSTM token tagger head: layer contract, padding, training with the masked loss, save/load."""

import keras
import numpy as np
import pytest

from kit.metrics.masked_tokens import (
    MaskedAccuracy,
    MaskedSparseCategoricalCrossentropy,
)
from kit.models.heads import build_stacked_model
from kit.models.heads.token_tagger import TokenTaggerHead
from kit.testing import run_layer_test, run_precision_test
from kit.text.alignment import IGNORE
from tests.helpers import tagging_preprocessor, token_states


def _states(batch=3, steps=6, dim=8, seed=0):
    return token_states(batch, steps, dim, seed, ends=(4, 2))


def _pre(length=12):
    return tagging_preprocessor(length)


@pytest.mark.parametrize("kwargs,n_weights", [({"n_layers": 1, "cells": 4}, 8), ({"n_layers": 0, "hidden_dim": 8}, 4)])
def test_tagger_head_contract_and_precision(kwargs, n_weights):
    init = {"num_tags": 5, "dropout": 0.1, **kwargs}
    run_layer_test(
        TokenTaggerHead, init, _states(), expected_output_shape=(3, 6, 5), expected_num_trainable_weights=n_weights
    )
    run_precision_test(TokenTaggerHead, init, _states())


def test_tagger_head_ignores_padding_states():
    head = TokenTaggerHead(num_tags=4, n_layers=1, cells=4, dropout=0.0)
    s = _states()
    ref = keras.ops.convert_to_numpy(head(s))
    changed = dict(
        s, sequence_output=np.where(s["padding_mask"][..., None] == 1, s["sequence_output"], 9.0).astype("float32")
    )
    out = keras.ops.convert_to_numpy(head(changed))
    real = s["padding_mask"] == 1
    np.testing.assert_allclose(out[real], ref[real], atol=1e-5)
    with pytest.raises(ValueError, match="num_tags must be >= 2"):
        TokenTaggerHead(num_tags=1)


def test_tagger_trains_with_masked_loss_and_saves(tiny_bert, tmp_path):
    from kit.train.freeze import FreezeRecipe, stack_and_finetune

    keras.utils.set_random_seed(0)
    model = build_stacked_model(tiny_bert, TokenTaggerHead(num_tags=3, n_layers=1, cells=4, name="head"))
    assert model.get_layer(tiny_bert.name) is tiny_bert and model.get_layer("head").num_tags == 3
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 64, (16, 8)).astype("int32")
    mask = np.ones_like(ids)
    mask[:, 6:] = 0
    ids[:, 0], ids = 2, ids * mask
    x = {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": mask}
    y = np.where(mask == 1, ids % 3, IGNORE).astype("int32")
    y[:, 0] = IGNORE
    r = stack_and_finetune(
        model,
        tiny_bert,
        (x, y),
        (x, y),
        FreezeRecipe(
            phase1_epochs=1,
            phase2_epochs=1,
            batch_size=8,
            loss=MaskedSparseCategoricalCrossentropy(),
            metrics=[MaskedAccuracy()],
            divergence=None,
        ),
        strategy="stack_and_finetune",
    )
    assert r.monitor == "masked_accuracy" and np.isfinite(r.phases[-1].history["loss"]).all()
    path = tmp_path / "tagger.keras"
    model.save(path)
    loaded = keras.saving.load_model(path, compile=False)  # its optimizer is the last, unbuilt one: nothing to load
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)), atol=1e-5)
