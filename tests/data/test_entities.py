"""Brown proper nouns as BIO entities (notebook 03's entity task)."""

import pytest

from kit.data import Split, TextDataset
from kit.data.entities import (
    TYPED_LABELS,
    UNTYPED_LABELS,
    bio_tags,
    is_proper_noun,
    proper_noun_entities,
    proper_noun_spans,
)
from kit.metrics.tagging_scores import get_entities
from tests.helpers import BROWN_POS, brown_tagged

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def test_proper_noun_tags():
    assert [is_proper_noun(t) for t in ("np", "np$", "nps", "nps$", "np+bez", "np-tl", "fw-np", "nn", "pn")] == [
        True,
        True,
        True,
        True,
        True,
        True,
        True,
        False,
        False,
    ]


def test_spans_are_maximal_runs_typed_by_their_last_word():
    assert proper_noun_spans(BROWN_POS) == [("NP", 1, 2), ("NPS", 4, 4), ("NP", 6, 7)]
    assert proper_noun_spans(BROWN_POS, typed=False) == [("NP", 1, 2), ("NP", 4, 4), ("NP", 6, 7)]
    assert proper_noun_spans(["np", "nps"]) == [("NPS", 0, 1)]  # a mixed run is one entity, typed by its end
    assert proper_noun_spans([]) == [] and proper_noun_spans(["nn"]) == []


def test_bio_tags_read_back_as_the_same_spans_by_the_entity_scorer():
    for typed in (True, False):
        tags = bio_tags(BROWN_POS, typed)
        assert tags[:3] == ["O", "B-NP", "I-NP"]
        assert get_entities(tags) == [(t, a, b) for t, a, b in proper_noun_spans(BROWN_POS, typed)]


def test_proper_noun_entities_dataset():
    ds = brown_tagged()
    ent = proper_noun_entities(ds)
    assert ent.task == "tagging" and ent.label_names == TYPED_LABELS and ent.name == "toy_pos_entities"
    assert ent.sizes() == ds.sizes() and ent.train.texts == ds.train.texts
    names = [[ent.label_names[i] for i in row] for row in ent.train.labels]
    assert names[0] == ["O", "B-NP", "I-NP", "O", "B-NPS", "O", "B-NP", "I-NP"]
    assert names[1] == ["B-NP", "O", "O"] and names[2] == ["O", "O", "O"]
    assert ent.info["entities"] == {"train": 4, "dev": 4, "test": 4}
    assert proper_noun_entities(ds, typed=False).label_names == UNTYPED_LABELS


def test_proper_noun_entities_errors():
    s = Split(texts=["a"], labels=[0])
    with pytest.raises(ValueError, match="POS-tagged"):
        proper_noun_entities(TextDataset("c", "classification", {"train": s}, ["x"]))
    t = Split(texts=[["a"]], labels=[[0]])
    with pytest.raises(ValueError, match="no proper-noun tag"):
        proper_noun_entities(TextDataset("t", "tagging", {"train": t}, ["nn"]))
