"""Notebook 00's exercise checks (kit/papers/start_here_exercises.py): a right answer passes, the starter's ``...``
and a wrong-but-plausible answer say not yet."""

import numpy as np
import pytest

import kit
from kit.papers import start_here_exercises as ex

pytestmark = pytest.mark.one_backend  # the checks' own logic: what they judge is tested on every backend elsewhere


def _pooled(enc, texts, mask=True):
    import keras

    x = enc.preprocessor(texts)
    seq = keras.ops.convert_to_numpy(enc.backbone(x)["sequence_output"])
    m = np.asarray(x["padding_mask"])[..., None] if mask else np.ones(seq.shape[:2] + (1,))
    e = (seq * m).sum(1) / m.sum(1)
    return e / np.linalg.norm(e, axis=1, keepdims=True)


def test_check_1_mean_pooled(capsys):
    assert ex.check(1, _pooled)
    assert not ex.check(1, lambda enc, texts: None) and "returned None" in capsys.readouterr().out
    assert not ex.check(1, lambda enc, texts: _pooled(enc, texts, mask=False))  # the padding counted
    assert "padding" in capsys.readouterr().out


def _run(target, classes, score, n_train=300, length=32):
    data = kit.data.load("rt_snippets", target=target).subsample(max_train=n_train, max_eval=200)
    enc = kit.models.load_backbone("minilm-l6", sequence_length=length)
    model = kit.models.build_classifier(enc.backbone, num_classes=classes or data.num_classes)
    x_train, x_dev, x_test = (enc.preprocessor(s.x) for s in (data.train, data.dev, data.test))
    kit.train.fit_classifier(model, (x_train, data.train.y), (x_dev, data.dev.y), kit.train.FitRecipe(1e-4, 1, 16))
    return score(model, x_test, data.test.y)


def test_check_2_five_classes_and_the_prediction(capsys):
    right = lambda n_train, length: _run("5class", None, kit.train.accuracy, n_train, length)  # noqa: E731
    guess = 0.355  # the constant guess on the 200 smoke test sentences (asserted below from the check's own line)
    assert ex.check(2, right, prediction="above the guess", acc=0.43)  # 86 of 200: binomial p = .017
    assert f"constant guess {guess:.3f}" in capsys.readouterr().out
    assert not ex.check(2, right, prediction="at the guess", acc=0.43)  # the run disagrees
    assert not ex.check(2, right, prediction="above the guess", acc=0.38)  # 76 of 200: p = .25, within noise
    assert not ex.check(2, right, acc=0.43) and "record your prediction" in capsys.readouterr().out
    assert not ex.check(2, right, prediction="above the guess") and "acc=acc" in capsys.readouterr().out
    assert not ex.check(2, lambda n_train, length: ..., prediction="above the guess", acc=0.43)
    wrong = lambda n_train, length: _run("5class", 2, kit.train.accuracy, n_train, length)  # noqa: E731
    assert not ex.check(2, wrong, prediction="above the guess", acc=0.43)
    assert "5 classes" in capsys.readouterr().out


def test_check_3_a_rating_and_the_prediction(capsys):
    right = lambda n_train, length: _run("rating", 1, kit.train.regression_scores, n_train, length)  # noqa: E731
    assert ex.check(3, right, prediction="above 0", scores={"pearson": 0.3})  # t = 4.4, df = 198
    assert "df = 198" in capsys.readouterr().out
    assert not ex.check(3, right, prediction="about 0", scores={"pearson": 0.3})
    assert ex.check(3, right, prediction="about 0", scores={"pearson": 0.05})  # p = .24
    assert not ex.check(3, right, prediction="above 0") and "scores=scores" in capsys.readouterr().out
    assert not ex.check(3, right) and "record your prediction" in capsys.readouterr().out
    assert not ex.check(3, lambda n_train, length: ..., prediction="above 0", scores={"pearson": 0.3})
    five = lambda n_train, length: _run("5class", None, kit.train.accuracy, n_train, length)  # noqa: E731
    assert not ex.check(3, five)  # the classes again, not the rating
    assert "single output" in capsys.readouterr().out


def test_check_4_a_csv_of_your_own(tmp_path, capsys):
    path = tmp_path / "mine.csv"
    kit.data.load("bbc_news").to_frame("train").rename(columns={"text": "article", "label": "section"}).to_csv(
        path, index=False
    )
    assert ex.check(4, path, kit.data.Columns(text="article", label="section"))
    assert not ex.check(4, None, None) and "path is None" in capsys.readouterr().out
    assert not ex.check(4, path, kit.data.Columns(text="section", label="article"))  # swapped
    assert not ex.check(4, path, kit.data.Columns(text="text", label="label"))  # the starter's guess
    assert "not among the file's columns" in capsys.readouterr().out


def test_check_names_its_exercises():
    with pytest.raises(ValueError, match="exercises 1 to 4"):
        ex.check(7, None)
