"""Training helper and timing on this backend."""

import keras
import numpy as np
import pandas as pd
import pytest

from kit.analysis import time_inference
from kit.text import WordVocab
from kit.train import FitRecipe, accuracy, fit_classifier, planned_steps
from kit.train.classify import repeat_index


def _toy(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 6)).astype("float32")
    y = (x[:, 0] > 0).astype("int32")
    return x, y


def _model():
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])


@pytest.mark.parametrize("schedule", ["constant", "linear"])
def test_fit_classifier_learns_and_keeps_best(schedule):
    x, y = _toy()
    m = _model()
    r = fit_classifier(m, (x, y), (x, y), FitRecipe(0.05, epochs=8, batch_size=8, schedule=schedule))
    assert r.best_dev_accuracy > 0.85
    assert accuracy(m, x, y) == pytest.approx(r.best_dev_accuracy, abs=1e-6)  # best weights restored
    assert r.steps == 8 * 5 and len(r.history["loss"]) <= 8


def test_the_best_dev_epoch_is_restored_when_later_epochs_are_worse():
    """Dev labels are the opposite of the training labels: the more the model learns, the worse dev gets,
    so the best dev epoch is the first, and its weights (not the last epoch's) must come back."""
    x, y = _toy(n=64)
    snapshots = []
    keep = keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: snapshots.append(m.get_weights()))
    m = _model()
    r = fit_classifier(m, (x, y), (x, 1 - y), FitRecipe(0.05, epochs=6, batch_size=8), callbacks=[keep])
    dev = r.history["val_accuracy"]
    assert r.best_epoch == int(np.argmax(dev)) and dev[-1] < dev[r.best_epoch] - 0.05, dev
    now = m.get_weights()
    assert all(np.array_equal(a, b) for a, b in zip(now, snapshots[r.best_epoch]))
    assert not all(np.array_equal(a, b) for a, b in zip(now, snapshots[-1]))
    assert accuracy(m, x, 1 - y) == pytest.approx(r.best_dev_accuracy, abs=1e-6)


def test_regression_targets():
    """Float targets (kit.data.read makes them) train with MSE on one output and stop on dev loss."""
    from kit.train import regression_scores

    x, _ = _toy(n=80)
    y = (2 * x[:, 0] - x[:, 1]).astype("float32")
    keras.utils.set_random_seed(0)
    m = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
    r = fit_classifier(m, (x, y), (x, y), FitRecipe(0.02, epochs=30, batch_size=16))
    assert r.monitor == "val_loss" and r.best_dev < 0.2 * y.var()
    scores = regression_scores(m, x, y)
    assert scores["pearson"] > 0.9 and scores["mse"] == pytest.approx(r.best_dev, rel=1e-3)
    with pytest.raises(AttributeError, match="regression"):
        _ = r.best_dev_accuracy
    with pytest.raises(ValueError, match="model has 2 outputs"):
        fit_classifier(_model(), (x, y), (x, y), FitRecipe(0.1, epochs=1, batch_size=8))


@pytest.mark.parametrize("label", ["stars", "score"])
def test_a_file_read_by_kit_data_read_trains_on_this_backend(tmp_path, label):
    """The labels kit.data.read makes (int32 class ids, float32 scores) train as they are, texts through WordVocab."""
    from kit.data import Columns, read

    words = ["awful", "bad", "fine", "good", "great"]
    rows = [(f"{words[i % 5]} film, part {i}\nthe end", 1 + i % 5, (i % 5) / 4) for i in range(100)]
    pd.DataFrame(rows, columns=["review", "stars", "score"]).to_csv(tmp_path / "mine.csv", index=False)
    ds = read(tmp_path / "mine.csv", Columns(text="review", label=label), verbose=False)
    assert ds.task == ("classification" if label == "stars" else "regression")
    vocab = WordVocab.fit(ds.train.texts)
    x, dev = (vocab.encode(s.texts, 8).astype("float32") for s in (ds.train, ds.dev))
    keras.utils.set_random_seed(0)
    m = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(5 if label == "stars" else 1)]
    )
    r = fit_classifier(m, (x, ds.train.y), (dev, ds.dev.y), FitRecipe(0.02, epochs=3, batch_size=16))
    assert r.steps == 3 * 5 and r.monitor == ("val_accuracy" if label == "stars" else "val_loss")


