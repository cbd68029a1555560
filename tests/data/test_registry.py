"""The offline default data sets: real text, real labels, exact sizes, fixed splits."""

import numpy as np
import pytest

import kit.data as kd

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


@pytest.fixture(scope="module")
def rt():
    return kd.load("rt_snippets")


def _disjoint(ds):
    seen = set()
    for split in ds.splits.values():
        keys = {t if isinstance(t, str) else " ".join(t) for t in split.texts}
        assert not (seen & keys) or len(seen & keys) < 5  # a few duplicate sentences exist in the source
        seen |= keys


def test_rt_binary_sizes_and_balance(rt):
    assert rt.task == "classification" and rt.label_names == ["negative", "positive"]
    assert sum(rt.sizes().values()) == 10605 - 37  # the 37 exactly-neutral ratings are dropped
    assert rt.info["dropped_neutral"] == 37
    frac = rt.train.y.mean()
    assert 0.45 < frac < 0.55
    for s in ("dev", "test"):  # stratified
        assert abs(rt[s].y.mean() - frac) < 0.02
    _disjoint(rt)
    assert any("Lord of the Rings" in t for s in rt.splits.values() for t in s.texts)


def test_rt_split_is_deterministic(rt):
    again = kd.load("rt_snippets")
    assert again.test.texts == rt.test.texts


def test_rt_five_class_bins():
    ds = kd.load("rt_snippets", target="5class")
    counts = sum(np.bincount(s.y, minlength=5) for s in ds.splits.values())
    assert counts.tolist() == [1021, 3772, 1022, 3751, 1039]  # DATA.md's bins at +-0.8 and +-2.4


def test_rt_rating_regression():
    ds = kd.load("rt_snippets", target="rating")
    assert ds.task == "regression" and ds.label_names is None
    y = np.concatenate([s.y for s in ds.splits.values()])
    assert y.dtype == np.float32 and y.min() >= -4 and y.max() <= 4 and len(y) == 10605


@pytest.mark.parametrize("name,n", [("amazon_snippets", 3708), ("nyt_snippets", 5190), ("tweets", 4200)])
def test_other_vader_sets(name, n):
    ds = kd.load(name, target="rating")
    assert sum(ds.sizes().values()) == n


def test_bbc_news():
    ds = kd.load("bbc_news")
    assert ds.label_names == ["business", "entertainment", "politics", "sports", "tech"]
    total = sum(np.bincount(s.y, minlength=5) for s in ds.splits.values())
    assert total.tolist() == [510, 386, 417, 511, 401]


def test_brown_pos_tagging():
    ds = kd.load("brown_pos")
    assert ds.task == "tagging"
    assert sum(ds.sizes().values()) == 57340
    tokens, tags = ds.train.texts[0], ds.train.labels[0]
    assert len(tokens) == len(tags) and all(isinstance(t, str) for t in tokens)
    assert "nn" in ds.label_names and "np-tl" not in ds.label_names  # title markers folded
    assert ds.info["split_by"].startswith("document")


def test_corpora():
    wiki = kd.load("wiki_sample")
    assert wiki.task == "corpus" and len(wiki.splits["all"]) > 4000
    assert all(len(p.split()) >= 25 for p in wiki.splits["all"].texts[:200])
    assert not any("[[" in p or "{{" in p for p in wiki.splits["all"].texts)


def test_general_corpus_joins_parts():
    gc = kd.load("general_corpus")
    origins = set(gc.info["origin"])
    assert origins == {"wiki_sample", "sotu", "moby_dick", "brown_text"}
    assert len(gc.splits["all"]) == len(set(gc.splits["all"].texts)) > 25000


def test_subsample_is_stratified_and_seeded(rt):
    small = rt.subsample(max_train=200, max_eval=50, seed=0)
    assert small.sizes() == {"train": 200, "dev": 50, "test": 50}
    assert abs(small.train.y.mean() - rt.train.y.mean()) < 0.02
    assert small.train.texts == rt.subsample(200, 50, seed=0).train.texts


def test_to_frame_uses_label_names(rt):
    df = rt.to_frame("dev")
    assert set(df["label"]) == {"negative", "positive"}


def test_unknown_dataset_suggests():
    with pytest.raises(KeyError, match="Did you mean.*bbc_news"):
        kd.load("bbc_new")


def test_bad_option():
    with pytest.raises(ValueError, match="target='7class'"):
        kd.load("rt_snippets", target="7class")
    with pytest.raises(TypeError, match="no option 'lang'"):
        kd.load("bbc_news", lang="en")


def test_cli_show(capsys):
    from kit.cli import main

    assert main(["data", "show", "rt_snippets", "--target", "5class", "-n", "2"]) == 0
    out = capsys.readouterr().out
    assert "very negative" in out and "licence" in out
