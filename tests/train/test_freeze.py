"""The freeze scheduler (stack-and-finetune): freezing guarantees, phase-1 stopping, best-epoch restore, errors."""

import keras
import numpy as np
import pytest

from kit.train.freeze import (
    DEFAULT_DIVERGENCE,
    DivergenceStopping,
    FreezeRecipe,
    FreezeState,
    stack_and_finetune,
)


def _values(variables):
    return [np.array(keras.ops.convert_to_numpy(v)) for v in variables]


def _same(a, b) -> bool:
    return all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b))


class Recorder(keras.callbacks.Callback):
    """Snapshots of some variables at the start and end of every fit call (= every phase)."""

    def __init__(self, variables, dropouts=()):
        super().__init__()
        self.variables, self.dropouts = list(variables), list(dropouts)
        self.begin, self.end, self.rates = [], [], []

    def on_train_begin(self, logs=None):
        self.begin.append(_values(self.variables))
        self.rates.append([d.rate for d in self.dropouts])

    def on_train_end(self, logs=None):
        self.end.append(_values(self.variables))


def _dense_model(n_groups=1, seed=0):
    keras.utils.set_random_seed(seed)
    inp = keras.Input((6,))
    groups = [keras.layers.Dense(8, activation="relu", name=f"enc{i}") for i in range(n_groups)]
    h = inp
    for g in groups:
        h = g(h)
    model = keras.Model(inp, keras.layers.Dense(2, name="head")(h))
    return model, groups


def _data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6)).astype("float32")
    return x, (x[:, 0] + 0.5 * x[:, 1] > 0).astype("int32")


def test_frozen_encoder_is_bit_identical_then_trains(tiny_bert):
    """On a real (tiny) BERT: phase 1 leaves every encoder weight bit-identical, phase 2 changes them."""
    from kit.models.heads import build_classifier
    from tests.helpers import tiny_inputs

    keras.utils.set_random_seed(0)
    model = build_classifier(tiny_bert, num_classes=2, dropout=0.0)
    x = tiny_inputs(batch=16, seq=8)
    y = (x["token_ids"][:, 0] % 2).astype("int32")
    encoder_vars = list(tiny_bert.trainable_weights)
    head_vars = list(model.get_layer("head").trainable_weights)
    dropouts = [d for d in tiny_bert._flatten_layers() if isinstance(d, keras.layers.Dropout) and d.rate > 0]
    assert dropouts, "the tiny BERT should have dropout layers"
    rec_enc, rec_head = Recorder(encoder_vars, dropouts), Recorder(head_vars)
    result = stack_and_finetune(
        model,
        tiny_bert,
        (x, y),
        (x, y),
        FreezeRecipe(phase1_lr=1e-2, phase2_lr=1e-2, phase1_epochs=2, phase2_epochs=1, batch_size=8, divergence=None),
        strategy="stack_and_finetune",
        callbacks=[rec_enc, rec_head],
    )
    assert [p.name for p in result.phases] == ["phase1", "phase2"]
    assert _same(rec_enc.begin[0], rec_enc.end[0]), "a frozen encoder weight moved in phase 1"
    assert not _same(rec_head.begin[0], rec_head.end[0]), "the head did not train in phase 1"
    assert not _same(rec_enc.begin[1], rec_enc.end[1]), "the encoder did not train in phase 2"
    n_all = len(model.trainable_weights)
    assert result.phases[0].trainable_weights == n_all - len(encoder_vars)
    assert result.phases[1].trainable_weights == n_all
    assert result.phases[0].encoder_frozen and not result.phases[1].encoder_frozen
    # frozen phase ran the encoder without dropout; rates came back afterwards
    assert rec_enc.rates[0] == [0.0] * len(dropouts)
    assert rec_enc.rates[1] == [d.rate for d in dropouts] and all(r > 0 for r in rec_enc.rates[1])
    # the model is left compiled for its (restored) trainable set: evaluate and another fit work on every backend
    assert tiny_bert.trainable
    model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)