@pytest.mark.parametrize("policy", ["mixed_bfloat16", "mixed_float16"])
def test_fit_classifier_under_mixed_precision(policy):
    x, y = _toy(n=64)
    keras.config.set_dtype_policy(policy)
    try:
        m = _model()
        r = fit_classifier(m, (x, y), (x, y), FitRecipe(0.05, epochs=6, batch_size=8))
    finally:
        keras.config.set_dtype_policy("float32")
    assert m.layers[0].compute_dtype == policy.split("_")[1] and m.layers[0].kernel.dtype == "float32"
    assert np.isfinite(r.history["loss"]).all() and r.best_dev_accuracy > 0.8


def test_min_steps_repeats_tiny_sets():
    x, y = _toy(n=4)
    batches = []
    count = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batches.append(b))
    r = fit_classifier(
        _model(), (x, y), (x, y), FitRecipe(0.01, epochs=2, batch_size=4, min_steps=20), callbacks=[count]
    )
    assert r.steps == len(batches) == 20
    # 29 batches of 900 are topped up to 30, not doubled to 57 (the old whole-set repeat)
    assert planned_steps(900, epochs=1, batch_size=32, min_steps=30) == 30
    assert planned_steps(900, epochs=3, batch_size=32, min_steps=30) == 87  # enough already: no repeat
    idx = repeat_index(900, epochs=1, batch_size=32, min_steps=30, seed=0)
    assert len(idx) == 960 and set(np.bincount(idx, minlength=900)) == {1, 2}
    assert repeat_index(900, epochs=3, batch_size=32, min_steps=30) is None


def test_fit_classifier_errors():
    x, y = _toy()
    recipe = FitRecipe(learning_rate=0.1, epochs=1, batch_size=4)
    with pytest.raises(ValueError, match="training split is empty"):
        fit_classifier(_model(), (x[:0], y[:0]), (x, y), recipe)
    with pytest.raises(ValueError, match="dev split is empty"):
        fit_classifier(_model(), (x, y), (x[:0], y[:0]), recipe)
    with pytest.raises(ValueError, match="schedule must be"):
        FitRecipe(learning_rate=0.1, epochs=1, batch_size=4, schedule="cosine")
    with pytest.raises(ValueError, match="epochs and batch_size must be >= 1"):
        FitRecipe(learning_rate=0.1, epochs=0, batch_size=4)
    with pytest.raises(TypeError, match="recipe must be a kit.train.FitRecipe"):
        fit_classifier(_model(), (x, y), (x, y), {"learning_rate": 0.1, "epochs": 1, "batch_size": 4})


def test_time_inference_reports_context():
    m = _model()
    row = time_inference(m, _toy()[0], repeats=3)
    assert row["backend"] == keras.backend.backend() and row["batch_size"] == 40
    assert row["median_ms"] > 0 and row["min_ms"] <= row["median_ms"] <= row["max_ms"]
    assert row["compiled"] == (keras.backend.backend() in ("jax", "tensorflow"))
    assert time_inference(m, _toy()[0], repeats=2, compiled=False)["compiled"] is False


def test_word_vocab():
    v = WordVocab.fit(["the film is good", "the film is bad", "the end"], max_size=6)
    assert len(v) == 6 and v.words[:3] == ["[PAD]", "[UNK]", "the"]
    ids = v.encode(["the film is great and long", ""], sequence_length=4)
    assert ids.shape == (2, 4) and ids[0].tolist()[:2] == [2, v.index["film"]] and ids[1].sum() == 0
    assert 0 < v.coverage(["the film is great"]) < 1
    with pytest.raises(ValueError, match="no texts"):
        WordVocab.fit([])


def test_glove_table_for_a_word_vocabulary():
    from kit.models import glove_table

    v = WordVocab(["good", "great", "banana", "zzqxv"])
    table, found = glove_table(v)
    assert table.shape == (6, 50) and found == 3 and not table[0].any()
    cos = lambda a, b: float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))  # noqa: E731
    assert cos(table[2], table[3]) > cos(table[2], table[4]) + 0.3  # good~great, not good~banana


def test_training_flops_as_tlm_counts():
    from kit.analysis import format_flops, training_flops, training_tokens

    # 1,000 steps of 32 x 128 tokens through a 110M-parameter model
    assert training_flops(training_tokens(1000, 32, 128), 110e6) == 6 * 1000 * 32 * 128 * 110e6
    assert format_flops(2.7e19) == "2.7e19"
    with pytest.raises(ValueError, match="must be >= 0"):
        training_flops(-1, 10)
