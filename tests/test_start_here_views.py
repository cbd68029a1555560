"""Notebook 00's "how it works" cells run, and their checks catch a change of the kit (issue 29, tests/views.py).

Each view computes a method by hand and asserts the kit computes the same. Here each view runs as it is (under the
current ``KERAS_BACKEND``), then again with the kit's implementation perturbed, where its check must fail.
"""

import functools
import types
from pathlib import Path

import pytest

import kit
from tests import views

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "00_start_here.ipynb"
VIEWS = ("View: WordPiece", "View: the classification head")


def test_every_tagged_cell_runs_and_its_check_passes():
    cells = views.tagged_cells(NOTEBOOK)
    assert len(cells) == 4, [views.title(c) for c in cells]
    for cell in cells:
        views.run("".join(cell["source"]), name=views.title(cell))


def _wordpiece_with(**changes):
    """The ``tokenizers.models`` module the kit's WordPieceTokenizer uses, with its WordPiece model built otherwise."""
    real = kit.text.wordpiece.models
    return types.SimpleNamespace(WordPiece=lambda *a, **kw: real.WordPiece(*a, **{**kw, **changes}))


@pytest.mark.parametrize(
    "changes",
    [
        {"continuing_subword_prefix": "@@"},  # another continuation mark: "##" pieces never match, words go [UNK]
        {"max_input_chars_per_word": 8},  # a shorter word limit: "embeddings", "unbelievably" become [UNK]
    ],
    ids=["continuation-prefix", "word-length-limit"],
)
def test_wordpiece_view_catches_a_changed_tokenizer(monkeypatch, changes):
    source = views.view(NOTEBOOK, "View: WordPiece")
    monkeypatch.setattr(kit.text.wordpiece, "models", _wordpiece_with(**changes))
    with pytest.raises(AssertionError):
        views.run(source)


def test_wordpiece_view_catches_a_lost_piece(monkeypatch):
    """A tokenizer whose output loses the last piece of a text."""
    source = views.view(NOTEBOOK, "View: WordPiece")
    call = kit.text.WordPieceTokenizer.__call__

    def drop_last_piece(self, texts):
        return [ids[:-1] for ids in call(self, texts)]

    monkeypatch.setattr(kit.text.WordPieceTokenizer, "__call__", drop_last_piece)
    with pytest.raises(AssertionError):
        views.run(source)


def test_head_view_catches_mean_pooling(monkeypatch):
    source = views.view(NOTEBOOK, "View: the classification head")
    monkeypatch.setattr(kit.models, "build_classifier", functools.partial(kit.models.build_classifier, pooling="mean"))
    with pytest.raises(AssertionError):
        views.run(source)


def test_head_view_catches_a_temperature(monkeypatch):
    source = views.view(NOTEBOOK, "View: the classification head")
    call = kit.models.ClassifierHead.call

    def hotter(self, x, training=None):
        return call(self, x, training=training) / 2.0

    monkeypatch.setattr(kit.models.ClassifierHead, "call", hotter)
    with pytest.raises(AssertionError):
        views.run(source)
