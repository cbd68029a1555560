"""Notebook 03's data: Brown proper nouns as BIO entities, and tasks derived from registered sets by a spec."""

import numpy as np
import pytest

from kit.analysis.tagging_scores import get_entities
from kit.data import Split, TextDataset
from kit.papers.stack_and_finetune.stack_and_finetune_tasks import derive, headlines, max_words, task_datasets, with_own_data
from kit.data.entities import (TYPED_LABELS, UNTYPED_LABELS, bio_tags, is_proper_noun, proper_noun_entities,
                               proper_noun_spans)

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

POS = ["at", "np", "np$", "nn", "nps", ".", "np+bez", "np"]


def _tagged():
    tagset = sorted(set(POS) | {"vbd"})
    idx = {t: i for i, t in enumerate(tagset)}
    sents = [(["The", "Mary", "Jane's", "dog", "Americans", ".", "John's", "Smith"], POS),
             (["He", "ran", "."], ["np", "vbd", "."]),
             (["A", "dog", "."], ["at", "nn", "."])]
    split = Split(texts=[w for w, _ in sents], labels=[[idx[t] for t in tags] for _, tags in sents])
    return TextDataset("toy_pos", "tagging", {"train": split, "dev": split, "test": split}, tagset)


def test_proper_noun_tags():
    assert [is_proper_noun(t) for t in ("np", "np$", "nps", "nps$", "np+bez", "np-tl", "fw-np", "nn", "pn")] == \
        [True, True, True, True, True, True, True, False, False]


def test_spans_are_maximal_runs_typed_by_their_last_word():
    assert proper_noun_spans(POS) == [("NP", 1, 2), ("NPS", 4, 4), ("NP", 6, 7)]
    assert proper_noun_spans(POS, typed=False) == [("NP", 1, 2), ("NP", 4, 4), ("NP", 6, 7)]
    assert proper_noun_spans(["np", "nps"]) == [("NPS", 0, 1)]  # a mixed run is one entity, typed by its end
    assert proper_noun_spans([]) == [] and proper_noun_spans(["nn"]) == []


def test_bio_tags_read_back_as_the_same_spans_by_the_entity_scorer():
    for typed in (True, False):
        tags = bio_tags(POS, typed)
        assert tags[:3] == ["O", "B-NP", "I-NP"]
        assert get_entities(tags) == [(t, a, b) for t, a, b in proper_noun_spans(POS, typed)]


def test_proper_noun_entities_dataset():
    ds = _tagged()
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


# --- derived tasks ----------------------------------------------------------------------------------

def _topics(n=40):
    texts = [f"Headline {i}\n\nBody of article {i}." for i in range(n)]
    labels = np.arange(n) % 4
    s = Split(texts=texts, labels=labels)
    return TextDataset("news", "classification", {"train": s, "dev": s, "test": s}, ["a", "b", "c", "d"])


def test_headlines_and_classes():
    ds = derive(_topics(), {"classes": ["c", "a"], "text": "headline"}, name="two")
    assert ds.name == "two" and ds.label_names == ["c", "a"] and ds.sizes()["train"] == 20
    assert all(t.startswith("Headline") and "\n" not in t for t in ds.train.texts)
    assert set(ds.train.labels.tolist()) == {0, 1}
    pairs = Split(texts=["t1\nx", "t2"], labels=[0, 1], texts_b=["u1\ny", "u2"])
    h = headlines(TextDataset("p", "pairs", {"train": pairs}, ["no", "yes"]))
    assert h.train.texts == ["t1", "t2"] and h.train.texts_b == ["u1", "u2"]


def test_subsample_and_max_dev():
    ds = derive(_topics(), {"max_train": 12, "max_eval": 20, "max_dev": 8})
    assert ds.sizes() == {"train": 12, "dev": 8, "test": 20}
    assert np.bincount(ds.dev.labels).tolist() == [2, 2, 2, 2]  # stratified


def test_max_words_and_entities_from_a_spec():
    ds = derive(_tagged(), {"labels": "entities", "max_words": 3})
    assert ds.sizes() == {"train": 2, "dev": 2, "test": 2} and ds.label_names == TYPED_LABELS
    assert max_words(_tagged(), None).sizes()["train"] == 3
    with pytest.raises(ValueError, match="no train sentence"):
        max_words(_tagged(), 1)
    with pytest.raises(ValueError, match="tagging set"):
        max_words(_topics(), 3)


def test_spec_errors():
    with pytest.raises(KeyError, match="Unknown task spec key"):
        derive(_topics(), {"max_trian": 3})
    with pytest.raises(ValueError, match="text="):
        derive(_topics(), {"text": "title"})
    with pytest.raises(ValueError, match="labels="):
        derive(_tagged(), {"labels": "ner"})
    with pytest.raises(KeyError, match="names no 'dataset'"):
        task_datasets({"x": {"section": "pairs"}}, load=lambda name: _topics())


def test_task_datasets_loads_each_source_once():
    calls = []

    def load(name):
        calls.append(name)
        return _tagged()

    out = task_datasets({"pos": {"dataset": "toy", "section": "tagging", "sequence_length": 8},
                         "ent": {"dataset": "toy", "labels": "entities"}}, load=load)
    assert calls == ["toy"] and list(out) == ["pos", "ent"]
    assert out["pos"].name == "pos" and out["ent"].label_names == TYPED_LABELS


def test_with_own_data_replaces_the_task_of_its_kind():
    specs = {"news": {"section": "classification", "sequence_length": 24, "max_train": 8, "max_dev": 4},
             "wn": {"section": "pairs", "sequence_length": 32}}
    datasets = {"news": "old", "wn": "pairs"}
    assert with_own_data(specs, datasets, None) == (specs, datasets)
    mine = _topics()
    mine.name = "mine"
    new_specs, new_data = with_own_data(specs, datasets, mine)
    assert list(new_specs) == ["wn", "mine"] and new_data["wn"] == "pairs"
    assert new_specs["mine"] == {"section": "classification", "sequence_length": 24, "max_train": 8, "max_dev": 4}
    assert new_data["mine"].sizes() == {"train": 8, "dev": 4, "test": 40}
    assert specs["news"]["max_train"] == 8 and "news" in specs  # the inputs are left alone
    with pytest.raises(ValueError, match="'tagging' set"):
        with_own_data(specs, datasets, _tagged())