class _StopAtFirstEpoch(keras.callbacks.Callback):
    """Stops the first fit (phase 1) after its first epoch, as the divergence rule would."""

    def __init__(self):
        super().__init__()
        self.fits = 0

    def on_train_begin(self, logs=None):
        self.fits += 1

    def on_epoch_end(self, epoch, logs=None):
        if self.fits == 1:
            self.model.stop_training = True


def test_stack_and_finetune_keeps_the_stack_only_run_its_phase1_was(tiny_bert):
    """keep_stack_only: phase 1 is a stack-only run bit for bit (history, best epoch, test outputs), on a real BERT."""
    from kit.config import set_seed
    from kit.models.heads import build_classifier
    from kit.train.freeze_helpers import ReusableBackbone
    from tests.helpers import tiny_inputs

    encoder = ReusableBackbone(tiny_bert)
    x = tiny_inputs(batch=24, seq=8)
    y = (x["token_ids"][:, 0] % 2).astype("int32")
    dev = ({k: v[:16] for k, v in x.items()}, y[:16])
    never = {"threshold": 1.0, "patience": 2}  # the rule watches phase 1, but an accuracy gap is never above 1
    recipe = FreezeRecipe(
        phase1_lr=1e-2, phase2_lr=1e-3, phase1_epochs=3, phase2_epochs=1, batch_size=8, divergence=never
    )

    def trained(strategy, **kwargs):
        set_seed(0)
        model = build_classifier(encoder.fresh(), num_classes=2, dropout=0.1)
        r = stack_and_finetune(model, tiny_bert, (x, y), dev, recipe, strategy=strategy, **kwargs)
        return model, r

    alone_model, alone = trained("stack_only")
    model, both = trained("stack_and_finetune", keep_stack_only=True, callbacks=[])
    kept = both.stack_only
    assert both.phases[0].epochs == 3 and [p.name for p in both.phases] == ["phase1", "phase2"]
    assert kept.strategy == "stack_only" and kept.phases[0].stopped == "" and both.stack_only_weights is not None
    assert kept.phases[0].history == alone.phases[0].history  # the same training, epoch for epoch
    assert (kept.best_dev, kept.best_phase, kept.best_epoch) == (alone.best_dev, alone.best_phase, alone.best_epoch)
    final = model.get_weights()
    model.set_weights(both.stack_only_weights)
    assert np.array_equal(model.predict(x, verbose=0), alone_model.predict(x, verbose=0))  # its test outputs
    model.set_weights(final)
    assert both.stack_only.stack_only is None and alone.stack_only is None  # only when asked for

    # phase 1 stopped before its last epoch: a stack-only run would have gone on, so none is kept
    _, stopped = trained("stack_and_finetune", keep_stack_only=True, callbacks=[_StopAtFirstEpoch()])
    assert stopped.phases[0].epochs == 1 and stopped.stack_only is None and stopped.stack_only_weights is None
    with pytest.raises(ValueError, match="keep_stack_only"):
        trained("stack_only", keep_stack_only=True)


