"""Layer-wise LR decay: per-layer update sizes follow decay, frozen/decayed embeddings, groups, errors, save/load,
bf16."""

import keras
import numpy as np
import pytest

from kit.models import build_classifier
from kit.train.layerwise_decay import (
    LayerwiseAdamW,
    format_rate_table,
    llrd_optimizer,
    rate_groups,
    rate_table,
)
from tests.helpers import tiny_backbone, tiny_inputs

CE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
VOCAB, SEQ, LAYERS = 32, 10, 4


def tiny(seed=0, layers=LAYERS):
    bb = tiny_backbone(seed, vocabulary_size=VOCAB, num_layers=layers, hidden_dim=8, max_sequence_length=SEQ,
                       dropout=0.0, hidden_activation="gelu_approximate")  # fmt: skip
    return bb, build_classifier(bb, 3, dropout=0.0)


def data(n=16):
    x = tiny_inputs(batch=n, seq=SEQ, vocab=VOCAB)
    return x, x["token_ids"][:, 0] % 3


def weights(model):
    return {v.path: keras.ops.convert_to_numpy(v).copy() for v in model.trainable_variables}


def step_sizes(before, after, prefix):
    d = np.concatenate([np.abs(after[p] - before[p]).ravel() for p in before if p.startswith(prefix)])
    return d[d > 0]


def test_one_step_update_sizes_follow_decay_layer_by_layer():
    """Adam's first step moves each element by lr·multiplier (epsilon tiny): the ratios are the rate table's."""
    bb, model = tiny()
    lr, decay = 1e-3, 0.5
    opt = llrd_optimizer(model, bb, lr, decay=decay, head_multiplier=2.0, weight_decay=0.0, epsilon=1e-12)
    model.compile(opt, CE)
    x, y = data()
    before = weights(model)
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    after = weights(model)
    for i in range(LAYERS):
        d = step_sizes(before, after, f"transformer_layer_{i}/")
        np.testing.assert_allclose(np.median(d) / lr, decay ** (LAYERS - 1 - i), rtol=1e-2, err_msg=f"layer {i}")
    emb = step_sizes(before, after, "token_embedding/")
    np.testing.assert_allclose(np.median(emb) / lr, decay**LAYERS, rtol=1e-2)
    for prefix in ("pooled_dense/", "head/"):
        np.testing.assert_allclose(np.median(step_sizes(before, after, prefix)) / lr, 2.0, rtol=1e-2)
    # layer by layer: each layer moves `decay` times as far as the one above it
    sizes = [np.median(step_sizes(before, after, f"transformer_layer_{i}/")) for i in range(LAYERS)]
    np.testing.assert_allclose(np.array(sizes[:-1]) / np.array(sizes[1:]), decay, rtol=1e-2)


@pytest.mark.parametrize("embeddings", ["frozen", "decay"])
def test_embeddings_frozen_or_decayed_with_a_schedule(embeddings):
    """Frozen: untouched. Decayed: an unused row (segment 1, zero gradient) shrinks by exactly lr·decay^L·wd."""
    bb, model = tiny()
    schedule = keras.optimizers.schedules.ExponentialDecay(1e-2, decay_steps=1, decay_rate=0.5)
    wd, decay = 0.1, 0.8
    opt = llrd_optimizer(model, bb, schedule, decay=decay, embeddings=embeddings, weight_decay=wd)
    model.compile(opt, CE)
    x, y = data()
    before = weights(model)
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)  # one step at lr = 1e-2
    after = weights(model)
    emb = [
        p
        for p in before
        if p.split("/")[0] in ("token_embedding", "position_embedding", "segment_embedding", "embeddings_layer_norm")
    ]
    if embeddings == "frozen":
        for p in emb:
            np.testing.assert_array_equal(after[p], before[p], err_msg=p)
    else:
        seg = "segment_embedding/embeddings"
        np.testing.assert_allclose(after[seg][1], before[seg][1] * (1 - 1e-2 * decay**LAYERS * wd), rtol=1e-6)
        # LayerNorm and biases get no weight decay
        assert not np.array_equal(after["embeddings_layer_norm/gamma"], before["embeddings_layer_norm/gamma"])
    assert not np.array_equal(
        after["transformer_layer_0/feedforward_output_dense/kernel"],
        before["transformer_layer_0/feedforward_output_dense/kernel"],
    )
    assert opt.rate_table[0]["learning_rate"] is None  # a schedule: the table shows multipliers only


