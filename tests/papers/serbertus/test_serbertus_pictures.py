"""Notebook 04's pictures (serbertus_report): one call each, labelled, no raw dicts in the titles."""

import pandas as pd
import pytest

from kit.analysis import medium_results
from kit.papers import sizes
from kit.papers.serbertus import serbertus_report as report
from tests.helpers import assert_readable, figure_texts, overlapping_texts

pytestmark = pytest.mark.one_backend


def test_sharing_picture_shares_the_rows_each_architecture_shares():
    fig = report.draw_sharing(layers=4, k=1, tasks=("A", "B"))
    shared = [[t.get_text() for t in ax.texts if t.get_text().endswith("(shared)")] for ax in fig.axes]
    assert [len(s) for s in shared] == [6, 4, 0]  # multi-BERT: all but the heads; CerBERTus k=1: embeddings, 3 layers
    assert_readable(fig, words=["CerBERTus k = 1", "A\nlayer 3", "shared by the 2 tasks"])


def test_smart_and_layer_rate_pictures_are_labelled():
    assert_readable(report.draw_smart(), words=["R_s = KL(sg(q)‖p)\n+ KL(sg(p)‖q)", "e + δ\nδ: N(0, σ²), ascent"])
    fig = report.draw_layer_rates(layers=3, decays=(0.5,))
    assert [p.get_height() for p in fig.axes[0].patches] == [0.125, 0.25, 0.5, 1.0, 1.0]  # emb, 0, 1, 2, head
    assert_readable(fig, words=["xi = 0.5", "rate / base rate eta", "emb"])


def _smoke():
    sets = [
        ("baseline", "single-task", "sst"),
        ("smart", "lambda_s=10", "sst"),
        ("baseline", "single-task", "qqp"),
        ("baseline", "single-task", "sts"),
        ("architecture", "multi-BERT", "sst+qqp+sts"),
    ]
    return pd.DataFrame(
        [
            dict(
                experiment=e,
                setting=s,
                task=t,
                seed=i,
                value=0.6 + i / 100,
                metric="test_mean" if "+" in t else "test_score",
            )
            for e, s, t in sets
            for i in range(3)
        ]
    )


def test_scales_figure_has_no_dict_in_a_title_and_labels_apart():
    medium_sizes = sizes("serbertus", "medium")
    about = {"sst": "sst (rt_snippets)", "qqp": "qqp (wordnet_pairs)", "sts": "sts (amazon_snippets)"}
    guesses = {"smoke": {"sst": 0.5, "qqp": 0.5, "sts": 0.0}, "medium": {"sst": 0.356, "qqp": 0.5}}  # no sts: no line
    kinds = {"sst": "classification", "qqp": "pairs", "sts": "regression"}
    fig = report.scales_figure(_smoke(), medium_results("04"), guesses, about, medium_sizes["tasks"], 70, kinds)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "sst (rt_snippets); at medium: rt_snippets (target=5class)"
    assert titles[-1] == "the multitask runs, mean of the three tasks"
    assert "baseline: single-task" in figure_texts(fig) and "smart: lambda_s=10" in figure_texts(fig)
    assert_readable(fig, words=["test Pearson × 100", "of its 70 planned runs"])
    assert all(overlapping_texts(ax) == [] for ax in fig.axes)
    assert report.options_text({}) == "" and report.options_text({"unrelated": 2}) == "unrelated=2"