def test_the_kept_stack_only_run_matches_under_mixed_bfloat16(tiny_bert):
    """keep_stack_only in mixed_bfloat16: the kept run's history and bfloat16 outputs equal a stack-only run's."""
    from kit.config import set_seed
    from kit.models.heads import build_classifier
    from kit.train.freeze_helpers import ReusableBackbone
    from tests.helpers import tiny_inputs

    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        encoder = ReusableBackbone(tiny_bert)
        x = tiny_inputs(batch=16, seq=8)
        y = (x["token_ids"][:, 0] % 2).astype("int32")
        never = {"threshold": 1.0, "patience": 2}  # phase 1 watched by the rule, never stopped by it
        recipe = FreezeRecipe(
            phase1_lr=1e-2, phase2_lr=1e-3, phase1_epochs=2, phase2_epochs=1, batch_size=8, divergence=never
        )

        def trained(strategy, **kwargs):
            set_seed(1)
            model = build_classifier(encoder.fresh(), num_classes=2, dropout=0.1)
            return model, stack_and_finetune(model, tiny_bert, (x, y), (x, y), recipe, strategy=strategy, **kwargs)

        alone_model, alone = trained("stack_only")
        model, both = trained("stack_and_finetune", keep_stack_only=True)
        assert both.stack_only is not None and both.stack_only.phases[0].history == alone.phases[0].history
        assert {w.dtype for w in both.stack_only_weights} == {np.dtype("float32")}  # float32 weights, as trained
        model.set_weights(both.stack_only_weights)
        kept, expected = model.predict(x, verbose=0), alone_model.predict(x, verbose=0)
        assert keras.backend.standardize_dtype(kept.dtype) == "bfloat16" or kept.dtype == np.float32
        assert np.array_equal(np.asarray(kept, "float32"), np.asarray(expected, "float32"))
    finally:
        keras.config.set_dtype_policy(previous)


@pytest.mark.parametrize("strategy,frozen", [("finetune_only", False), ("stack_only", True)])
def test_single_phase_strategies(strategy, frozen):
    model, (enc,) = _dense_model()
    x, y = _data()
    before = _values(enc.trainable_weights)
    r = stack_and_finetune(
        model,
        enc,
        (x, y),
        (x, y),
        FreezeRecipe(phase1_lr=1e-2, phase2_lr=1e-2, phase1_epochs=2, phase2_epochs=2, batch_size=16),
        strategy=strategy,
    )
    assert len(r.phases) == 1 and r.phases[0].encoder_frozen == frozen
    assert r.phases[0].trainable_weights == (2 if frozen else 4)
    assert r.phases[0].learning_rate == 1e-2 and r.phases[0].epochs == 2
    assert _same(before, _values(enc.trainable_weights)) == frozen
    assert enc.trainable and len(model.trainable_weights) == 4  # flags restored afterwards


def test_unfreezing_keeps_deliberately_frozen_parts_frozen():
    keras.utils.set_random_seed(0)
    inp = keras.Input((4,), dtype="int32")
    table = keras.layers.Embedding(10, 4, name="table")
    table.trainable = False  # fixed on purpose: no phase may train it
    proj = keras.layers.Dense(4, name="proj")
    encoder = keras.Sequential([table, keras.layers.Flatten(), proj], name="encoder")
    model = keras.Model(inp, keras.layers.Dense(2, name="head")(encoder(inp)))
    x = np.random.default_rng(0).integers(0, 10, (32, 4)).astype("int32")
    y = (x[:, 0] > 4).astype("int32")
    fixed = _values(table.weights)
    r = stack_and_finetune(
        model,
        encoder,
        (x, y),
        (x, y),
        FreezeRecipe(phase1_lr=1e-2, phase2_lr=1e-2, phase1_epochs=1, phase2_epochs=2, batch_size=8, divergence=None),
        strategy="stack_and_finetune",
    )
    assert [p.trainable_weights for p in r.phases] == [2, 4]  # head, then head + proj (never the table)
    assert _same(fixed, _values(table.weights))
    assert not table.trainable and proj.trainable and encoder.trainable


def test_phase2_keeps_best_dev_epoch():
    model, (enc,) = _dense_model(seed=1)
    x, y = _data(seed=1)
    xd, yd = _data(n=32, seed=2)
    r = stack_and_finetune(
        model,
        enc,
        (x, y),
        (xd, yd),
        FreezeRecipe(phase1_epochs=1, phase2_epochs=6, phase2_lr=0.5, optimizer="sgd", batch_size=8, divergence=None),
        strategy="stack_and_finetune",
    )
    dev = r.phases[-1].history["val_accuracy"]
    assert r.monitor == "accuracy" and r.best_phase == "phase2"
    assert r.best_dev == max(dev) and r.best_epoch == int(np.argmax(dev))
    assert model.evaluate(xd, yd, verbose=0, return_dict=True)["accuracy"] == pytest.approx(max(dev), abs=1e-6)
    curve = r.curve()
    assert len(curve) == sum(p.epochs for p in r.phases) and curve[0]["phase"] == "phase1"


