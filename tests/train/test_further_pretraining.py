"""Further MLM pretraining: the loss falls on a tiny model, the head is tied and fresh, the backbone is updated in
place."""

import keras
import numpy as np
import pytest

from kit.models.mlm_model import MLMModel
from kit.testing import run_layer_test, run_precision_test
from kit.text.masking import MLMMasker
from kit.train.further_pretraining import MLMBatches, MLMRecipe, further_pretrain
from kit.train.masked_lm import evaluate_mlm
from tests.helpers import tiny_backbone

PAD, UNK, CLS, SEP, MASK = 0, 1, 2, 3, 4
VOCAB, SEQ = 40, 12


def texts(n=96, seed=0):
    """A skewed token distribution: learnable in a few dozen steps."""
    rng = np.random.default_rng(seed)
    ids = np.full((n, SEQ), PAD, "int32")
    ids[:, 0], ids[:, -1] = CLS, SEP
    ids[:, 1:-1] = rng.choice([5, 6, 7, 8, 9, 20], size=(n, SEQ - 2), p=[0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    return {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": np.ones_like(ids)}


def bert(seed=None, layers=1, dtype=None):
    """The file's tiny BERT: 40 tokens, 12 positions, no dropout, keras-hub's approximate GELU."""
    return tiny_backbone(seed, vocabulary_size=VOCAB, num_layers=layers, max_sequence_length=SEQ, dropout=0.0,
                         hidden_activation="gelu_approximate", dtype=dtype)  # fmt: skip


def setup(seed=0, layers=1, decay=None):
    bb = bert(seed, layers)
    masker = MLMMasker(VOCAB, MASK, [PAD, UNK, CLS, SEP], max_predictions=3)
    return bb, masker


def test_mlm_loss_falls_and_updates_the_backbone_in_place():
    bb, masker = setup()
    x = texts()
    model = MLMModel(bb, masker.max_predictions)
    # tied output projection: no second vocabulary table; the head's own weights are fresh
    assert model.get_layer("mlm_head").token_embedding is bb.token_embedding
    assert len([w for w in model.weights if tuple(w.shape) == (VOCAB, 16)]) == 1
    before = evaluate_mlm(model, x, masker)
    emb = keras.ops.convert_to_numpy(bb.token_embedding.embeddings).copy()
    result = further_pretrain(bb, x, masker, MLMRecipe(40, batch_size=16, learning_rate=3e-3, chunks=2), model=model)
    after = evaluate_mlm(model, x, masker)
    assert after["mlm_loss"] < before["mlm_loss"] - 0.5, (before, after)
    assert result.curve["loss"][-1] < result.curve["loss"][0]
    assert result.steps == 40 and result.tokens == 40 * 16 * SEQ and result.curve["step"] == [20, 40]
    assert not np.allclose(keras.ops.convert_to_numpy(bb.token_embedding.embeddings), emb)
    assert bb.pooled_dense.trainable  # held frozen during pretraining only


def masked_inputs(n=4):
    x = texts(n=n)
    x["mask_positions"] = np.tile(np.array([[1, 2, 3]], "int32"), (n, 1))
    return x


def test_mlm_model_contract_save_load_and_precision(tmp_path):
    bb, _ = setup()
    run_layer_test(
        MLMModel, {"backbone": bb, "max_predictions": 3}, masked_inputs(), expected_output_shape={"mlm": (4, 3, VOCAB)}
    )
    model = MLMModel(bb, 3)
    x = masked_inputs()
    out = keras.ops.convert_to_numpy(model(x)["mlm"])
    model.save(tmp_path / "mlm.keras")
    loaded = keras.saving.load_model(tmp_path / "mlm.keras")
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)["mlm"]), out, atol=1e-5)
    assert loaded.mlm_head.token_embedding is loaded.backbone.token_embedding

    def with_policy(dtype=None, **kwargs):
        return MLMModel(bert(dtype=dtype), **kwargs)

    run_precision_test(with_policy, {"max_predictions": 3}, x, policies=("mixed_bfloat16",))


def test_further_pretraining_in_mixed_bfloat16():
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        bb, masker = setup()
        result = further_pretrain(bb, texts(n=16), masker, MLMRecipe(2, batch_size=8, learning_rate=1e-3, chunks=1))
        assert np.isfinite(result.curve["loss"][-1])
        assert keras.backend.standardize_dtype(result.model(masked_inputs())["mlm"].dtype) == "bfloat16"
    finally:
        keras.config.set_dtype_policy(previous)


def test_with_layer_decay_and_batches():
    bb, masker = setup(layers=2)
    x = texts(n=10)
    result = further_pretrain(bb, x, masker, MLMRecipe(2, batch_size=4, learning_rate=1e-3, decay=0.5, chunks=1))
    table = result.model.optimizer.rate_table
    assert [r["multiplier"] for r in table] == [0.25, 0.5, 1.0, 1.0]
    tagged = dict(x, segment_ids=np.repeat(np.arange(10, dtype="int32")[:, None], SEQ, 1))  # row ids, to count
    s = MLMBatches(tagged, masker, batch_size=4, steps=5, seed=1)
    xb, yb, wb = s[0]
    assert set(xb) == {"token_ids", "segment_ids", "padding_mask", "mask_positions"}
    assert wb["mlm"].sum() / wb["mlm"].size == pytest.approx(1.0)  # a mean over the masked tokens
    # 5 batches of 4 from 10 texts: two full passes, every text twice; masks drawn afresh each step
    rows = np.concatenate([s[i][0]["segment_ids"][:, 0] for i in range(5)])
    assert np.bincount(rows, minlength=10).tolist() == [2] * 10
    assert not np.array_equal(s[0][0]["mask_positions"], s[1][0]["mask_positions"])
    with pytest.raises(ValueError, match="steps must be >= 1"):
        MLMRecipe(steps=0)
    with pytest.raises(TypeError, match="recipe must be a kit.train.MLMRecipe"):
        further_pretrain(bb, x, masker, {"steps": 2})
    with pytest.raises(ValueError, match="preprocessor's dict"):
        MLMBatches({"token_ids": x["token_ids"]}, masker, 4, 1)
