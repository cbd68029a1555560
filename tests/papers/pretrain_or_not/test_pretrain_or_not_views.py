"""Notebook 01's "how it works" cells (issue 29): each runs on its own and its check catches a change of the kit.

The views compute the BiLSTM classifier and the projected pretrained token table by hand and assert them equal to
``kit.models.build_lstm_classifier`` and ``kit.models.PretrainedTokenEmbedding``; each test below perturbs the kit
where it looks the name up and shows that the view's check fails.
"""

from pathlib import Path

import keras
import numpy as np
import pytest

import kit
from kit.models import bilstm, lstm_classifier
from kit.models.heads import classifier
from tests import views

NOTEBOOK = Path(__file__).resolve().parents[3] / "notebooks" / "01_pretrain_or_not.ipynb"
TITLES = [views.title(c) for c in views.tagged_cells(NOTEBOOK)]
MISMATCH = "Not equal to tolerance|Arrays are not equal"  # what numpy.testing says when a check fails


def test_the_notebook_has_two_views_and_two_pictures():
    assert sum(t.startswith("View:") for t in TITLES) == 2
    assert sum(t.startswith("Picture:") for t in TITLES) == 2


@pytest.mark.parametrize("title", TITLES)
def test_every_tagged_cell_runs_and_its_check_passes(title):
    source = views.view(NOTEBOOK, title)
    assert source.lstrip().splitlines()[1].strip() == "import kit", "a tagged cell imports kit first"
    views.run(source, title)


# -- the LSTM cell and the BiLSTM classifier -------------------------------------------------------------------------
def _lstm_view():
    return views.view(NOTEBOOK, "LSTM cell")


def _wrap_encoder(monkeypatch, change):
    """Let ``BiLSTMEncoder.call`` return ``change(self, pooled)`` instead of its pooled states."""
    call = bilstm.BiLSTMEncoder.call

    def perturbed(self, x, mask=None, training=None):
        return change(self, call(self, x, mask=mask, training=training))

    monkeypatch.setattr(bilstm.BiLSTMEncoder, "call", perturbed)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_lstm_view_catches_mean_pooling_instead_of_max(monkeypatch):
    monkeypatch.setattr(bilstm, "masked_max", bilstm.masked_mean)  # where BiLSTMEncoder.call looks it up
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_lstm_view())


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_lstm_view_catches_a_dropped_backward_direction(monkeypatch):
    def forward_only(self, pooled):
        keep = np.concatenate([np.ones(self.cells), np.zeros(self.cells)]).astype("float32")
        return pooled * keras.ops.convert_to_tensor(keep)

    _wrap_encoder(monkeypatch, forward_only)
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_lstm_view())


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_lstm_view_catches_swapped_directions(monkeypatch):
    def swapped(self, pooled):
        return keras.ops.concatenate([pooled[:, self.cells :], pooled[:, : self.cells]], axis=-1)

    _wrap_encoder(monkeypatch, swapped)
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_lstm_view())


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_lstm_view_catches_a_shifted_head(monkeypatch):
    call = classifier.ClassifierHead.call
    monkeypatch.setattr(classifier.ClassifierHead, "call", lambda self, x, training=None: call(self, x) + 0.01)
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_lstm_view())


def test_the_lstm_view_checks_the_kit_and_not_itself():
    """The unperturbed view passes, and it reads the kit's weights (the check is against ``model(ids)``)."""
    source = _lstm_view()
    assert "kit.models.build_lstm_classifier" in source and "model(ids)" in source
    names = views.run(source)
    assert names["logits"].shape == (2,)


# -- the projected pretrained token table ----------------------------------------------------------------------------
def _table_view():
    return views.view(NOTEBOOK, "projected pretrained token table")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_table_view_catches_a_dropped_projection_bias(monkeypatch):
    call = lstm_classifier.PretrainedTokenEmbedding.call
    monkeypatch.setattr(
        lstm_classifier.PretrainedTokenEmbedding,
        "call",
        lambda self, token_ids: call(self, token_ids) - self.projection.bias,
    )
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_table_view())


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_table_view_catches_an_off_by_one_lookup(monkeypatch):
    def shifted(self, token_ids):
        ids = keras.ops.minimum(keras.ops.convert_to_tensor(token_ids) + 1, self.vocabulary_size - 1)
        return self.projection(self.table(ids))

    monkeypatch.setattr(lstm_classifier.PretrainedTokenEmbedding, "call", shifted)
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_table_view())


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_table_view_catches_padding_left_unmasked(monkeypatch):
    monkeypatch.setattr(
        lstm_classifier.PretrainedTokenEmbedding,
        "compute_mask",
        lambda self, token_ids, mask=None: keras.ops.ones(keras.ops.shape(token_ids), dtype="bool"),
    )
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_table_view())


def test_the_table_view_uses_the_kit_layer():
    assert kit.models.PretrainedTokenEmbedding is lstm_classifier.PretrainedTokenEmbedding
    names = views.run(_table_view())
    assert names["view"].shape == (3, 3)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_table_view_catches_a_table_that_trains(monkeypatch):
    """A layer built with the table trainable: one training step moves it, and the view's check says so."""
    init = lstm_classifier.PretrainedTokenEmbedding.__init__
    monkeypatch.setattr(
        lstm_classifier.PretrainedTokenEmbedding,
        "__init__",
        lambda self, *a, **k: init(self, *a, **{**k, "trainable_table": True}),
    )
    with pytest.raises(AssertionError, match=MISMATCH):
        views.run(_table_view())


def test_table_view_trains_a_step_and_reads_the_layers_own_table():
    source = _table_view()
    assert "train_on_batch" in source and "layer.table.embeddings" in source
    names = views.run(source)
    assert not np.allclose(names["W_after"], names["W_p"])  # the step moved the projection
