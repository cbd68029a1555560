"""Notebook 00's pictures and the diagram helpers (kit.analysis.pictures): each draws, labelled, from one call."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from kit.analysis import pictures
from tests.helpers import assert_readable, figure_texts

pytestmark = pytest.mark.one_backend


def test_wordpiece_picture_spells_the_word_and_labels_the_packed_rows():
    pair = ["[CLS]", "a", "film", "[SEP]", "fun", "[SEP]", "[PAD]"]
    fig = pictures.draw_wordpiece(["un", "##bel", "##ie", "##va", "##bly"], pair, [0, 0, 0, 0, 1, 1, 0], [1] * 6 + [0])
    assert_readable(fig, words=["'unbelievably' -> 5 pieces", "segment_ids", "padding_mask", "##bly", "[PAD]"])
    assert "".join(t.get_text() for t in fig.axes[0].texts if len(t.get_text()) == 1) == "unbelievably"
    assert [t.get_text() for t in fig.axes[1].texts][1:21:3] == ["0", "0", "0", "0", "1", "1", "0"]  # segment ids
    assert len(figure_texts(fig)) > 30


def test_finetuning_picture_names_every_step():
    fig = pictures.draw_finetuning(layers=3, encoder="tiny", dropout=0.2)
    assert_readable(fig, words=["3 layers (tiny)", "dropout 0.2", "softmax", "ClassifierHead (build_classifier)"])


def test_data_overview_draws_classes_from_zero_and_lengths_on_a_log_axis():
    from types import SimpleNamespace as NS

    ds = NS(name="toy", num_classes=3, label_names=["a", "b", "c"], train=NS(y=np.array([0, 1, 1, 2, 2, 2])))
    fig = pictures.draw_data_overview([ds], {"toy": [3, 5, 8, 40], "other": [100, 300]})
    bars, lengths = fig.axes
    assert [p.get_height() for p in bars.patches] == [1, 2, 3] and bars.get_ylim()[0] == 0
    assert lengths.get_xscale() == "log"
    assert [t.get_text() for t in lengths.get_legend().get_texts()] == ["toy", "other"]
    assert_readable(fig, words=["toy: train classes", "words per text", "examples"])


def test_finetune_result_draws_curves_and_bars_from_zero():
    history = {"accuracy": [0.6, 0.8], "val_accuracy": [0.7, 0.75], "loss": [0.7, 0.5], "val_loss": [0.6, 0.55]}
    scores = {"majority class (train)": 0.5, "tf-idf + linear": 0.7, "minilm-l6 fine-tuned": 0.8}
    fig = pictures.draw_finetune_result(history, "accuracy", scores, "test_accuracy", "1,000 training examples")
    curves, bars = fig.axes
    assert [len(line.get_xdata()) for line in curves.lines] == [2, 2] and bars.get_xlim()[0] == 0
    assert_readable(fig, words=["epoch", "test_accuracy", "1,000 training examples", "0.800", *scores])
    negative = pictures.draw_finetune_result(history, "loss", {"mean": 0.0, "model": -0.1}, "test_pearson", "t")
    assert negative.axes[1].get_xlim()[0] < -0.1  # a negative correlation stays in view


def test_box_and_arrow_join_two_boxes():
    fig, ax = plt.subplots()
    a, b = pictures.box(ax, 0, 0, "a"), pictures.box(ax, 1, 0, "b", color=pictures.COLORS["head"])
    pictures.arrow(ax, a, b)
    pictures.arrow(ax, (0, 1), (1, 1), linestyle="--")
    assert [t.get_text() for t in ax.texts] == ["a", "b", "", ""]
    assert_readable(fig, words=["a", "b"])


def test_a_raw_dict_in_a_title_is_found():
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    ax.set_title(f"at medium: {dict(target='5class')}")
    with pytest.raises(AssertionError, match="raw Python values"):
        assert_readable(fig)
