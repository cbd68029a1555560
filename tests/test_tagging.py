"""Token tagging: the BiLSTM tagger head, word → WordPiece alignment, the masked loss and accuracy."""

import keras
import keras_hub
import numpy as np
import pytest

from kit.models.tagging import (IGNORE, MaskedAccuracy, MaskedSparseCategoricalCrossentropy, TokenTaggerHead,
                                align_labels, build_tagger, word_predictions)
from kit.testing import run_layer_test, run_precision_test
from kit.text.wordpiece import BertPreprocessor
from tests.conftest import token_states

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", "sat", "on", "mat", "##tress",
         "new", "york", ",", "."]


def _states(batch=3, steps=6, dim=8, seed=0):
    return token_states(batch, steps, dim, seed, ends=(4, 2))


def _pre(length=12):
    return BertPreprocessor(keras_hub.models.BertTokenizer(vocabulary=VOCAB), sequence_length=length)


@pytest.mark.parametrize("kwargs,n_weights", [({"n_layers": 1, "cells": 4}, 8),
                                              ({"n_layers": 0, "hidden_dim": 8}, 4)])
def test_tagger_head_contract_and_precision(kwargs, n_weights):
    init = {"num_tags": 5, "dropout": 0.1, **kwargs}
    run_layer_test(TokenTaggerHead, init, _states(), expected_output_shape=(3, 6, 5),
                   expected_num_trainable_weights=n_weights)
    run_precision_test(TokenTaggerHead, init, _states())


def test_tagger_head_ignores_padding_states():
    head = TokenTaggerHead(num_tags=4, n_layers=1, cells=4, dropout=0.0)
    s = _states()
    ref = keras.ops.convert_to_numpy(head(s))
    changed = dict(s, sequence_output=np.where(s["padding_mask"][..., None] == 1, s["sequence_output"], 9.0)
                   .astype("float32"))
    out = keras.ops.convert_to_numpy(head(changed))
    real = s["padding_mask"] == 1
    np.testing.assert_allclose(out[real], ref[real], atol=1e-5)
    with pytest.raises(ValueError, match="num_tags must be >= 2"):
        TokenTaggerHead(num_tags=1)


def test_masked_loss_and_accuracy_match_numpy():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 4, 3)).astype("float32")
    y = np.array([[IGNORE, 2, IGNORE, 0], [1, IGNORE, IGNORE, IGNORE]])
    keep = y != IGNORE
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    want = -np.mean([logp[i, t, y[i, t]] for i, t in zip(*np.nonzero(keep))])
    got = float(keras.ops.convert_to_numpy(MaskedSparseCategoricalCrossentropy()(y, logits)))
    assert got == pytest.approx(want, rel=1e-5)
    acc = MaskedAccuracy()
    acc.update_state(y, logits)
    want_acc = np.mean(logits.argmax(-1)[keep] == y[keep])
    assert float(keras.ops.convert_to_numpy(acc.result())) == pytest.approx(want_acc)
    cfg = MaskedSparseCategoricalCrossentropy(ignore_index=-1).get_config()
    assert cfg["ignore_index"] == -1


def test_align_labels_first_subtoken():
    a = align_labels([["the", "cats", "sat", "on", "mattress"], ["new", "york"]], [[0, 1, 2, 0, 3], [4, 5]], _pre())
    # [CLS] the cat ##s sat on mat ##ress [SEP]
    assert a.x["token_ids"][0].tolist() == [2, 5, 6, 7, 8, 9, 10, 11, 3, 0, 0, 0]
    assert a.y[0].tolist() == [IGNORE, 0, 1, IGNORE, 2, 0, 3, IGNORE, IGNORE, IGNORE, IGNORE, IGNORE]
    assert a.word_ids[0].tolist() == [-1, 0, 1, 1, 2, 3, 4, 4, -1, -1, -1, -1]
    assert a.x["padding_mask"][1].tolist() == [1, 1, 1, 1] + [0] * 8
    assert a.truncated == 0 and a.n_words == [5, 2]
    # predictions map back to one tag per word
    onehot = np.eye(6)[np.where(a.y == IGNORE, 0, a.y)]
    assert word_predictions(onehot, a) == [[0, 1, 2, 0, 3], [4, 5]]
    every = align_labels([["cats"]], [[3]], _pre(), label_all_subtokens=True)
    assert every.y[0, :4].tolist() == [IGNORE, 3, 3, IGNORE] and every.first[0, :4].tolist() == [0, 1, 0, 0]


def test_align_labels_truncation_cache_and_errors():
    pre = _pre(length=6)
    a = align_labels([["the", "cats", "sat", "on"]], [[1, 2, 3, 4]], pre)
    # room for 4 pieces: the cat ##s sat; "on" is cut
    assert a.x["token_ids"][0].tolist() == [2, 5, 6, 7, 8, 3]
    assert a.truncated == 1 and word_predictions(a.y, a, fill=-7) == [[1, 2, 3, -7]]

    calls = []

    class Spy(BertPreprocessor):
        def tokenize(self, texts, max_tokens=None):
            calls.append(list(texts))
            return super().tokenize(texts, max_tokens)

    spy = Spy(keras_hub.models.BertTokenizer(vocabulary=VOCAB), sequence_length=12)
    align_labels([["the", "cat", "the"], ["cat", "sat"]], None, spy)
    align_labels([["sat", "the", "mat"]], None, spy)
    assert calls == [["the", "cat", "sat"], ["mat"]]  # each distinct word tokenized once, then cached
    with pytest.raises(ValueError, match="sentence 0: 2 words but 1 labels"):
        align_labels([["the", "cat"]], [[1]], pre)
    with pytest.raises(TypeError, match="list of words"):
        align_labels(["the cat"], None, pre)
    with pytest.raises(ValueError, match="1 label sequences for 2 sentences"):
        align_labels([["the"], ["cat"]], [[0]], pre)


def test_tagger_trains_with_masked_loss_and_saves(tiny_bert, tmp_path):
    from kit.train.freeze import stack_and_finetune

    keras.utils.set_random_seed(0)
    model = build_tagger(tiny_bert, num_tags=3, n_layers=1, cells=4)
    assert model.get_layer(tiny_bert.name) is tiny_bert and model.get_layer("head").num_tags == 3
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 64, (16, 8)).astype("int32")
    mask = np.ones_like(ids)
    mask[:, 6:] = 0
    ids[:, 0], ids = 2, ids * mask
    x = {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": mask}
    y = np.where(mask == 1, ids % 3, IGNORE).astype("int32")
    y[:, 0] = IGNORE
    r = stack_and_finetune(model, tiny_bert, x, y, x, y, strategy="stack_and_finetune", phase1_epochs=1,
                           phase2_epochs=1, batch_size=8, loss=MaskedSparseCategoricalCrossentropy(),
                           metrics=[MaskedAccuracy()], divergence=None)
    assert r.monitor == "masked_accuracy" and np.isfinite(r.phases[-1].history["loss"]).all()
    path = tmp_path / "tagger.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)),
                               atol=1e-5)