def test_patience_stops_phase2_early():
    model, (enc,) = _dense_model()
    x, y = _data()
    flipped = 1 - y  # dev disagrees with train: dev accuracy only falls once the head learns
    r = stack_and_finetune(
        model,
        enc,
        (x, y),
        (x, flipped),
        FreezeRecipe(phase2_epochs=20, phase2_lr=5e-2, patience=2, batch_size=8),
        strategy="finetune_only",
    )
    assert r.phases[0].epochs < 20 and "no dev improvement" in r.phases[0].stopped


def test_regression_loss_and_metrics():
    model, (enc,) = _dense_model()
    model = keras.Model(model.inputs, keras.layers.Dense(1, name="score")(enc.output))
    x, _ = _data()
    y = (x[:, 0] * 2.0).astype("float32")
    r = stack_and_finetune(
        model,
        enc,
        (x, y),
        (x, y),
        FreezeRecipe(
            phase1_epochs=2, phase2_epochs=2, batch_size=16, loss="mse", metrics=["mae"], divergence={"threshold": 10.0}
        ),
        strategy="stack_and_finetune",
    )
    assert r.monitor == "mae"
    assert r.best_dev == min(r.phases[-1].history["val_mae"])


def test_gradual_unfreezing_goes_top_down():
    model, groups = _dense_model(n_groups=3)
    x, y = _data()
    rec = Recorder(groups[0].trainable_weights)
    r = stack_and_finetune(
        model,
        groups,
        (x, y),
        (x, y),
        FreezeRecipe(
            phase1_epochs=1, phase2_epochs=4, phase2_lr=1e-2, batch_size=16, divergence=None, unfreeze="gradual"
        ),
        strategy="stack_and_finetune",
        callbacks=[rec],
    )
    assert [p.name for p in r.phases] == ["phase1", "phase2.1", "phase2.2", "phase2.3"]
    assert [p.trainable_weights for p in r.phases] == [2, 4, 6, 8]
    assert [p.frozen_groups for p in r.phases] == [3, 2, 1, 0]
    assert [p.max_epochs for p in r.phases] == [1, 1, 1, 2]
    # the lowest group stays frozen until the last step, then trains
    assert all(_same(b, e) for b, e in zip(rec.begin[:3], rec.end[:3]))
    assert not _same(rec.begin[3], rec.end[3])


# --- DivergenceStopping ---------------------------------------------------------------------------


def _feed(cb, pairs, model=None):
    cb.set_model(model or keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)]))
    cb.model.stop_training = False
    cb.on_train_begin()
    for epoch, (train, dev) in enumerate(pairs):
        cb.on_epoch_end(epoch, {"loss": 1.0, "accuracy": train, "val_loss": 1.0, "val_accuracy": dev})
        if cb.model.stop_training:
            break
    cb.on_train_end()
    return cb


def test_divergence_stops_after_patience_epochs_over_the_gap():
    cb = _feed(DivergenceStopping(threshold=0.05, patience=2), [(0.6, 0.6), (0.7, 0.6), (0.8, 0.6), (0.9, 0.6)])
    assert cb.stopped_epoch == 2 and cb.model.stop_training
    assert "0.05" in cb.reason and "epochs 2-3" in cb.reason
    one = _feed(DivergenceStopping(threshold=0.05, patience=1), [(0.6, 0.6), (0.7, 0.6)])
    assert "(epoch 2: gap +0.100)" in one.reason  # one epoch is not a range ("epochs 2-2")


