"""Notebook 01's pictures (pretrain_or_not_report.draw_*): each draws from one call, labelled, no raw values."""

import pytest

from kit.papers.pretrain_or_not import pretrain_or_not_report as report
from tests.helpers import assert_readable, figure_texts

pytestmark = pytest.mark.one_backend


def test_bilstm_picture_has_a_column_per_word_and_both_directions():
    fig = report.draw_bilstm(words=("a", "fine", "film"))
    texts = figure_texts(fig)
    assert sum(t.startswith("embedding $x_") for t in texts) == 3 and texts.count("LSTM →") == 3
    assert_readable(fig, words=["a\n(id)", "film\n(id)", "← LSTM", "max over time\n(2k values)", "logits"])


def test_token_table_picture_names_the_table_it_projects():
    fig = report.draw_token_table(vocabulary=50265, d=768, encoder="RoBERTa-Base", token=7)
    assert_readable(fig, words=["RoBERTa-Base's 50,265 x 768 table (d = 768)", "$x_t$ = 7", "projection, trained"])
