"""Notebook 02's "how it works" cells (issue 29): each runs, and each view's check fails when the kit changes.

Every view computes a method by hand and asserts that the kit computes the same; these tests perturb the kit's
implementation (a constant, a swapped term, a changed default) where the kit looks it up and show that the notebook's
check catches it.
"""

import dataclasses
from pathlib import Path

import keras
import numpy as np
import pytest

from kit import train
from kit.papers.tlm import tlm_report
from kit.retrieval import bm25, external, keywords
from kit.text.masking import MLMMasker
from kit.train import mlm_prior
from kit.train.tlm_training import TLMBatches
from tests import views

NOTEBOOK = Path(__file__).resolve().parents[3] / "notebooks" / "02_tlm.ipynb"
VIEWS = ("query by hand", "BM25 by hand", "MLM masking by hand", "joint loss", "unigram prior by hand")


@pytest.mark.parametrize("cell", views.tagged_cells(NOTEBOOK), ids=views.title)
def test_every_tagged_cell_runs(cell):
    views.run("".join(cell["source"]), views.title(cell))


def test_the_five_views_and_their_pictures_are_there():
    titles = [views.title(c) for c in views.tagged_cells(NOTEBOOK)]
    assert sum(t.startswith("View:") for t in titles) == 5
    assert sum(t.startswith("Picture:") for t in titles) == 5
    for word in VIEWS:
        assert views.view(NOTEBOOK, word).startswith("# View:")


def _fails(word):
    with pytest.raises(AssertionError):
        views.run(views.view(NOTEBOOK, word))


