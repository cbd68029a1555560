"""Notebook 03's pictures (stack_and_finetune_report): one call each, labelled, the scales' tasks explained."""

import pandas as pd
import pytest

from kit.analysis import medium_results
from kit.papers.stack_and_finetune import stack_and_finetune_report as report
from kit.papers.stack_and_finetune.stack_and_finetune_sizes import MEDIUM_ON_RECORD
from tests.helpers import assert_readable, figure_texts, overlapping_texts

pytestmark = pytest.mark.one_backend


def test_the_how_it_works_pictures_are_labelled():
    assert_readable(report.draw_strategies(), words=["stack-and-finetune", "phase 1: $\\eta_1$", "encoder frozen"])
    fig = report.draw_recompile()
    assert_readable(
        fig,
        words=[
            "compile: T = {head}",
            "recompile, fresh optimizer: T = {encoder, head}",
            "trainable flipped,\nno recompile",
            "encoder not updated",
            "ValueError",
        ],
    )
    assert overlapping_texts(fig.axes[0]) == []
    assert_readable(report.draw_highway(), words=["BiLSTM$(x)_t$", "max over\ntokens"])
    fig = report.draw_full_matching(steps=3)
    assert "$q_N = q_3$" in " ".join(figure_texts(fig)) and sum("\\in \\mathbb" in t for t in figure_texts(fig)) == 3


def test_a_panel_says_why_the_scales_ran_other_tasks():
    plan = {"brown_pos": "tagging", "brown_entities": "tagging", "bbc": "classification"}
    assert report.same_tasks_note(["brown_entities"], ["brown_entities"], list(plan)) == ""
    assert report.same_tasks_note(["bbc"], [], ["bbc"]) == ""  # medium has none: the panel says "not reached"
    assert "yahoo is not in medium's plan" in report.same_tasks_note(["yahoo"], ["bbc"], ["bbc"])


def _smoke():
    runs = [
        ("brown_entities", "light", "finetune_only", "token_accuracy"),
        ("brown_entities", "bilstm", "stack_and_finetune", "token_accuracy"),
        ("bbc_business_politics", "densenet", "stack_only", "accuracy"),
        ("wordnet_pairs", "bimpm", "stack_only", "accuracy"),
    ]
    rows = [
        dict(task=t, model=m, strategy=s, seed=i, metric=k, value=0.8 + i / 100)
        for t, m, s, k in runs
        for i in range(3)
    ]
    return pd.DataFrame(rows)


def test_scales_figure_puts_the_same_task_side_by_side_or_says_why_not():
    plan = MEDIUM_ON_RECORD  # the tasks the medium run on record planned
    sections = {"tagging": ["brown_entities"], "classification": ["bbc_business_politics"], "pairs": ["wordnet_pairs"]}
    guesses = {"tagging": 0.96, "classification": 0.55, "pairs": 0.5}
    fig = report.scales_figure(_smoke(), medium_results("03"), sections, plan, guesses, "this run (smoke, torch)")
    titles = [ax.get_title() for ax in fig.axes]
    assert "this run: brown_entities, medium: brown_pos" in titles[0]
    assert "medium stopped before its brown_entities runs" in titles[0]
    assert titles[1].endswith("not reached at medium")
    assert "brown_entities: bilstm, stack-and-finetune" in figure_texts(fig)
    assert_readable(fig, words=["brown_pos: light, finetune-only", "test token_accuracy (%)"])
    assert all(overlapping_texts(ax) == [] for ax in fig.axes)
    one_kind = report.scales_figure(_smoke(), None, {"tagging": ["brown_entities"]}, plan, {}, "your own data")
    assert len(one_kind.axes) == 1