def test_divergence_does_not_stop_when_gap_is_small_or_not_persistent():
    cb = _feed(
        DivergenceStopping(threshold=0.05, patience=2), [(0.6, 0.6), (0.7, 0.6), (0.7, 0.68), (0.8, 0.7), (0.8, 0.79)]
    )  # over the gap once at a time
    assert cb.stopped_epoch is None and not cb.model.stop_training and cb.reason == ""
    cb = _feed(DivergenceStopping(threshold=0.05, patience=1), [(0.5, 0.6), (0.9, 0.95)])  # dev ahead: no stop
    assert cb.stopped_epoch is None


def test_divergence_min_epochs_and_min_mode():
    cb = _feed(DivergenceStopping(threshold=0.0, patience=1, min_epochs=3), [(0.9, 0.5)] * 5)
    assert cb.stopped_epoch == 2
    cb = DivergenceStopping(monitor="loss", threshold=0.1, patience=1)  # a loss: the gap is dev - train
    cb.set_model(keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)]))
    cb.on_train_begin()
    cb.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.55})
    assert cb.stopped_epoch is None
    cb.on_epoch_end(1, {"loss": 0.2, "val_loss": 0.6})
    assert cb.stopped_epoch == 1


def test_divergence_restores_last_epoch_within_the_gap():
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    cb = DivergenceStopping(threshold=0.05, patience=2)
    cb.set_model(model)
    cb.on_train_begin()
    kernel = model.trainable_variables[0]
    for epoch, (train, dev) in enumerate([(0.6, 0.6), (0.7, 0.68), (0.9, 0.7), (0.95, 0.7)]):
        kernel.assign(np.full((1, 1), float(epoch), "float32"))  # the weights "after" this epoch
        cb.on_epoch_end(epoch, {"accuracy": train, "val_accuracy": dev})
    cb.on_train_end()
    assert cb.stopped_epoch == 3 and cb.restored_epoch == 1
    assert float(keras.ops.convert_to_numpy(kernel)[0, 0]) == 1.0
    # no epoch within the gap: the smallest gap's weights are kept
    cb = DivergenceStopping(threshold=0.05, patience=3)
    cb.set_model(model)
    cb.on_train_begin()
    for epoch, (train, dev) in enumerate([(0.9, 0.7), (0.9, 0.8), (0.95, 0.7)]):
        kernel.assign(np.full((1, 1), 10.0 + epoch, "float32"))
        cb.on_epoch_end(epoch, {"accuracy": train, "val_accuracy": dev})
    cb.on_train_end()
    assert cb.restored_epoch == 1 and "smallest gap" in cb.reason
    assert float(keras.ops.convert_to_numpy(kernel)[0, 0]) == 11.0


class EpochWeights(keras.callbacks.Callback):
    def __init__(self, variables):
        super().__init__()
        self.variables, self.epochs, self.starts = list(variables), [], []

    def on_train_begin(self, logs=None):
        self.starts.append(_values(self.variables))

    def on_epoch_end(self, epoch, logs=None):
        if len(self.starts) == 1:  # phase 1 only
            self.epochs.append(_values(self.variables))


def test_divergence_stops_a_real_fit():
    model, (enc,) = _dense_model()
    x, y = _data()
    stop = DivergenceStopping(threshold=0.05, patience=2)
    seen = EpochWeights(model.get_layer("head").trainable_weights)
    r = stack_and_finetune(
        model,
        enc,
        (x, y),
        (x, 1 - y),
        FreezeRecipe(phase1_lr=5e-2, phase1_epochs=30, phase2_epochs=1, batch_size=8, divergence=stop),
        strategy="stack_and_finetune",
        callbacks=[seen],
    )
    p1 = r.phases[0]
    assert p1.epochs < 30 and p1.stopped.startswith("train - dev accuracy > 0.05")
    assert stop.restored_epoch is not None and stop.restored_epoch < p1.epochs - 1
    # phase 2 started from the head of the last epoch within the gap, not the last epoch run
    assert _same(seen.starts[1], seen.epochs[stop.restored_epoch])
    assert not _same(seen.starts[1], seen.epochs[-1])
    model2, (enc2,) = _dense_model()
    r2 = stack_and_finetune(
        model2, enc2, (x, y), (x, y), FreezeRecipe(phase1_epochs=3, batch_size=8), strategy="stack_only"
    )
    assert r2.phases[0].epochs == 3 and r2.phases[0].stopped == ""


