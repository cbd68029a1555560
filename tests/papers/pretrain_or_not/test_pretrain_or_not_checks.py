"""Notebook 01's exercise checks (pretrain_or_not_exercises.check): a right answer passes, the starter's ``...`` and a
wrong-but-plausible answer say not yet."""

import pytest

import kit
from kit.papers.pretrain_or_not import pretrain_or_not_exercises as ex

pytestmark = pytest.mark.one_backend  # the checks' own logic: what they judge is tested on every backend elsewhere


def _coverage(s, n):
    return kit.text.WordVocab.fit(ex.first(s.ds, n)[0]).coverage(s.ds.dev.texts)


def test_check_1_the_coverage_and_the_prediction(capsys):
    assert ex.check(1, _coverage, prediction="more slowly")
    assert not ex.check(1, _coverage, prediction="in proportion")  # the run disagrees
    assert not ex.check(1, _coverage) and "record your prediction" in capsys.readouterr().out
    assert not ex.check(1, lambda s, n: ..., prediction="more slowly")
    assert "returned ..." in capsys.readouterr().out
    every = lambda s, n: kit.text.WordVocab.fit(s.ds.train.texts).coverage(s.ds.dev.texts)  # noqa: E731
    assert not ex.check(1, every, prediction="more slowly")  # fitted on all the sentences, not the first n


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
    assert ex.check(2, _three)
    assert not ex.check(2, lambda s, n, recipe: ...)
    assert not ex.check(2, lambda s, n, recipe: _three(s, n, recipe, swap=True))
    assert "WordPiece ids" in capsys.readouterr().out
    assert not ex.check(2, lambda s, n, recipe: _three(s, n, recipe)[::-1])  # the wrong order


def _spread(s, n, seeds, same_seed=False):
    texts, y = ex.first(s.ds, n)
    vocab, x = ex.word_inputs(s.ds, texts, s.sequence_length)
    recipe = ex.lstm_recipe(s.sizes, s.smoke)
    return [ex.fit_lstm(s, x, y, len(vocab), recipe, seed=0 if same_seed else k) for k in seeds]


def test_check_3_the_seeds_and_the_prediction(capsys):
    noisy, steady = [0.55, 0.61], [0.600, 0.601]
    assert ex.check(3, _spread, prediction="no", accs=noisy)
    assert not ex.check(3, _spread, prediction="yes", accs=noisy)
    assert ex.check(3, _spread, prediction="yes", accs=steady)  # seeds that agree: 2 points is real
    assert not ex.check(3, _spread, prediction="no") and "accs=accs" in capsys.readouterr().out
    assert not ex.check(3, _spread, accs=noisy) and "record your prediction" in capsys.readouterr().out
    assert not ex.check(3, lambda s, n, seeds: ..., prediction="no", accs=noisy)
    assert not ex.check(3, lambda s, n, seeds: _spread(s, n, seeds, same_seed=True), prediction="no", accs=noisy)


def _rows(lstm_ms, minilm_ms, lengths=(32, 128)):
    """time_inference-like rows: the LSTM's and MiniLM-L6's fastest times at each length (the check reads min_ms)."""
    rows = [{"model": "LSTM-2-256", "sequence_length": n, "min_ms": ms} for n, ms in zip(lengths, lstm_ms)]
    return rows + [{"model": "MiniLM-L6", "sequence_length": n, "min_ms": ms} for n, ms in zip(lengths, minilm_ms)]


def test_check_4_time_at_and_the_prediction(capsys):
    right = lambda m, x, name: kit.analysis.time_inference(m, x, repeats=5, name=name)["median_ms"]  # noqa: E731
    faster = _rows([2.0, 6.0], [10.0, 60.0])  # 5x at 32 tokens, 10x at 128
    assert ex.check(4, right, prediction="faster", timings=faster)
    assert "5.0x as fast as MiniLM-L6 at 32 tokens" in capsys.readouterr().out
    assert not ex.check(4, right, prediction="slower", timings=faster)
    assert ex.check(4, right, prediction="mixed", timings=_rows([2.0, 30.0], [10.0, 20.0]))  # 5x, then 0.7x
    assert ex.check(4, right, prediction="slower", timings=_rows([20.0, 30.0], [10.0, 20.0]))
    import pandas as pd

    assert ex.check(4, right, prediction="faster", timings=pd.DataFrame(faster))  # the solution's table
    assert not ex.check(4, right, prediction="faster", timings=faster[:1]) and "two sequence lengths" in (
        capsys.readouterr().out
    )
    assert not ex.check(4, right, timings=faster) and "record your prediction" in capsys.readouterr().out
    assert not ex.check(4, lambda m, x, name: ..., prediction="faster", timings=faster)


def test_check_names_its_exercises():
    with pytest.raises(ValueError, match="exercises 1 to 4"):
        ex.check(5, None)
