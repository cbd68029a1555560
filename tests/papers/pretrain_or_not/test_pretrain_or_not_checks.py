"""Notebook 01's exercise checks (pretrain_or_not_exercises.check): a right answer passes, the starter's ``...`` and a
wrong-but-plausible answer say not yet."""

import pytest

import kit
from kit.papers.pretrain_or_not import pretrain_or_not_exercises as ex

pytestmark = pytest.mark.one_backend  # the checks' own logic: what they judge is tested on every backend elsewhere


def _coverage(s, n):
    return kit.text.WordVocab.fit(ex.first(s.ds, n)[0]).coverage(s.ds.dev.texts)


def test_check_1_the_coverage_and_the_prediction(capsys):
    assert ex.check(1, _coverage, prediction="more slowly") is True
    assert ex.check(1, _coverage, prediction="in proportion") is False  # the run disagrees
    assert ex.check(1, _coverage) is False and "record your prediction" in capsys.readouterr().out
    assert ex.check(1, lambda s, n: ..., prediction="more slowly") is False
    assert "returned ..." in capsys.readouterr().out
    every = lambda s, n: kit.text.WordVocab.fit(s.ds.train.texts).coverage(s.ds.dev.texts)  # noqa: E731
    assert ex.check(1, every, prediction="more slowly") is False  # fitted on all the sentences, not the first n


def _three(s, n, recipe, swap=False):
    texts, y = ex.first(s.ds, n)
    vocab, words = ex.word_inputs(s.ds, texts, s.sequence_length)
    glove = kit.models.glove_table(vocab)[0]
    enc = kit.models.load_backbone("minilm-l6", sequence_length=s.sequence_length)
    pieces = ex.encode(s.ds, texts, lambda t: enc.preprocessor(t)["token_ids"])
    table = kit.models.backbone_token_table(enc)
    minilm_x = words if swap else pieces  # swap: MiniLM's table read with word ids (a plausible slip)
    return [
        ex.fit_lstm(s, words, y, len(vocab), recipe),
        ex.fit_lstm(s, words, y, len(vocab), recipe, table=glove),
        ex.fit_lstm(s, minilm_x, y, table.shape[0], recipe, table=table),
    ]


def test_check_2_three_lstms(capsys):
    assert ex.check(2, _three) is True
    assert ex.check(2, lambda s, n, recipe: ...) is False
    assert ex.check(2, lambda s, n, recipe: _three(s, n, recipe, swap=True)) is False
    assert "WordPiece ids" in capsys.readouterr().out
    assert ex.check(2, lambda s, n, recipe: _three(s, n, recipe)[::-1]) is False  # the wrong order


def _spread(s, n, seeds, same_seed=False):
    texts, y = ex.first(s.ds, n)
    vocab, x = ex.word_inputs(s.ds, texts, s.sequence_length)
    recipe = ex.lstm_recipe(s.sizes, s.smoke)
    return [ex.fit_lstm(s, x, y, len(vocab), recipe, seed=0 if same_seed else k) for k in seeds]


def test_check_3_the_seeds_and_the_prediction(capsys):
    noisy, steady = [0.55, 0.61], [0.600, 0.601]
    assert ex.check(3, _spread, prediction="no", accs=noisy) is True
    assert ex.check(3, _spread, prediction="yes", accs=noisy) is False
    assert ex.check(3, _spread, prediction="yes", accs=steady) is True  # seeds that agree: 2 points is real
    assert ex.check(3, _spread, prediction="no") is False and "accs=accs" in capsys.readouterr().out
    assert ex.check(3, _spread, accs=noisy) is False and "record your prediction" in capsys.readouterr().out
    assert ex.check(3, lambda s, n, seeds: ..., prediction="no", accs=noisy) is False
    assert ex.check(3, lambda s, n, seeds: _spread(s, n, seeds, same_seed=True), prediction="no", accs=noisy) is False


def _rows(lstm_ms, minilm_ms, lengths=(32, 128)):
    """time_inference-like rows: the LSTM's and MiniLM-L6's fastest times at each length (the check reads min_ms)."""
    rows = [{"model": "LSTM-2-256", "sequence_length": n, "min_ms": ms} for n, ms in zip(lengths, lstm_ms)]
    return rows + [{"model": "MiniLM-L6", "sequence_length": n, "min_ms": ms} for n, ms in zip(lengths, minilm_ms)]


def test_check_4_time_at_and_the_prediction(capsys):
    right = lambda m, x, name: kit.analysis.time_inference(m, x, repeats=5, name=name)["median_ms"]  # noqa: E731
    faster = _rows([2.0, 6.0], [10.0, 60.0])  # 5x at 32 tokens, 10x at 128
    assert ex.check(4, right, prediction="faster", timings=faster) is True
    assert "5.0x as fast as MiniLM-L6 at 32 tokens" in capsys.readouterr().out
    assert ex.check(4, right, prediction="slower", timings=faster) is False
    assert ex.check(4, right, prediction="mixed", timings=_rows([2.0, 30.0], [10.0, 20.0])) is True  # 5x, then 0.7x
    assert ex.check(4, right, prediction="slower", timings=_rows([20.0, 30.0], [10.0, 20.0])) is True
    import pandas as pd

    assert ex.check(4, right, prediction="faster", timings=pd.DataFrame(faster)) is True  # the solution's table
    assert ex.check(4, right, prediction="faster", timings=faster[:1]) is False and "two sequence lengths" in (
        capsys.readouterr().out
    )
    assert ex.check(4, right, timings=faster) is False and "record your prediction" in capsys.readouterr().out
    assert ex.check(4, lambda m, x, name: ..., prediction="faster", timings=faster) is False


def test_check_names_its_exercises():
    with pytest.raises(ValueError, match="exercises 1 to 4"):
        ex.check(5, None)