def test_rate_groups_cover_every_variable_once():
    bb, model = tiny()
    rows = rate_groups(model, bb, decay=0.9, head_multiplier=3.0)
    assert [r["group"] for r in rows] == ["embeddings", "layer 0", "layer 1", "layer 2", "layer 3", "pooler + heads"]
    ids = [id(v) for r in rows for v in r["variables"]]
    assert sorted(ids) == sorted(id(v) for v in model.trainable_variables) and len(set(ids)) == len(ids)
    np.testing.assert_allclose([r["multiplier"] for r in rows], [0.9**4, 0.9**3, 0.9**2, 0.9, 1.0, 3.0])
    assert rate_groups(model, bb, embeddings="base")[0]["multiplier"] == 1.0
    assert rate_groups(model, bb, embeddings=0.5)[0]["multiplier"] == 0.5
    opt = llrd_optimizer(model, bb, 2e-5, decay=0.9, head_multiplier=3.0, global_clipnorm=1.0)
    assert opt.global_clipnorm == 1.0 and opt.weight_decay == 0.01
    text = format_rate_table(opt.rate_table)
    assert "layer 3" in text and "6.00e-05" in text  # heads at 3 x 2e-5
    assert sum(r["params"] for r in opt.rate_table) == sum(int(np.prod(v.shape)) for v in model.trainable_variables)
    assert rate_table(model, bb, 2e-5, decay=0.9, head_multiplier=3.0) == opt.rate_table


def test_clear_errors():
    bb, model = tiny(layers=1)
    other, _ = tiny(seed=1, layers=1)
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=r"decay must be in \(0, 1\]"):
            llrd_optimizer(model, bb, 1e-3, decay=bad)
    with pytest.raises(ValueError, match="embeddings must be 'decay', 'frozen', 'base'"):
        llrd_optimizer(model, bb, 1e-3, embeddings="half")
    with pytest.raises(ValueError, match="head_multiplier must be > 0"):
        llrd_optimizer(model, bb, 1e-3, head_multiplier=0)
    with pytest.raises(ValueError, match="not part of the model"):
        llrd_optimizer(model, other, 1e-3)
    with pytest.raises(ValueError, match="is not a BERT backbone"):
        llrd_optimizer(model, model.get_layer("head"), 1e-3)
    # an optimizer made for one model refuses another
    opt = llrd_optimizer(model, bb, 1e-3)
    dense = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")])
    with pytest.raises(ValueError, match="made for another model"):
        opt.build(dense.trainable_variables)


def test_save_load_of_a_model_compiled_with_it(tmp_path):
    bb, model = tiny(layers=2)
    model.compile(llrd_optimizer(model, bb, 1e-3, decay=0.7, embeddings="frozen"), CE)
    x, y = data(8)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    opt = loaded.optimizer
    assert isinstance(opt, LayerwiseAdamW)
    assert opt.multipliers == model.optimizer.multipliers and opt._scale == model.optimizer._scale
    assert int(keras.ops.convert_to_numpy(opt.iterations)) == 1
    for a, b in zip(model.optimizer.variables, opt.variables):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b), atol=1e-7)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(loaded(x)), keras.ops.convert_to_numpy(model(x)), atol=1e-5)


def test_mixed_bfloat16_training():
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        bb, model = tiny(layers=2)
        model.compile(llrd_optimizer(model, bb, 1e-3, decay=0.5, embeddings="frozen"), CE)
        x, y = data(8)
        before = weights(model)
        h = model.fit(x, y, batch_size=8, epochs=1, verbose=0).history
        after = weights(model)
        assert np.isfinite(h["loss"][0])
        assert all(after[p].dtype == np.float32 for p in after)
        np.testing.assert_array_equal(after["token_embedding/embeddings"], before["token_embedding/embeddings"])
        assert not np.array_equal(
            after["transformer_layer_1/feedforward_output_dense/kernel"],
            before["transformer_layer_1/feedforward_output_dense/kernel"],
        )
    finally:
        keras.config.set_dtype_policy(previous)
