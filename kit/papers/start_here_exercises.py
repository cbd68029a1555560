"""Notebook 00's exercise checks: each tries the learner's answer on a small case against the kit, never the solution.

``ex.check(N, answer)`` (``ex``: this module) after exercise N's starter prints ``right: ...`` or ``not yet: ...``
(:func:`kit.checks.answer`). Exercises 2 and 3 are checked without training (the learner's ``run`` is recorded, in
seconds), then their ``prediction`` is tested against what their own run showed (``acc=``, ``scores=``) over the test
sentences.

>>> verdict = check(4, None, None)
not yet: path is None (the starter as it is): fill in the lines under # YOUR CODE
>>> bool(verdict)
False
"""

from __future__ import annotations

import contextlib
import csv
from pathlib import Path

import numpy as np

from .. import config, data, models, train
from ..checks import Verdict, answer, unanswered, unpredicted

#: Three sentences for exercise 1: two about a film, one not.
SENTENCES = ["The film is a delight.", "I enjoyed every minute of this movie.", "Stocks fell sharply."]


def check(number: int, *answers, **kw) -> Verdict:
    """Say whether the learner's answer to notebook 00's exercise ``number`` (1-4) is right or not yet, and why.

    ``answers``: exercise 1 ``mean_pooled``; 2 and 3 ``run``; 4 ``path, columns``. ``kw``: exercise 2 ``prediction``
    (``"above the guess"`` or ``"at the guess"``) and ``acc`` (``run()``'s test accuracy); exercise 3 ``prediction``
    (``"above 0"`` or ``"about 0"``: the test Pearson) and ``scores`` (``run()``'s).

    Example:
        check(1, mean_pooled)   # in notebook 00, after exercise 1's starter
    """
    checks = {1: _check_1, 2: _check_2, 3: _check_3, 4: _check_4}
    if number not in checks:
        raise ValueError(f"notebook 00 has exercises 1 to 4, not {number!r}: call check(1, ...) to check(4, ...)")
    return checks[number](*answers, **kw)


def _check_1(mean_pooled) -> Verdict:
    """Exercise 1: the unit-length mean of the token states over the padding mask, one row per text."""
    import keras  # noqa: PLC0415 - the backend

    enc = models.load_backbone("minilm-l6", sequence_length=32)
    got = mean_pooled(enc, SENTENCES)
    if (why := unanswered(got, "mean_pooled(enc, three sentences)")) is not None:
        return answer(False, why)
    x = enc.preprocessor(SENTENCES)
    seq = keras.ops.convert_to_numpy(enc.backbone(x)["sequence_output"])
    mask = np.asarray(x["padding_mask"])[..., None]
    want = (seq * mask).sum(1) / mask.sum(1)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    got = np.asarray(keras.ops.convert_to_numpy(got), dtype="float64")
    if got.shape != want.shape:
        return answer(False, f"expected one row of {want.shape[1]} numbers per sentence, got shape {got.shape}")
    if not np.allclose(got, want, atol=1e-4):
        return answer(
            False,
            "the rows are not the unit-length means of the token states over the padding mask (padding tokens "
            "must not count, and each row has length 1)",
        )
    return answer(True, f"mean_pooled matches the kit's mean-pooled MiniLM embeddings on {len(SENTENCES)} sentences")


@contextlib.contextmanager
def _recording():
    """Record what the learner's ``run`` builds and fits (classifier, fit, scores); it trains nothing."""
    seen = {"built": [], "fit": [], "scored": []}
    real = {
        "build": models.build_classifier,
        "fit": train.fit_classifier,
        "acc": train.accuracy,
        "reg": train.regression_scores,
    }

    def build(*args, **kw):
        """Build for real; remember the head's size."""
        seen["built"].append(kw.get("num_classes", args[1] if len(args) > 1 else None))
        return real["build"](*args, **kw)

    def fit(model, train_xy, dev_xy, *args, **kw):
        """Remember the training labels; train nothing (a check must take seconds)."""
        seen["fit"].append(np.asarray(train_xy[1]))

    def scored(kind):
        """A scorer that runs for real and remembers its result."""

        def score(*args, **kw):
            """Score for real; remember it."""
            seen["scored"].append((kind, real[kind](*args, **kw)))
            return seen["scored"][-1][1]

        return score

    models.build_classifier, train.fit_classifier = build, fit
    train.accuracy, train.regression_scores = scored("acc"), scored("reg")
    try:
        yield seen
    finally:
        models.build_classifier, train.fit_classifier = real["build"], real["fit"]
        train.accuracy, train.regression_scores = real["acc"], real["reg"]


def _fine_tuned(run, target: str):
    """Call ``run`` small under :func:`_recording`: its value, what it built and fitted, and the data's labels."""
    with _recording() as seen:
        got = run(n_train=32, length=16)
    wanted = data.load("rt_snippets", target=target).subsample(max_train=32, max_eval=200)
    return got, seen, wanted


def _test_data(target: str):
    """The sentences the solution's ``run()`` reads at this scale: smoke, 300 training and 200 test sentences."""
    if config.scale() == "smoke":
        return data.load("rt_snippets", target=target).subsample(max_train=300, max_eval=200)
    return data.load("rt_snippets", target=target).subsample(max_train=config.sizes()["max_train_examples"])


