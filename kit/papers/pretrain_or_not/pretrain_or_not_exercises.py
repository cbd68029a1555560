"""Notebook 01's exercises: the set-up their solutions share, so each solution shows only its experiment.

>>> recipe = lstm_recipe({**DEFAULTS, **SCALES["smoke"]}, smoke=True)   # the notebook's: 10 epochs of 64, >= 60
>>> recipe.epochs, recipe.batch_size, recipe.min_steps, recipe.schedule
(2, 32, 30, 'constant')
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import keras
import numpy as np

from ... import config, data
from ...checks import Verdict, answer, unanswered, unpredicted
from ...models import TokenTable, build_lstm_classifier
from ...text import WordVocab
from ...train import FitRecipe, accuracy, fit_classifier
from .pretrain_or_not_runs import recipe_of
from .pretrain_or_not_sizes import DEFAULTS, SCALES

#: The splits a run reads.
SPLITS = ("train", "dev", "test")


@dataclass
class Setup:
    """What the solutions start from: notebook 01's ``sizes`` at this scale (:func:`kit.papers.sizes`) and data ``ds``.

    ``train_sizes`` in examples; ``sequence_length`` tokens per text; ``smoke``: solutions then run shorter.
    """

    sizes: dict
    ds: object
    train_sizes: list
    sequence_length: int
    smoke: bool


def setup(max_eval: int | None = None) -> Setup:
    """Notebook 01's data and sizes at the scale in use (``KIT_SCALE``); jax reuses compiled programs.

    Dev and test keep at most ``max_eval`` examples (default: the scale's ``max_eval``).
    """
    sizes = config.paper_sizes("pretrain_or_not", DEFAULTS, SCALES)  # as kit.papers.sizes("pretrain_or_not")
    config.enable_compile_cache()
    ds = data.load(sizes["dataset"], max_eval=max_eval or sizes["max_eval"], seed=0)
    n = config.train_sizes(sizes["train_sizes"], len(ds.train))
    return Setup(sizes, ds, n, sizes["sequence_length"], config.scale() == "smoke")


def first(ds, n: int) -> tuple[list, object]:
    """The first ``n`` training texts and their labels (the split comes shuffled: a random subset)."""
    return ds.train.texts[:n], ds.train.y[:n]


def encode(ds, train_texts, read) -> dict:
    """``{split: ids}``: ``train_texts`` and the dev and test texts, each read by ``read`` (texts -> ids).

    E.g. ``read=lambda t: vocab.encode(t, L)`` (word ids) or ``lambda t: enc.preprocessor(t)["token_ids"]``.
    """
    texts = {"train": train_texts, "dev": ds.dev.texts, "test": ds.test.texts}
    return {s: read(texts[s]) for s in SPLITS}


def word_inputs(ds, train_texts, sequence_length: int) -> tuple[WordVocab, dict]:
    """A word vocabulary fitted on ``train_texts`` and the three splits as its ids (what LSTM-n-k reads)."""
    vocab = WordVocab.fit(train_texts)
    return vocab, encode(ds, train_texts, lambda t: vocab.encode(t, sequence_length))


def lstm_recipe(sizes: dict, smoke: bool) -> FitRecipe:
    """The paper's LSTM recipe (Adam at a constant rate); at ``smoke`` 2 epochs of batch 32, >= 30 updates.

    The notebook's smoke runs: 60 updates of batch 64.
    """
    recipe = recipe_of("lstm", sizes)
    return replace(recipe, epochs=2, batch_size=32, min_steps=30) if smoke else recipe


def fit_lstm(
    s: Setup, x: dict, y, vocabulary_size: int, recipe: FitRecipe, seed: int = 0, table=None, lstm=None
) -> float:
    """Train one LSTM-n-k on ``x`` (:func:`encode`'s ``{split: ids}``; ``y``: training labels); its test accuracy.

    ``vocabulary_size``: the embedding table's rows (the word vocabulary's or the pretrained table's); ``seed``: of the
    weights and batches; ``table``: a pretrained token table, frozen behind a trainable projection (None: learned from
    scratch); ``lstm``: ``(n_layers, cells)`` (default: the scale's first ``lstm_sizes``).
    """
    layers, cells = lstm or s.sizes["lstm_sizes"][0]
    config.set_seed(seed)
    model = build_lstm_classifier(
        vocabulary_size,
        s.ds.num_classes,
        n_layers=layers,
        cells=cells,
        embedding_dim=s.sizes["embedding_dim"],
        pretrained=None if table is None else TokenTable(table),
    )
    fit_classifier(model, (x["train"], y), (x["dev"], s.ds.dev.y), recipe, seed=seed)
    score = accuracy(model, x["test"], s.ds.test.y)
    keras.backend.clear_session()
    return score


def check(number: int, *answers, **kw) -> Verdict:
    """Say whether the learner's answer to exercise ``number`` (1 to 4) is right (``right: ...``) or not yet, and why.

    Each check tries the learner's function (``dev_coverage``, ``three_lstms``, ``seed_spread``, ``time_at``) on a small
    case against the kit's own computation, never printing the solution. Exercises 1, 3 and 4 also take ``prediction=``,
    3 ``accs=`` (its run's accuracies), 4 ``timings=`` (``kit.analysis.time_inference``'s rows, a list or a DataFrame).

    Example:
        check(1, dev_coverage, prediction="more slowly")   # in notebook 01, after the starter
    """
    checks = {1: _check_1, 2: _check_2, 3: _check_3, 4: _check_4}
    if number not in checks:
        raise ValueError(f"notebook 01 has exercises 1 to 4, not {number!r}: call check(1, ...) to check(4, ...)")
    return checks[number](*answers, **kw)


def _check_1(dev_coverage, prediction=None) -> Verdict:
    """Exercise 1: the word vocabulary's dev coverage at each training size, and the predicted growth."""
    s = setup(max_eval=200)
    got = [dev_coverage(s, n) for n in s.train_sizes]
    if (why := unanswered(got[0], f"dev_coverage(s, {s.train_sizes[0]})")) is not None:
        return answer(False, why)
    want = [WordVocab.fit(first(s.ds, n)[0]).coverage(s.ds.dev.texts) for n in s.train_sizes]
    if not all(isinstance(g, float | int) and abs(g - w) < 1e-9 for g, w in zip(got, want, strict=True)):
        return answer(
            False,
            f"dev_coverage(s, n) at n = {s.train_sizes} does not match the share of dev word tokens known to a "
            "WordVocab fitted on the first n training sentences only (a share between 0 and 1)",
        )
    said = str(prediction or "").lower()
    if "slow" not in said and "proportion" not in said:
        return answer(False, 'dev_coverage is right; now record your prediction: "in proportion" or "more slowly"')
    ratio_n, ratio_cov = s.train_sizes[-1] / s.train_sizes[0], want[-1] / want[0]
    slower = ratio_cov < ratio_n
    agrees = ("slow" in said) == slower
    return answer(
        agrees,
        f"dev_coverage is right; {ratio_n:.0f}x the sentences gave {ratio_cov:.2f}x the coverage: "
        f"{'more slowly' if slower else 'in proportion'}, "
        + ("as you predicted" if agrees else "not what you predicted (look at why: which words are new?)"),
    )


class _Spy:
    """Stands in for :func:`fit_lstm` while a check runs: records each call, returns an accuracy per call kind."""

    def __init__(self, score):
        """``score(call) -> float``: what the spy returns for a recorded call (a dict of the arguments)."""
        self.calls, self.score = [], score

    def __call__(self, s, x, y, vocabulary_size, recipe, seed=0, table=None, lstm=None):
        """Record one training run instead of training it."""
        call = {"x": x, "y": y, "rows": vocabulary_size, "seed": seed, "table": table}
        self.calls.append(call)
        return self.score(call)


def _spying(spy, fn, *args):
    """Call ``fn(*args)`` with :func:`fit_lstm` replaced by ``spy`` (the learner calls ``ex.fit_lstm``)."""
    real = globals()["fit_lstm"]
    globals()["fit_lstm"] = spy
    try:
        return fn(*args)
    finally:
        globals()["fit_lstm"] = real


def _same(a, b) -> bool:
    """Whether two id arrays (or tables) are equal."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.all(a == b))


def _check_2(three_lstms) -> Verdict:
    """Exercise 2: three LSTMs on the same sentences (scratch, + GloVe, + MiniLM's table), in that order."""
    from ...models import backbone_token_table, glove_table, load_backbone  # noqa: PLC0415 - loads weights

    s = setup(max_eval=20)
    n = 16
    kinds = {"scratch": 0.61, "glove": 0.62, "minilm": 0.63}

    def kind(call):
        """Which of the three LSTMs a call trains, by its table."""
        t = call["table"]
        return "scratch" if t is None else "glove" if np.shape(t)[-1] == 50 else "minilm"

    spy = _Spy(lambda call: kinds[kind(call)])
    got = _spying(spy, three_lstms, s, n, lstm_recipe(s.sizes, True))
    if (why := unanswered(got, f"three_lstms(s, {n}, recipe)")) is not None:
        return answer(False, why)
    texts, y = first(s.ds, n)
    vocab = WordVocab.fit(texts)
    words = vocab.encode(texts, s.sequence_length)
    enc = load_backbone("minilm-l6", sequence_length=s.sequence_length)
    want = {
        "scratch": (words, len(vocab), None),
        "glove": (words, len(vocab), glove_table(vocab)[0]),
        "minilm": (enc.preprocessor(texts)["token_ids"], backbone_token_table(enc).shape[0], backbone_token_table(enc)),
    }
    trained = {kind(c): c for c in spy.calls}
    if len(spy.calls) != 3 or set(trained) != set(want):
        return answer(False, f"expected three ex.fit_lstm runs (no table, GloVe's, MiniLM's), saw {len(spy.calls)}")
    for k, (x, rows, table) in want.items():
        c = trained[k]
        if not (_same(c["x"]["train"], x) and c["rows"] == rows and _same(c["y"], y)):
            return answer(
                False,
                f"the {k} LSTM reads the wrong inputs or table size: word ids of the n sentences (vocabulary rows) "
                "go with no table and with GloVe's, MiniLM's WordPiece ids (its table's rows) with MiniLM's table",
            )
        if table is not None and not _same(c["table"], table):
            return answer(False, f"the {k} LSTM's table is not the kit's ({k} for this vocabulary)")
    if list(np.ravel(got)) != list(kinds.values()):
        return answer(False, "the three LSTMs are right, but return their accuracies as (scratch, GloVe, MiniLM)")
    return answer(True, "three LSTMs on the same sentences and seed: from scratch, + GloVe, + MiniLM's table")


def _check_3(seed_spread, prediction=None, accs=None) -> Verdict:
    """Exercise 3: one LSTM per seed on the same sentences, then the prediction against Welch's test."""
    from ...analysis import welch  # noqa: PLC0415 - scipy

    s = setup(max_eval=20)
    n, seeds = 16, [3, 7, 11]
    spy = _Spy(lambda call: 0.5 + call["seed"] / 100)
    got = _spying(spy, seed_spread, s, n, seeds)
    if (why := unanswered(got, f"seed_spread(s, {n}, {seeds})")) is not None:
        return answer(False, why)
    texts, _ = first(s.ds, n)
    x = WordVocab.fit(texts).encode(texts, s.sequence_length)
    same_inputs = all(_same(c["x"]["train"], x) for c in spy.calls)
    in_order = list(np.ravel(got)) == [0.5 + k / 100 for k in seeds]
    if [c["seed"] for c in spy.calls] != seeds or not same_inputs or not in_order:
        return answer(
            False,
            f"seed_spread(s, n, {seeds}) should train one LSTM per seed (seed=k), all on the same word ids of the "
            "first n sentences, and return their test accuracies in the seeds' order",
        )
    said = str(prediction or "").lower()
    if said not in ("yes", "no"):
        return answer(False, 'seed_spread is right; now record your prediction: "yes" or "no"')
    if accs is None or len(np.ravel(accs)) < 2:
        return answer(False, "seed_spread is right; now run it with two seeds or more and pass accs=accs")
    std = float(np.std(np.ravel(accs), ddof=1))
    se = std / np.sqrt(3)
    p = welch(0.02, se, 3, 0.0, se, 3).p if std > 0 else 0.0
    real = p < 0.05
    agrees = (said == "yes") == real
    return answer(
        agrees,
        f"with your run's spread (standard deviation {100 * std:.1f} points), 3 seeds per arm call a 2-point "
        f"difference {'real' if real else 'noise'} (Welch's p {'<' if real else '>='} 0.05): "
        + ("as you predicted" if agrees else "not what you predicted"),
    )


def _check_4(time_at, prediction=None, timings=None) -> Verdict:
    """Exercise 4: time_at returns time_inference's median; then the prediction against the run's timings."""
    from ... import analysis  # noqa: PLC0415 - pandas

    seen = []

    def fake(model, inputs, repeats=5, warmup=1, compiled=True, name=None):
        """Record the call; a row of made-up timings (a check times nothing)."""
        seen.append((model, inputs, name))
        return {"model": name, "median_ms": 12.5, "min_ms": 10.0, "max_ms": 20.0, "repeats": repeats}

    model, x = object(), np.zeros((4, 8), "int32")
    real = analysis.time_inference
    analysis.time_inference = fake
    try:
        got = time_at(model, x, "probe")
    finally:
        analysis.time_inference = real
    if (why := unanswered(got, 'time_at(model, x, "probe")')) is not None:
        return answer(False, why)
    if not seen or seen[-1][0] is not model or seen[-1][1] is not x:
        return answer(False, "time_at should time the model it is given on the batch it is given (time_inference)")
    if got != 12.5:
        return answer(False, "time_at should return the median of the timed repeats (not the fastest or slowest)")
    choices = ("faster", "slower", "mixed")
    if why := unpredicted(prediction, choices):
        return answer(False, f"time_at is right; {why} (is the LSTM faster than MiniLM-L6 at both lengths?)")
    return _lead_at_each_length(prediction, timings)


def _lead_at_each_length(prediction: str, timings) -> Verdict:
    """Exercise 4's prediction against the first LSTM's speed-up over MiniLM-L6 at each length of ``timings``."""
    import pandas as pd

    try:
        t = pd.DataFrame(timings)
        fastest = t.groupby(["model", "sequence_length"]).min_ms.min()
        lstm = next(m for m in t.model if str(m).startswith("LSTM"))
        lengths = sorted(set(t.sequence_length[t.model == lstm]) & set(t.sequence_length[t.model == "MiniLM-L6"]))
    except (KeyError, TypeError, ValueError, AttributeError, StopIteration):
        lengths = []
    if len(lengths) < 2:
        return answer(
            False,
            "time_at is right; now time an LSTM (a model named LSTM-...) and MiniLM-L6 at two sequence lengths and "
            "pass timings=rows (kit.analysis.time_inference's rows, with model, sequence_length and min_ms)",
        )
    lead = [float(fastest["MiniLM-L6", n] / fastest[lstm, n]) for n in lengths]
    shows = "faster" if min(lead) > 1 else "slower" if max(lead) < 1 else "mixed"
    return answer(
        prediction == shows,
        f"{lstm} ran "
        + ", ".join(f"{x:.1f}x as fast as MiniLM-L6 at {n} tokens" for x, n in zip(lead, lengths))
        + f" (the fastest of each model's repeats), so {shows} (you predicted {prediction}); how the lead moves with "
        "the length is a small change at batch 4 on a shared CPU: time it twice before you read it",
    )
