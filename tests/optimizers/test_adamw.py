"""kit's AdamW: the same weights as Keras' AdamW (fused on torch or not), decay exclusions, layer-wise rates,
gradient accumulation, amsgrad's fallback, save/load and mixed precision."""

import keras
import numpy as np
import pytest

from kit.models import build_classifier
from kit.optimizers import schedules
from kit.optimizers.adamw import NO_DECAY_NAMES, AdamW, adamw, fused_available
from kit.train.layerwise_decay import llrd_optimizer
from tests.helpers import tiny_backbone, tiny_inputs

CE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
VOCAB, SEQ = 40, 10
TORCH = keras.backend.backend() == "torch"


def tiny(seed=0, layers=1):  # one layer has every kind of weight the optimizer treats apart; each compiles fast
    bb = tiny_backbone(seed, vocabulary_size=VOCAB, num_layers=layers, hidden_dim=8, max_sequence_length=SEQ,
                       dropout=0.0, hidden_activation="gelu_approximate")  # fmt: skip
    return bb, build_classifier(bb, 3, dropout=0.0)


def data(n=32):
    x = tiny_inputs(batch=n, seq=SEQ, vocab=VOCAB // 2)  # the upper half of the vocabulary: rows with no gradient
    return x, x["token_ids"][:, 0] % 3


def weights(model):
    return {v.path: keras.ops.convert_to_numpy(v).copy() for v in model.trainable_variables}


def keras_adamw(lr, **kw):
    opt = keras.optimizers.AdamW(lr, weight_decay=0.05, **kw)
    opt.exclude_from_weight_decay(var_names=list(NO_DECAY_NAMES))
    return opt


def train(optimizer, steps=6, batch=8, seed=0):
    _, model = tiny(seed)
    model.compile(optimizer, CE)
    x, y = data(steps * batch)
    model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)
    return model


def assert_same(a, b, rtol=1e-4, atol=1e-5):
    wa, wb = weights(a), weights(b)
    assert wa.keys() == wb.keys()
    for p in wa:
        np.testing.assert_allclose(wa[p], wb[p], rtol=rtol, atol=atol, err_msg=p)


@pytest.mark.parametrize(
    "extra", [{}, {"global_clipnorm": 0.01}, {"gradient_accumulation_steps": 2}, {"epsilon": 1e-3}]
)
def test_same_weights_as_keras_adamw(extra):
    """A warm-up + decay schedule, weight decay on all but biases/LayerNorm, rows without gradient (decay only)."""
    lr = lambda: schedules.WarmupLinearDecay(1e-2, 6, 2)  # noqa: E731
    ours = AdamW(lr(), weight_decay=0.05, **extra)
    ours.exclude_from_weight_decay(var_names=list(NO_DECAY_NAMES))
    ours_model, theirs_model = train(ours), train(keras_adamw(lr(), **extra))
    assert isinstance(ours_model.optimizer, AdamW)
    assert_same(ours_model, theirs_model)
    untrained = weights(tiny(0)[1])
    assert not np.allclose(untrained["token_embedding/embeddings"], weights(ours_model)["token_embedding/embeddings"])


@pytest.mark.skipif(not TORCH, reason="the fused kernel is torch's")
def test_torch_updates_with_one_fused_kernel_and_can_be_turned_off(monkeypatch):
    import torch

    assert fused_available()
    calls = []
    real = torch._fused_adamw_
    monkeypatch.setattr(torch, "_fused_adamw_", lambda *a, **k: (calls.append(k["weight_decay"]), real(*a, **k)))
    fused = train(adamw(1e-2, weight_decay=0.05))
    assert len(calls) == 2 * 6 and sorted(set(calls)) == [0.0, 0.05]  # decayed and excluded groups, each step
    monkeypatch.setenv("KIT_FUSED_ADAMW", "0")
    calls.clear()
    unfused = train(adamw(1e-2, weight_decay=0.05))
    assert calls == [] and not fused_available()
    assert_same(fused, unfused)


def test_layerwise_rates_fused_or_not(monkeypatch):
    """LayerwiseAdamW's per-variable rates (a frozen embedding table among them) through both update paths."""

    def run():
        bb, model = tiny(1)
        model.compile(
            llrd_optimizer(model, bb, 1e-2, decay=0.5, head_multiplier=2.0, embeddings="frozen", weight_decay=0.05), CE
        )
        before = weights(model)
        x, y = data(48)
        model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
        return before, model

    before, fused = run()
    monkeypatch.setenv("KIT_FUSED_ADAMW", "0")
    _, unfused = run()
    assert_same(fused, unfused)
    after = weights(fused)
    np.testing.assert_array_equal(after["token_embedding/embeddings"], before["token_embedding/embeddings"])
    assert not np.array_equal(
        after["transformer_layer_0/feedforward_output_dense/kernel"],
        before["transformer_layer_0/feedforward_output_dense/kernel"],
    )


def test_amsgrad_falls_back_to_keras():
    ours = adamw(1e-2, weight_decay=0.05)
    ours.amsgrad = True
    theirs = keras_adamw(1e-2, amsgrad=True)
    assert_same(train(ours), train(theirs))


def test_save_load_and_go_on_training(tmp_path):
    model = train(adamw(1e-2, weight_decay=0.05), steps=3)
    model.save(tmp_path / "m.keras")
    loaded = keras.saving.load_model(tmp_path / "m.keras")
    assert type(loaded.optimizer) is AdamW and int(keras.ops.convert_to_numpy(loaded.optimizer.iterations)) == 3
    assert loaded.optimizer.weight_decay == 0.05 and loaded.optimizer.no_decay_names == list(NO_DECAY_NAMES)
    x, y = data(8)
    for m in (model, loaded):
        m.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    assert_same(model, loaded)


def test_mixed_bfloat16_training():
    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        ours, theirs = train(adamw(1e-2, weight_decay=0.05)), train(keras_adamw(1e-2))
        assert all(w.dtype == np.float32 for w in weights(ours).values())
        assert_same(ours, theirs, rtol=1e-2, atol=5e-4)  # bfloat16 gradients: rounding, not method
        before, after = weights(tiny(0)[1]), weights(ours)
        assert all(not np.array_equal(before[p], after[p]) for p in before if "transformer_layer" in p)
    finally:
        keras.config.set_dtype_policy(previous)


def test_trains_under_jit_compile():
    """On torch, jit_compile=True traces the step with torch.compile, where the fused kernel cannot run: Keras' own
    update takes over there (it used to fail inside the trace)."""
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(2)])
    model.compile(adamw(1e-2), CE, jit_compile=True)
    x = np.random.default_rng(0).random((32, 4)).astype("float32")
    before = [w.copy() for w in model.get_weights()]
    loss = model.fit(x, (x[:, 0] > 0.5).astype("int32"), batch_size=8, epochs=2, verbose=0).history["loss"]
    assert np.all(np.isfinite(loss)) and not np.allclose(before[0], model.get_weights()[0])


def test_inside_a_loss_scale_optimizer():
    """mixed_float16's wrapper: the inner update runs on the unscaled gradients, as with Keras' AdamW."""
    ours = keras.optimizers.LossScaleOptimizer(adamw(1e-2, weight_decay=0.05), initial_scale=2.0**10)
    theirs = keras.optimizers.LossScaleOptimizer(keras_adamw(1e-2), initial_scale=2.0**10)
    assert_same(train(ours), train(theirs))