def test_default_divergence_is_the_papers_rule():
    model, (enc,) = _dense_model()
    x, y = _data()

    def run(**recipe):
        r = FreezeRecipe(phase1_epochs=1, batch_size=16, **recipe)
        return stack_and_finetune(model, enc, (x, y), (x, y), r, strategy="stack_only").info["divergence"]

    assert run() == {"threshold": 0.05, "patience": 2}
    assert run(divergence=DEFAULT_DIVERGENCE) == {"threshold": 0.05, "patience": 2}
    assert run(divergence=None) is None
    with pytest.raises(TypeError, match="a dict of its arguments or None; got str"):
        run(divergence="paper")


def test_divergence_names_missing_metric():
    cb = DivergenceStopping(monitor="f1")
    cb.set_model(keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)]))
    with pytest.raises(KeyError, match="val_f1"):
        cb.on_epoch_end(0, {"loss": 1.0, "accuracy": 0.5})


def test_freeze_state_round_trip():
    d = keras.layers.Dense(2)
    d.build((None, 3))
    fs = FreezeState([d])
    fs.freeze()
    assert d.trainable_weights == [] and not d.trainable
    fs.unfreeze()
    assert len(d.trainable_weights) == 2


# --- errors ---------------------------------------------------------------------------------------


def test_bad_arguments_give_clear_errors():
    model, (enc,) = _dense_model()
    x, y = _data()

    def run(encoder=enc, y_train=y, y_dev=y, strategy="stack_and_finetune", **recipe):
        recipe = FreezeRecipe(**{"phase1_epochs": 1, "phase2_epochs": 1, **recipe})
        return stack_and_finetune(model, encoder, (x, y_train), (x, y_dev), recipe, strategy=strategy)

    with pytest.raises(ValueError, match="Did you mean 'stack_and_finetune'"):
        run(strategy="stack-and-finetune")
    with pytest.raises(ValueError, match="Unknown strategy 'freeze_all'"):
        run(strategy="freeze_all")
    other = keras.layers.Dense(3)
    other.build((None, 6))
    with pytest.raises(ValueError, match="not part of model"):
        run(encoder=other)
    with pytest.raises(ValueError, match="not a layer name"):
        run(encoder="bert")
    with pytest.raises(ValueError, match="class ids of shape"):
        run(y_train=np.stack([y, y], 1))
    with pytest.raises(ValueError, match="class ids of shape"):
        run(y_train=y + 0.5)
    with pytest.raises(ValueError, match="2 output logits"):
        run(y_dev=y + 1)
    with pytest.raises(ValueError, match="48 inputs but 47 labels"):
        run(y_train=y[:-1])
    with pytest.raises(TypeError, match="fresh optimizer"):
        run(optimizer=keras.optimizers.Adam())
    with pytest.raises(ValueError, match="phase1_epochs >= 1"):
        run(strategy="stack_only", phase1_epochs=0)
    with pytest.raises(ValueError, match="unfreeze must be"):
        run(unfreeze="sometimes")
    with pytest.raises(TypeError, match="recipe must be a kit.train.FreezeRecipe"):
        stack_and_finetune(model, enc, (x, y), (x, y), {"phase1_epochs": 1}, strategy="stack_only")
    enc.trainable = False
    with pytest.raises(ValueError, match="no trainable weights"):
        run()
    enc.trainable = True
    assert stack_and_finetune(
        model, "enc0", (x, y), (x, y), FreezeRecipe(phase1_epochs=1), strategy="stack_only"
    ).phases
