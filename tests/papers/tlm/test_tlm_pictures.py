"""Notebook 02's pictures (tlm_report): each draws from one call, labelled, no raw dicts, labels apart."""

import numpy as np
import pandas as pd
import pytest

from kit.analysis import medium_results
from kit.papers.tlm import tlm_report as report
from tests.helpers import assert_readable, figure_texts, overlapping_texts

pytestmark = pytest.mark.one_backend


def test_the_how_it_works_pictures_are_labelled():
    assert_readable(report.draw_data_step(long_text_words=100, n_keywords=5), words=["its 5 RAKE phrases\nif over 100"])
    fig = report.draw_bm25_saturation(k1=2.0, b=0.5, ratios=(1.0, 3.0))
    assert [len(line.get_xdata()) for line in fig.axes[0].lines][:2] == [11, 11]
    assert_readable(fig, words=["dl / avgdl = 3  (K = 4.00)", "k1 = 2.0, b = 0.5", "tf / (tf + K)"])
    fig = report.draw_masking(mask_rate=0.2, mask_token_rate=0.7, random_token_rate=0.2)
    assert_readable(fig, words=["target: 20%", "[MASK]: 70%", "kept\nas is 10%", "never a special token"])
    fig = report.draw_stream(rho1=2, rho2=10, steps=6)
    heights = [p.get_height() for p in fig.axes[0].patches]
    assert heights[:4] == pytest.approx([10 / 11, 1 / 11, 1.0, 0.0])  # an internal batch, then an external one
    assert_readable(fig, words=["MLM 10/11\ntask 1/11", "rho1 = 2", "loss weight"])


def test_collapse_picture_has_three_legend_entries():
    fig = report.draw_collapse(report.collapse_probe(), medium_results("02"))
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert len(labels) == 3 and any("medium GPU runs" in t for t in labels)
    assert_readable(fig, words=["MLM loss: bias 0 (red) vs unigram prior (blue)"])


def _smoke():
    """Long results as notebook 02's smoke run writes them: three seeds of each setting, the baseline too."""
    settings = [
        ("tlm", "bm25", 8, 3, 20),
        ("tlm", "random", 8, 3, 20),
        ("tlm", "none", 0, 0, 20),
        ("minilm_finetuned", "-", 0, 0, 0),
    ]
    rows = [
        dict(zip(report.SCALE_KEYS, (e, "bbc_news", r, k, r1, r2)), seed=s, metric="test_accuracy", value=v)
        for (e, r, k, r1, r2), v in zip(settings, (0.8, 0.84, 0.74, 0.88))
        for s in range(3)
    ]
    return pd.DataFrame(rows).assign(value=lambda f: f.value + np.arange(len(f)) % 3 / 100)


def test_scales_figure_reads_like_prose():
    fig = report.scales_figure(_smoke(), medium_results("02"), {"bbc_news": 0.23}, "smoke")
    texts = figure_texts(fig)
    assert "TLM: BM25, K=8, rho1=3, rho2=20" in texts and "TLM: task data only, rho2=20" in texts
    assert not any(" | " in t for t in texts)  # no raw keys joined by bars
    assert "a medium run" in texts and any("stuck at the majority class" in t for t in texts)
    assert_readable(fig, words=["minilm fine-tuned (the baseline)", "not run at medium", "test accuracy (%)"])
    assert all(overlapping_texts(ax) == [] for ax in fig.axes)
    alone = report.scales_figure(_smoke(), None, {"bbc_news": 0.23}, "smoke")  # an installed kit: no medium file
    assert "after 0 runs" in alone._suptitle.get_text()