def _check_2(run, prediction=None, acc=None) -> Verdict:
    """Exercise 2: a 5-way head fitted on the 5-class labels; run returns the test accuracy; then the prediction."""
    from scipy import stats  # noqa: PLC0415 - scipy only when a check runs

    from ..analysis import constant_guess  # noqa: PLC0415 - pandas only when a check runs

    got, seen, ds = _fine_tuned(run, "5class")
    if (why := unanswered(got, "run(n_train=32, length=16)")) is not None:
        return answer(False, why)
    if seen["built"] != [ds.num_classes] or len(seen["fit"]) != 1:
        return answer(False, f"expected one classifier with a head for the {ds.num_classes} classes, fitted once")
    if not np.array_equal(seen["fit"][0], ds.train.y):
        return answer(False, "the classifier should be fitted on the 5-class training labels (data.train.y)")
    accs = [v for k, v in seen["scored"] if k == "acc"]
    if not accs or not isinstance(got, float | int) or got != accs[-1]:
        return answer(False, "run should return the test accuracy (kit.train.accuracy on the test split)")
    choices = ("above the guess", "at the guess")
    if why := unpredicted(prediction, choices):
        return answer(False, f"run is right (a 5-class head, scored by test accuracy); {why}")
    if not isinstance(acc, float | int) or not 0 <= acc <= 1:
        return answer(False, "run is right; now run it (acc = run()) and pass acc=acc to compare with your prediction")
    test = _test_data("5class")
    guess = constant_guess(test.train.y, test.test.y)
    n = len(test.test)
    p = stats.binomtest(round(acc * n), n, guess, alternative="greater").pvalue
    shows = choices[0] if p < 0.05 else choices[1]
    return answer(
        prediction == shows,
        f"your run's test accuracy {acc:.3f} against the constant guess {guess:.3f} on {n} test sentences: "
        f"{100 * (acc - guess):+.1f} points, one-sided binomial p = {p:.3g}, so {shows} (you predicted {prediction})",
    )


def _check_3(run, prediction=None, scores=None) -> Verdict:
    """Exercise 3: a one-output head fitted on the ratings; run returns kit.train.regression_scores; the prediction."""
    from scipy import stats  # noqa: PLC0415 - scipy only when a check runs

    got, seen, ds = _fine_tuned(run, "rating")
    if (why := unanswered(got, "run(n_train=32, length=16)")) is not None:
        return answer(False, why)
    if seen["built"] != [1] or len(seen["fit"]) != 1:
        return answer(False, "expected one model with a single output (a score, not classes), fitted once")
    if not np.allclose(seen["fit"][0].astype("float64"), np.asarray(ds.train.y, "float64")):
        return answer(False, "the model should be fitted on the ratings themselves (data.train.y)")
    regs = [v for k, v in seen["scored"] if k == "reg"]
    if not regs or not isinstance(got, dict) or got.get("pearson") != regs[-1]["pearson"]:
        return answer(False, "run should return the test scores of a regression (kit.train.regression_scores)")
    choices = ("above 0", "about 0")
    if why := unpredicted(prediction, choices):
        return answer(False, f"run is right (one output, scored by correlations); {why}")
    if not isinstance(scores, dict) or "pearson" not in scores:
        return answer(False, "run is right; now run it (scores = run()) and pass scores=scores")
    r, n = float(scores["pearson"]), len(_test_data("rating").test)
    t = r * np.sqrt((n - 2) / max(1e-12, 1 - r * r))
    p = float(stats.t.sf(t, n - 2))
    shows = choices[0] if p < 0.05 else choices[1]
    return answer(
        prediction == shows,
        f"your run's test Pearson r = {r:.3f} on {n} sentences (predicting the training mean: no correlation): "
        f"one-sided t = {t:.2f}, df = {n - 2}, p = {p:.3g}, so {shows} (you predicted {prediction})",
    )


def _check_4(path, columns) -> Verdict:
    """Exercise 4: a CSV file and its columns that the reader accepts, the text column holding the texts."""
    if (why := unanswered(path, "path")) is not None:
        return answer(False, why.replace("returned", "is"))
    if (why := unanswered(columns, "columns")) is not None:
        return answer(False, why.replace("returned", "is"))
    path = Path(path)
    if not path.is_file():
        return answer(False, f"{path} is no file: write your CSV there, or point path at one")
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0]) if rows else []
    missing = [c for c in (columns.text, columns.label) if c not in header]
    if missing:
        return answer(False, f"{missing} not among the file's columns {header}: name its text and its label column")
    texts, labels = ([r[c] or "" for r in rows] for c in (columns.text, columns.label))
    if np.mean([len(t) for t in texts]) <= np.mean([len(t) for t in labels]) or len(set(labels)) > len(rows) / 2:
        return answer(False, "the text column should hold the texts and the label column a few repeated labels")
    try:
        mine = data.read(path, columns, verbose=False)
    except (ValueError, KeyError) as e:
        return answer(False, f"the reader refused the file: {e}")
    return answer(True, f"the reader takes your file: {mine.num_classes} classes, {len(mine.train):,} training rows")
