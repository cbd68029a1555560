"""Notebook 01's exercise helpers (kit/papers/pretrain_or_not/pretrain_or_not_exercises.py) and its figures' axes."""

from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest

import kit
import kit.papers
from kit.papers.pretrain_or_not import pretrain_or_not_exercises as ex
from kit.papers.pretrain_or_not import pretrain_or_not_report as report

matplotlib.use("Agg")
pytestmark = pytest.mark.one_backend  # a notebook's plumbing: the LSTM it trains is tested on every backend elsewhere

TEXTS = ["a good film", "a bad film", "good fun", "bad acting", "very good", "very bad"] * 4
LABELS = np.array([1, 0] * 12)


def _ds():
    split = SimpleNamespace(texts=TEXTS[:8], y=LABELS[:8])
    return SimpleNamespace(train=SimpleNamespace(texts=TEXTS, y=LABELS), dev=split, test=split, num_classes=2)


def test_the_recipe_is_the_papers_and_shorter_at_smoke():
    sizes = kit.papers.sizes("pretrain_or_not", "smoke")  # LSTMs: 10 epochs of batch 64, >= 60 updates
    full = ex.lstm_recipe(sizes, smoke=False)
    assert (full.learning_rate, full.epochs, full.batch_size, full.schedule) == (1e-3, 10, 64, "constant")
    short = ex.lstm_recipe(sizes, smoke=True)
    assert (short.epochs, short.batch_size, short.min_steps, short.patience) == (2, 32, 30, 2)
    assert sizes["lstm_epochs"] == 10  # the scale's sizes are not changed


def test_the_first_n_and_both_readings_of_the_splits():
    ds = _ds()
    texts, y = ex.first(ds, 3)
    assert texts == TEXTS[:3] and y.tolist() == [1, 0, 1]
    vocab, x = ex.word_inputs(ds, texts, 4)
    assert set(x) == {"train", "dev", "test"} and x["train"].shape == (3, 4) and x["dev"].shape == (8, 4)
    assert vocab.coverage(["a good film"]) == 1.0 and vocab.coverage(["acting"]) == 0.0  # fitted on the 3 only
    lengths = ex.encode(ds, texts, lambda t: [len(s) for s in t])
    assert lengths["train"] == [len(s) for s in texts] and len(lengths["test"]) == 8


def test_fit_lstm_trains_one_lstm_and_scores_it():
    ds = _ds()
    s = ex.Setup({"embedding_dim": 8, "lstm_sizes": [[1, 4]]}, ds, [24], 4, True)
    vocab, x = ex.word_inputs(ds, TEXTS, 4)
    recipe = kit.train.FitRecipe(
        learning_rate=1e-2, epochs=1, batch_size=8, schedule="constant", min_steps=3, patience=1
    )
    acc = ex.fit_lstm(s, x, LABELS, len(vocab), recipe, seed=0)
    assert 0.0 <= acc <= 1.0 and acc * 8 == round(acc * 8)  # a share of the 8 test sentences


def test_figures_show_the_sizes_run_as_plain_ticks_and_the_constant_guess():
    specs = {"LSTM-2-64": ("lstm", 2, 64), "T": ("transformer", 3, None)}
    rows = [
        dict(model=m, train_examples=n, seed=k, metric="test_accuracy", value=v + k / 100)
        for m, v in (("LSTM-2-64", 0.6), ("T", 0.8))
        for n in (250, 2250)
        for k in range(3)
    ]
    results = pd.DataFrame(rows)
    stats = report.accuracy_stats(results)
    fig = report.figure1(stats, report.gaps(stats, specs, [250, 2250]), specs, [250, 2250], "d", guess=0.5)
    for ax in fig.axes:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["250", "2,250"]
        assert not ax.xaxis.get_minor_ticks() or not any(t.label1.get_visible() for t in ax.xaxis.get_minor_ticks())
    assert any(np.allclose(line.get_ydata(), 50.0) for line in fig.axes[0].get_lines())  # the guess, in %
    assert not fig.axes[0].get_legend() and fig.legends  # one legend for the figure, beside the panels
    one = results[(results.model == "T") & (results.seed == 0) & (results.train_examples == 250)]
    medium = pd.concat([results[results.model == "LSTM-2-64"], one])
    fig = report.scales_figure(
        [
            dict(results=results, specs=specs, guess=0.5, seeds=3, title="this run"),
            dict(results=medium, specs=specs, guess=0.45, seeds=3, title="medium"),
        ]
    )
    assert [t.get_text() for t in fig.axes[1].texts] == ["1 run"]  # fewer seeds than planned: said at the point
    assert "constant guess (45.0%)" in [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
