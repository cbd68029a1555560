"""Notebook 03's tasks, derived from registered data sets by a spec, and your own data in place of one."""

import numpy as np
import pytest

from kit.data import Split, TextDataset
from kit.data.entities import (
    TYPED_LABELS,
)
from kit.papers.stack_and_finetune.stack_and_finetune_tasks import (
    derive,
    headlines,
    max_words,
    task_datasets,
    with_own_data,
)
from tests.helpers import brown_tagged

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


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
    ds = derive(brown_tagged(), {"labels": "entities", "max_words": 3})
    assert ds.sizes() == {"train": 2, "dev": 2, "test": 2} and ds.label_names == TYPED_LABELS
    assert max_words(brown_tagged(), None).sizes()["train"] == 3
    with pytest.raises(ValueError, match="no train sentence"):
        max_words(brown_tagged(), 1)
    with pytest.raises(ValueError, match="tagging set"):
        max_words(_topics(), 3)


def test_entity_counts_are_of_the_sentences_kept():
    """The data table's "test entities" (info["entities"]) counts the cut test split, not the split before the cut."""
    ds = derive(brown_tagged(), {"labels": "entities", "max_eval": 1}, seed=0)
    kept = ds.test.labels[0]
    begins = sum(ds.label_names[int(t)].startswith("B-") for t in kept)
    whole = derive(brown_tagged(), {"labels": "entities"}).info["entities"]["test"]  # all three sentences
    assert ds.sizes()["test"] == 1 and ds.info["entities"]["test"] == begins < whole == 4


def test_spec_errors():
    with pytest.raises(KeyError, match="Unknown task spec key"):
        derive(_topics(), {"max_trian": 3})
    with pytest.raises(ValueError, match="text="):
        derive(_topics(), {"text": "title"})
    with pytest.raises(ValueError, match="labels="):
        derive(brown_tagged(), {"labels": "ner"})
    with pytest.raises(KeyError, match="names no 'dataset'"):
        task_datasets({"x": {"section": "pairs"}}, load=lambda name: _topics())


def test_task_datasets_loads_each_source_once():
    calls = []

    def load(name):
        calls.append(name)
        return brown_tagged()

    out = task_datasets(
        {
            "pos": {"dataset": "toy", "section": "tagging", "sequence_length": 8},
            "ent": {"dataset": "toy", "labels": "entities"},
        },
        load=load,
    )
    assert calls == ["toy"] and list(out) == ["pos", "ent"]
    assert out["pos"].name == "pos" and out["ent"].label_names == TYPED_LABELS


def test_with_own_data_replaces_the_task_of_its_kind():
    specs = {
        "news": {"section": "classification", "sequence_length": 24, "max_train": 8, "max_dev": 4},
        "wn": {"section": "pairs", "sequence_length": 32},
    }
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
        with_own_data(specs, datasets, brown_tagged())
