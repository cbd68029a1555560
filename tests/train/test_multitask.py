"""Multitask training: mt-dnn's sampler, per-task losses and metrics, inactive heads under AdamW, SMART + LLRD,
Pearson."""

import keras
import numpy as np
import pytest

from kit.metrics.task_scores import Pearson, task_predictions, task_score
from kit.models.multitask_bert import cerbertus, multi_bert, triple_bert
from kit.train.layerwise_decay import llrd_optimizer
from kit.train.multitask import (
    MultitaskBatches,
    MultitaskRecipe,
    compile_multitask,
    evaluate_multitask,
    fit_multitask,
    predict_tasks,
)
from kit.train.smart import SMART, SmartNoise
from tests.helpers import tiny_backbone, tiny_inputs

KINDS = {"sst": "classification", "qqp": "binary", "sts": "regression"}
HEADS = {"sst": 5, "qqp": 1, "sts": 1}
VOCAB, SEQ = 32, 10


def tiny(seed=0, layers=2):
    return tiny_backbone(seed, vocabulary_size=VOCAB, num_layers=layers, hidden_dim=8, max_sequence_length=SEQ,
                         dropout=0.0, hidden_activation="gelu_approximate")  # fmt: skip


def task_data(sizes=(20, 10, 5), seed=0):
    out = {}
    for i, (task, n) in enumerate(zip(KINDS, sizes)):
        x = tiny_inputs(batch=n, seq=SEQ, vocab=VOCAB, seed=seed + i)
        first = x["token_ids"][:, 0]
        y = {"sst": first % 5, "qqp": (first < VOCAB // 2).astype(int), "sts": first / 6.0}[task]
        out[task] = (x, y)
    return out


def test_batches_follow_the_mt_dnn_sampler():
    data = task_data()
    b = MultitaskBatches(data, KINDS, batch_size=4, seed=1)
    assert b.batches_per_task() == {"sst": 5, "qqp": 3, "sts": 2} and len(b) == 10
    order1 = [b.task_of(i) for i in range(len(b))]
    seen = {t: [] for t in KINDS}
    for i in range(len(b)):
        x, y, w = b[i]
        task = b.task_of(i)
        assert set(y) == set(w) == set(KINDS)
        assert w[task].tolist() == [1.0] * len(w[task])
        assert all(not w[t].any() for t in KINDS if t != task)
        # the batch's rows are the task's own examples, labels aligned
        rows = [int(np.where((data[task][0]["token_ids"] == r).all(1))[0][0]) for r in x["token_ids"]]
        np.testing.assert_allclose(np.ravel(y[task]), np.asarray(data[task][1])[rows])
        seen[task] += rows
        assert y["sst"].dtype == np.int32 and y["qqp"].shape == (len(rows), 1) and y["sts"].dtype == np.float32
    assert {t: sorted(r) for t, r in seen.items()} == {t: list(range(n)) for t, n in zip(KINDS, (20, 10, 5))}
    assert sorted(order1) == ["qqp"] * 3 + ["sst"] * 5 + ["sts"] * 2
    b.on_epoch_end()
    order2 = [b.task_of(i) for i in range(len(b))]
    orders = {tuple(order1), tuple(order2)}
    for s in range(2, 6):  # shuffled, not grouped by task, and different across epochs or seeds
        other = MultitaskBatches(data, KINDS, batch_size=4, seed=s)
        orders.add(tuple(other.task_of(i) for i in range(len(other))))
    assert len(orders) > 2
    same = MultitaskBatches(data, KINDS, batch_size=4, seed=1)
    assert [same.task_of(i) for i in range(len(same))] == order1
    assert MultitaskBatches(data, KINDS, batch_size=4, drop_remainder=True).batches_per_task() == {
        "sst": 5,
        "qqp": 2,
        "sts": 1,
    }


def test_compiled_loss_counts_only_the_active_task():
    model = multi_bert(tiny(), HEADS, dropout=0.0)
    compile_multitask(model, KINDS, keras.optimizers.Adam(1e-3))
    data = task_data()
    b = MultitaskBatches(data, KINDS, batch_size=4, seed=0, shuffle=False)
    for i in (0, 5, 8):  # an sst, a qqp and an sts batch
        x, y, w = b[i]
        task = b.task_of(i)
        y_pred = model(x)
        got = float(keras.ops.convert_to_numpy(model.compute_loss(x, y, y_pred, sample_weight=w, training=False)))
        out = keras.ops.convert_to_numpy(y_pred[task]).astype("float64")
        yt = np.asarray(y[task], "float64")
        if task == "sst":
            z = out - out.max(-1, keepdims=True)
            want = -(z - np.log(np.exp(z).sum(-1, keepdims=True)))[np.arange(len(yt)), yt.astype(int)].mean()
        elif task == "qqp":
            want = np.mean(np.maximum(out, 0) - out * yt + np.log1p(np.exp(-np.abs(out))))
        else:
            want = np.mean((out - yt) ** 2)
        assert got == pytest.approx(want, rel=1e-4), task


def test_inactive_heads_still_move_under_adamw_weight_decay():
    """Documented behaviour: an sst-only step gives the qqp head a zero gradient, and AdamW's decay still shrinks it."""
    model = multi_bert(tiny(layers=1), HEADS, dropout=0.0)
    lr, wd = 1e-2, 0.1
    compile_multitask(model, KINDS, keras.optimizers.AdamW(lr, weight_decay=wd))
    b = MultitaskBatches(task_data(), KINDS, batch_size=4, seed=0, shuffle=False)
    x, y, w = b[0]
    assert b.task_of(0) == "sst"
    kernel = model.get_layer("qqp_head").out.kernel
    before = keras.ops.convert_to_numpy(kernel).copy()
    model.train_on_batch(x, y, sample_weight=w)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(kernel), before * (1 - lr * wd), rtol=1e-6)


def test_fit_multitask_with_smart_and_llrd_round_trips(tmp_path):
    bb = tiny()
    model = cerbertus(bb, HEADS, k=1, dropout=0.0)
    smart = SMART(model, model, lambda_s=1.0, noise=SmartNoise(sigma=1e-2))
    opt = llrd_optimizer(model, model, 1e-3, decay=0.9)
    assert [r["group"] for r in opt.rate_table][-2:] == ["layer 1 (x3)", "pooler + heads"]
    train = task_data(sizes=(8, 8, 8))
    recipe = MultitaskRecipe(epochs=2, batch_size=8, drop_remainder=True)
    result = fit_multitask(smart, train, KINDS, recipe, optimizer=opt, dev=train)
    assert result.steps == 6 and min(result.history["smart_loss"]) > 0
    assert {"sst_accuracy", "qqp_accuracy", "sts_pearson", "dev_mean"} <= set(result.history)
    assert len(result.dev_scores) == 2 and set(result.dev_scores[0]) == set(KINDS) | {"mean"}
    assert result.best == result.dev_scores[result.best_epoch]
    assert result.best_per_task["sst"] == max(s["sst"] for s in result.dev_scores)
    # the best-mean epoch's weights were kept
    assert evaluate_multitask(smart, train, KINDS) == pytest.approx(result.best)
    preds = predict_tasks(smart, {t: xy[0] for t, xy in train.items()}, KINDS)
    assert preds["sst"].shape == (8, 5) and preds["qqp"].shape == (8,) and preds["sts"].shape == (8,)
    np.testing.assert_allclose(preds["sst"].sum(-1), 1.0, atol=1e-6)
    smart.save(tmp_path / "mt.keras")
    loaded = keras.saving.load_model(tmp_path / "mt.keras")
    assert len(loaded.backbones) == 1 and loaded.model.architecture == "CerBERTus k=1"
    again = predict_tasks(loaded, {t: xy[0] for t, xy in train.items()}, KINDS)
    for t in KINDS:
        np.testing.assert_allclose(again[t], preds[t], atol=1e-5)


def test_dev_is_scored_in_the_eval_batch_size(monkeypatch):
    import kit.train.multitask as mt

    seen = []
    real = mt.evaluate_multitask
    monkeypatch.setattr(mt, "evaluate_multitask", lambda m, d, k, b=64: seen.append(b) or real(m, d, k, b))
    train = task_data(sizes=(8, 8, 8))
    recipe = MultitaskRecipe(epochs=2, batch_size=8, eval_batch_size=4)
    fit_multitask(
        multi_bert(tiny(layers=1), HEADS), train, KINDS, recipe, optimizer=keras.optimizers.AdamW(1e-3), dev=train
    )
    recipe = MultitaskRecipe(epochs=1, batch_size=8)
    fit_multitask(
        multi_bert(tiny(layers=1), HEADS), train, KINDS, recipe, optimizer=keras.optimizers.AdamW(1e-3), dev=train
    )
    assert seen == [4, 4, 64]
    with pytest.raises(ValueError, match="epochs must be >= 1"):
        MultitaskRecipe(epochs=0, batch_size=8)
    with pytest.raises(TypeError, match="recipe must be a kit.train.MultitaskRecipe"):
        fit_multitask(multi_bert(tiny(layers=1), HEADS), train, KINDS, {"epochs": 1}, optimizer="adam")


def test_smart_perturbs_every_encoder_of_a_triple_bert():
    """Noise i reaches task i's output only: SMART hooks each of the three encoders' embedding output."""
    model = triple_bert(tiny(layers=1), HEADS, dropout=0.0)
    with pytest.warns(UserWarning, match="perturbs 1 of the 3 encoders"):
        SMART(model, model.backbone)
    smart = SMART(model, model)
    assert len(smart.backbones) == 3
    x = tiny_inputs(batch=4, seq=SEQ, vocab=VOCAB)
    assert [tuple(n.shape) for n in smart.initial_noise(x)] == [(4, SEQ, 8)] * 3
    clean = {t: keras.ops.convert_to_numpy(v) for t, v in model(x, training=False).items()}
    zero, one = np.zeros((4, SEQ, 8), "float32"), np.ones((4, SEQ, 8), "float32")
    for i, task in enumerate(HEADS):
        noises = [one if j == i else zero for j in range(3)]
        out = smart.perturbed_outputs(x, noises, training=False)
        for t in HEADS:
            changed = not np.allclose(keras.ops.convert_to_numpy(out[t]), clean[t], atol=1e-6)
            assert changed == (t == task), (task, t)


def test_fit_multitask_in_mixed_bfloat16():
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        model = multi_bert(tiny(layers=1), HEADS)
        recipe = MultitaskRecipe(epochs=1, batch_size=8)
        result = fit_multitask(model, task_data(sizes=(8, 8, 8)), KINDS, recipe, optimizer=keras.optimizers.AdamW(1e-3))
        assert np.isfinite(result.history["loss"][0]) and np.isfinite(result.history["sts_pearson"][0])
        assert keras.backend.standardize_dtype(model(task_data()["sst"][0])["sst"].dtype) == "bfloat16"
    finally:
        keras.config.set_dtype_policy(previous)


def test_pearson_metric_streams_and_ignores_zero_weights():
    rng = np.random.default_rng(0)
    y, p = rng.normal(size=30), rng.normal(size=30)
    p = p + 0.8 * y
    m = Pearson()
    for a, b in ((0, 7), (7, 20), (20, 30)):
        m.update_state(y[a:b, None], p[a:b, None])
    m.update_state(np.full((5, 1), 9.0), np.full((5, 1), -9.0), sample_weight=np.zeros(5))
    assert float(m.result()) == pytest.approx(np.corrcoef(y, p)[0, 1], abs=1e-5)
    m.reset_state()
    assert float(m.result()) == 0.0


def test_task_scores_and_errors():
    assert task_score(
        "binary", [1, 0, 1], task_predictions("binary", np.array([[2.0], [-1.0], [-0.5]]))
    ) == pytest.approx(2 / 3)
    assert task_score("regression", [1, 2, 3], [5, 5, 5]) == 0.0
    with pytest.raises(ValueError, match="Unknown task kind 'ranking'"):
        task_score("ranking", [1], [1])
    with pytest.raises(ValueError, match="No kind for tasks"):
        MultitaskBatches(task_data(), {"sst": "classification"}, batch_size=4)
    with pytest.raises(ValueError, match="labels for"):
        MultitaskBatches({"sst": (task_data()["sst"][0], [1, 2])}, KINDS, batch_size=4)
    with pytest.raises(ValueError, match="have no output"):
        compile_multitask(multi_bert(tiny(layers=1), {"sst": 5}), KINDS, "adam")
