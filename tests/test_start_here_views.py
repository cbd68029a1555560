"""Notebook 00's "how it works" cells run, and their checks catch a change of the kit (issue 29, tests/views.py).

Each view computes a method by hand and asserts the kit computes the same. Here each view runs as it is (under the
current ``KERAS_BACKEND``), then again with the kit's implementation perturbed, where its check must fail.
"""

import functools
import math
import types
from pathlib import Path

import keras
import pytest

import kit
from tests import views

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "00_start_here.ipynb"
VIEWS = ("View: WordPiece", "View: the classification head", "View: one layer's multi-head self-attention")
MHA = keras.layers.MultiHeadAttention


def test_every_tagged_cell_runs_and_its_check_passes():
    cells = views.tagged_cells(NOTEBOOK)
    assert len(cells) == 6, [views.title(c) for c in cells]
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
@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_wordpiece_view_catches_a_changed_tokenizer(monkeypatch, changes):
    source = views.view(NOTEBOOK, "View: WordPiece")
    monkeypatch.setattr(kit.text.wordpiece, "models", _wordpiece_with(**changes))
    with pytest.raises(AssertionError):
        views.run(source)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_wordpiece_view_catches_a_lost_piece(monkeypatch):
    """A tokenizer whose output loses the last piece of a text."""
    source = views.view(NOTEBOOK, "View: WordPiece")
    call = kit.text.WordPieceTokenizer.__call__

    def drop_last_piece(self, texts):
        return [ids[:-1] for ids in call(self, texts)]

    monkeypatch.setattr(kit.text.WordPieceTokenizer, "__call__", drop_last_piece)
    with pytest.raises(AssertionError):
        views.run(source)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_head_view_catches_mean_pooling(monkeypatch):
    source = views.view(NOTEBOOK, "View: the classification head")
    monkeypatch.setattr(kit.models, "build_classifier", functools.partial(kit.models.build_classifier, pooling="mean"))
    with pytest.raises(AssertionError):
        views.run(source)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_head_view_catches_a_temperature(monkeypatch):
    source = views.view(NOTEBOOK, "View: the classification head")
    call = kit.models.ClassifierHead.call

    def hotter(self, x, training=None):
        return call(self, x, training=training) / 2.0

    monkeypatch.setattr(kit.models.ClassifierHead, "call", hotter)
    with pytest.raises(AssertionError):
        views.run(source)


# -- self-attention: the view computes layer 0's attention from its weights; the encoder's own must agree ---------


def _attention_fails(monkeypatch, name, replacement):
    """Run the attention view with ``keras.layers.MultiHeadAttention.<name>`` replaced; its check must fail."""
    source = views.view(NOTEBOOK, "multi-head self-attention")
    monkeypatch.setattr(MHA, name, replacement)
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        views.run(source)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_attention_view_catches_a_dropped_scale(monkeypatch):
    """Softmax(Q K^T) without the 1 / sqrt(d_h): Keras scales the queries, so scale them back up first."""
    compute = MHA._compute_attention

    def unscaled(self, query, key, value, *args, **kwargs):
        return compute(self, query * math.sqrt(self._key_dim), key, value, *args, **kwargs)

    _attention_fails(monkeypatch, "_compute_attention", unscaled)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_attention_view_catches_a_dropped_padding_mask(monkeypatch):
    softmax = MHA._masked_softmax
    _attention_fails(monkeypatch, "_masked_softmax", lambda self, scores, attention_mask=None: softmax(self, scores))


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_attention_view_catches_keys_and_queries_swapped(monkeypatch):
    compute = MHA._compute_attention

    def swapped(self, query, key, value, *args, **kwargs):
        return compute(self, key, query, value, *args, **kwargs)

    _attention_fails(monkeypatch, "_compute_attention", swapped)


def test_attention_picture_draws_one_call_into_the_kit():
    source = views.view(NOTEBOOK, "Picture: two of the encoder's attention heads")
    assert source.count("kit.analysis.draw_attention(") == 1
    code = [ln for ln in source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(code) <= 10, code


# -- the head's loss is the one fit_classifier trains and reports -------------------------------------------------


class _SummedCrossentropy(keras.losses.SparseCategoricalCrossentropy):
    """Cross-entropy summed over the batch instead of averaged."""

    def __init__(self, **kwargs):
        super().__init__(**{**kwargs, "reduction": "sum"})


class _ProbabilityCrossentropy(keras.losses.SparseCategoricalCrossentropy):
    """Cross-entropy that reads the logits as probabilities (``from_logits=False``)."""

    def __init__(self, **kwargs):
        super().__init__(**{**kwargs, "from_logits": False})


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
@pytest.mark.parametrize("loss", [_SummedCrossentropy, _ProbabilityCrossentropy], ids=["summed", "not-from-logits"])
def test_head_view_catches_another_loss_in_fit_classifier(monkeypatch, loss):
    source = views.view(NOTEBOOK, "View: the classification head")
    assert "kit.train.fit_classifier(" in source and 'fit.history["val_loss"]' in source
    monkeypatch.setattr(keras.losses, "SparseCategoricalCrossentropy", loss)  # what fit_classifier compiles with
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        views.run(source)