# -- queries (RAKE) ------------------------------------------------------------------------------------------------


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_query_view_catches_a_changed_word_limit(monkeypatch):
    monkeypatch.setattr(external.make_queries, "__defaults__", (100, 10))  # the text is no longer "long"
    _fails("query by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_query_view_catches_a_changed_stopword_list(monkeypatch):
    stop = keywords.english_stopwords()
    monkeypatch.setattr(keywords, "english_stopwords", lambda: frozenset(stop - {"the", "and"}))
    _fails("query by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_query_view_catches_a_changed_ranking(monkeypatch):
    rake = keywords.rake_keywords
    monkeypatch.setattr(external, "rake_keywords", lambda text, n=10, max_words=4: rake(text, n, max_words)[::-1])
    _fails("query by hand")


# -- BM25 ---------------------------------------------------------------------------------------------------------


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_bm25_view_catches_okapis_term_weight(monkeypatch):
    weights = bm25._weights
    monkeypatch.setattr(bm25, "_weights", lambda method, *a: weights("okapi" if method == "lucene" else method, *a))
    _fails("BM25 by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_bm25_view_catches_an_idf_without_the_one(monkeypatch):
    monkeypatch.setattr(bm25, "_idf", lambda method, df, n, eps: np.log((n - df + 0.5) / (df + 0.5)))
    _fails("BM25 by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_bm25_view_catches_a_length_norm_with_b_swapped(monkeypatch):
    weights = bm25._weights
    monkeypatch.setattr(
        bm25, "_weights", lambda m, tf, dl, avgdl, idf, k1, b, d: weights(m, tf, dl, avgdl, idf, k1, 1 - b, d)
    )
    _fails("BM25 by hand")


# -- MLM masking --------------------------------------------------------------------------------------------------


def _patched_init(monkeypatch, **changes):
    init = MLMMasker.__init__

    def wrong(self, *args, **kwargs):
        init(self, *args, **kwargs)
        for name, value in changes.items():
            setattr(self, name, value)

    monkeypatch.setattr(MLMMasker, "__init__", wrong)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_mlm_view_catches_a_changed_default_mask_rate(monkeypatch):
    init = MLMMasker.__init__
    monkeypatch.setattr(MLMMasker, "__init__", lambda self, *a, **k: init(self, *a, **{"mask_rate": 0.25, **k}))
    _fails("MLM masking by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_mlm_view_catches_masking_every_target(monkeypatch):
    _patched_init(monkeypatch, mask_token_rate=1.0, random_token_rate=0.0)  # no random tokens, none kept
    _fails("MLM masking by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_mlm_view_catches_another_mask_token(monkeypatch):
    _patched_init(monkeypatch, mask_token_id=5)
    _fails("MLM masking by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_mlm_view_catches_random_tokens_drawn_from_the_whole_vocabulary(monkeypatch):
    init = MLMMasker.__init__

    def whole(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._random_pool = np.arange(self.vocabulary_size)  # BERT's draw: [PAD], [CLS], [MASK] ... too

    monkeypatch.setattr(MLMMasker, "__init__", whole)
    _fails("MLM masking by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_mlm_view_catches_a_masker_without_the_cap(monkeypatch):
    _patched_init(monkeypatch, max_predictions=40)  # every sentence gets its 15%, long ones more than P
    _fails("MLM masking by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_mlm_view_catches_special_tokens_as_targets(monkeypatch):
    _patched_init(monkeypatch, special_token_ids=[4])  # only [MASK] excluded: [CLS], [SEP] and [PAD] become targets
    _fails("MLM masking by hand")


def test_mlm_view_masks_enough_tokens_to_see_the_shares():
    names = views.run(views.view(NOTEBOOK, "MLM masking by hand"))
    assert names["kit_targets"].sum() >= 5000  # a standard error of 0.6 points on the 80%: the 2-point tolerance holds


# -- the joint loss -----------------------------------------------------------------------------------------------


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_joint_view_catches_the_unnormalised_internal_loss(monkeypatch):
    init = TLMBatches.__init__

    def wrong(self, task, external, masker, recipe, **kwargs):
        init(self, task, external, masker, dataclasses.replace(recipe, normalize_internal=False), **kwargs)

    monkeypatch.setattr(TLMBatches, "__init__", wrong)
    _fails("joint loss")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_joint_view_catches_a_shifted_stream(monkeypatch):
    kind = TLMBatches.kind
    monkeypatch.setattr(TLMBatches, "kind", lambda self, i: kind(self, i + 1))
    _fails("joint loss")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_joint_view_catches_swapped_internal_weights(monkeypatch):
    init = TLMBatches.__init__

    def wrong(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.internal_weights = self.internal_weights[::-1]  # the task gets rho2 / (rho2 + 1)

    monkeypatch.setattr(TLMBatches, "__init__", wrong)
    _fails("joint loss")


# -- the MLM head's unigram prior -----------------------------------------------------------------------------------


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_prior_view_catches_another_smoothing(monkeypatch):
    monkeypatch.setattr(mlm_prior.unigram_log_prior, "__defaults__", ((), 1.0))
    _fails("unigram prior by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_prior_view_catches_counted_special_tokens(monkeypatch):
    prior = mlm_prior.unigram_log_prior
    monkeypatch.setattr(
        train, "unigram_log_prior", lambda inputs, v, special=(), smoothing=0.5: prior(inputs, v, (), smoothing)
    )
    _fails("unigram prior by hand")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_prior_view_catches_a_prior_that_is_not_written(monkeypatch):
    monkeypatch.setattr(train, "set_mlm_prior", lambda model, log_prior: None)
    _fails("unigram prior by hand")


def test_collapse_picture_reads_the_committed_probe():
    probe = tlm_report.collapse_probe()
    assert probe is not None and {"zero", "unigram"} <= set(probe.prior)
    assert {"step", "mlm_loss", "token_state_cosine", "model", "seed"} <= set(probe.columns)


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_joint_view_catches_an_mlm_mean_over_every_slot(monkeypatch):
    """The MLM loss averaged over all P slots of a batch (the empty ones too) instead of over its masked tokens."""
    item = TLMBatches.__getitem__

    def over_slots(self, i):
        x, y, w = item(self, i)
        slots = w["mlm"] > 0
        return x, y, {**w, "mlm": np.where(slots, w["mlm"].max() * slots.mean(), 0.0).astype("float32")}

    monkeypatch.setattr(TLMBatches, "__getitem__", over_slots)
    _fails("joint loss")


@pytest.mark.one_backend  # the kit perturbed: the check's logic, the same on every backend
def test_joint_view_catches_losses_summed_over_the_batch(monkeypatch):
    class Summed(keras.losses.SparseCategoricalCrossentropy):
        def __init__(self, **kwargs):
            super().__init__(**{**kwargs, "reduction": "sum"})

    monkeypatch.setattr(keras.losses, "SparseCategoricalCrossentropy", Summed)  # what compile_stage1 compiles with
    _fails("joint loss")


def test_joint_view_checks_the_loss_not_only_the_weights():
    source = views.view(NOTEBOOK, "joint loss")
    assert "test_on_batch" in source and "compile_stage1" in source
    names = views.run(source)
    assert names["l_task"] > 0.1 and names["kit_loss"] > 1.0
