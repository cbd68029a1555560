"""Notebook 02's exercises: the shared set-up of a small TLM experiment, so each solution shows only its experiment.

Exercises 2-4 each train a few TLM models on the ablation task (at smoke scale a tiny version: 200 texts x 32 tokens,
2,000 ids, SOTU as the general corpus). :func:`check` judges a learner's answer: ``check(2, stage1_accuracy)``.

>>> import kit
>>> setup = small_setup(kit.session.start("exercises_02", "tlm", verbose=False))  # doctest: +SKIP
>>> model = new_tlm(setup, seed=0)                                                  # doctest: +SKIP
>>> s1 = stage1(setup, model, rho1=3, rho2=20, seed=0, steps=8)                    # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import time
from types import SimpleNamespace

import numpy as np

from ... import analysis, data, models, retrieval, text, train
from ...checks import Verdict, answer, direction, unanswered, unpredicted
from . import tlm_runs as runs

#: What :func:`small_setup` shrinks at smoke scale (a few seconds a stage 1 on one CPU thread).
SMOKE = dict(max_train=200, max_eval=300, sequence_length=32, vocabulary_size=2000, batch_size=16, stage1_steps=48)


def small_setup(session) -> SimpleNamespace:
    """The ablation task, its BM25 passages and both encoded: what exercises 2-4 train on.

    At smoke scale the sizes shrink (:data:`SMOKE`) and the general corpus is the State of the Union speeches alone;
    else the scale's own sizes and corpus (:func:`tlm_runs.load_corpus`). ``session``: :func:`kit.session.start`'s. The
    namespace: ``Z`` (the sizes used), ``smoke``, ``task``, ``ds``, ``x`` (its encoded splits), ``external`` (the
    retrieved passages' inputs), ``tokens`` (:class:`tlm_runs.Tokens`), ``seeds`` (one at smoke), ``guess`` (the
    constant guess's test accuracy).
    """
    Z, smoke = dict(session.sizes), session.scale == "smoke"
    if smoke:
        Z.update(SMOKE)
    task = Z["ablation_task"]
    ds = data.load(task, max_train=Z["max_train"], max_eval=Z["max_eval"], seed=0)
    corpus = data.load("sotu").splits["all"].texts if smoke else runs.load_corpus()[0]
    found = retrieval.select_external(ds.train.texts, corpus, k=Z["k"], exclude_texts=ds.dev.texts + ds.test.texts)
    tok = text.WordPieceTokenizer.from_folder(models.backbones.minilm_path())  # MiniLM's WordPiece
    preprocessor = text.BertPreprocessor(tok, sequence_length=Z["sequence_length"])
    tokens = runs.Tokens.prepare({task: ds}, corpus, {"bm25": found.doc_ids}, preprocessor, Z["vocabulary_size"])
    return SimpleNamespace(
        Z=Z,
        smoke=smoke,
        task=task,
        ds=ds,
        x=tokens.x[task],
        external=tokens.external(found.doc_ids),
        tokens=tokens,
        seeds=Z["seeds"][:1] if smoke else Z["seeds"],
        guess=analysis.constant_guess(ds.train.y, ds.test.y),
    )


def new_tlm(setup: SimpleNamespace, seed: int, pooling: str | None = None):
    """A TLM model from scratch (BERT + task head + tied MLM head) on ``setup``'s vocabulary, seeded first.

    ``pooling``: where the task head reads (``"mean"`` or ``"cls"``; None: the sizes' ``pooling``).
    """
    return runs.new_tlm_model(setup.Z, setup.tokens, setup.ds.num_classes, seed, pooling)


def stage1(setup: SimpleNamespace, model, rho1: float, rho2: float, seed: int, steps: int | None = None, **options):
    """TLM's stage 1 on ``setup``: one task batch, then ``rho1`` retrieved ones, repeated (``train_stage1``'s result).

    ``rho1`` 0: task data only, ``math.inf``: retrieved data only; ``rho2``: the task texts' MLM weight against the task
    loss; ``seed``: the stream's; ``steps`` None: the sizes' ``stage1_steps``; ``options``: other
    :class:`kit.train.Stage1Recipe` fields (e.g. ``normalize_internal=False``).
    """
    recipe = runs.stage1_recipe(setup.Z, rho1, rho2, chunks=1 if setup.smoke else 4)
    recipe = dataclasses.replace(recipe, steps=steps or recipe.steps, **options)
    task, external = (setup.x["train"], setup.ds.train.y), setup.external if rho1 else None
    return train.train_stage1(model, task, external, setup.tokens.masker, recipe, seed=seed)


def check(number: int, *answers, **kw) -> Verdict:
    """Judge a learner's answer to exercise ``number`` (1-5) on a small case; print right or not yet, and why.

    Each check runs the learner's function (``distinct_share``, ``stage1_accuracy``, ``cycle_shares``, ``two_stages``,
    ``seconds_per_step``) on a tiny set-up (8 texts of 6 tokens, a 1-layer model) against the kit's own measurement of
    the same thing, never printing the solution; ``kw`` go to the exercise's check. True when right.

    Raises:
        ValueError: no exercise ``number``.

    Example:
        check(3, cycle_shares)   # in the notebook's check cell: prints "right: ..." or "not yet: ..."
    """
    checks = {1: _check_1, 2: _check_2, 3: _check_3, 4: _check_4, 5: _check_5}
    if number not in checks:
        raise ValueError(f"notebook 02 has exercises 1-5, not {number!r}: call check(N, your_function)")
    return checks[number](*answers, **kw)


def _tiny_setup() -> SimpleNamespace:
    """A stand-in for :func:`small_setup`'s namespace: 8 texts of 6 tokens, 20 ids, a 1-layer x 8 model."""
    rows = np.array([[2, 10, 11, 12, 13, 3], [2, 14, 15, 16, 17, 3]] * 4)
    x = {"token_ids": rows, "segment_ids": 0 * rows, "padding_mask": np.ones_like(rows)}
    masker = text.MLMMasker(vocabulary_size=20, mask_token_id=4, special_token_ids=[0, 2, 3], max_predictions=2)
    Z = dict(num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, sequence_length=6, dropout=0.0,
             pooling="mean", stage1_steps=4, batch_size=4, stage1_lr=1e-2, warmup=0.0, rho1=1, rho2=20,
             stage2_lr=1e-2, stage2_epochs=1)  # fmt: skip
    y = np.arange(8) % 2
    split = SimpleNamespace(y=y)
    return SimpleNamespace(
        Z=Z,
        smoke=True,
        x={"train": x, "dev": x, "test": x},
        external=x,
        tokens=SimpleNamespace(vocabulary=SimpleNamespace(size=20), masker=masker),
        ds=SimpleNamespace(num_classes=2, train=split, dev=split, test=split),
        seeds=[0],
        guess=0.5,
    )


@contextlib.contextmanager
def _spying(module, name: str, calls: list, before=None, after=None):
    """Replace ``module.name`` by a wrapper recording each call's arguments (and ``before``/``after`` hooks)."""
    real = getattr(module, name)

    def spy(*args, **kwargs):
        """The real function, its call recorded."""
        call = SimpleNamespace(args=args, kwargs=kwargs, before=before(*args, **kwargs) if before else None)
        call.result = real(*args, **kwargs)
        call.after = after(*args, **kwargs) if after else None
        calls.append(call)
        return call.result

    setattr(module, name, spy)
    try:
        yield calls
    finally:
        setattr(module, name, real)


def _accuracy(model, setup) -> float:
    """Test accuracy of a TLM model's classifier on ``setup``."""
    return runs.scores(model.classifier(), setup.x["test"], setup.ds.test.y)[0]


def _check_1(distinct_share) -> Verdict:
    """Exercise 1: the share of the K x queries hits that are distinct passages."""
    cases = [(96, 1, 100), (704, 8, 100), (2560, 32, 100), (50, 5, 10)]
    for passages, k, queries in cases:
        try:
            got = distinct_share(passages, k, queries)
        except TypeError:  # written for the selection's ids rather than their count
            got = distinct_share(list(range(passages)), k, queries)
        if why := unanswered(got, f"distinct_share({passages}, {k}, {queries})"):
            return answer(False, why)
        want = passages / (k * queries)
        if not isinstance(got, (int, float, np.floating)) or not math.isclose(float(got), want, rel_tol=1e-6):
            return answer(
                False,
                f"distinct_share({passages}, {k}, {queries}) returned {got!r}: {queries} queries with {k} hits each "
                "make the denominator; the share is at most 1 and falls when queries share passages",
            )
    return answer(True, f"distinct_share gives the right share on {len(cases)} cases (1.0: no two queries share)")


def _test_texts() -> int:
    """How many test texts :func:`small_setup` scores at this scale (the exercises' runs)."""
    from ... import config, papers  # noqa: PLC0415 - papers imports the paper packages

    Z = papers.sizes("tlm")
    if config.scale() == "smoke":
        Z.update(SMOKE)
    return len(data.load(Z["ablation_task"], max_train=Z["max_train"], max_eval=Z["max_eval"], seed=0).test)


def _compare(a, b, n: int) -> tuple[str, str]:
    """``a`` against ``b`` (one accuracy or difference per seed): higher, lower or same, and the test that says so."""
    a, b = np.ravel(np.asarray(a, float)), np.ravel(np.asarray(b, float))
    if len(a) >= 2 and len(a) == len(b):
        d = a - b
        shows, p = direction(d.mean(), d.std(ddof=1) / math.sqrt(len(d)), df=len(d) - 1)
        return shows, f"{100 * d.mean():+.1f} points, paired t over {len(d)} seeds, df = {len(d) - 1}, p = {p:.3g}"
    return _one_seed(float(a.mean() - b.mean()), [a.mean(), b.mean()], n)


def _one_seed(diff: float, accuracies, n: int) -> tuple[str, str]:
    """One seed's difference ``diff`` of the ``accuracies`` on ``n`` test texts (taken as independent): a z-test."""
    acc = np.asarray(accuracies, float)
    shows, p = direction(diff, math.sqrt(float((acc * (1 - acc)).sum()) / n))
    return shows, f"{100 * diff:+.1f} points, one seed: a z-test over the {n} test texts, p = {p:.3g}"


def _check_2(stage1_accuracy, prediction=None, acc=None) -> Verdict:
    """Exercise 2: stage 1 with the task head on [CLS] or on the token mean, its test accuracy; the prediction."""
    setup = _tiny_setup()
    for pooling in ("cls", "mean"):
        built, trained = [], []
        with _spying(sys.modules[__name__], "new_tlm", built), _spying(train, "train_stage1", trained):
            got = stage1_accuracy(setup, pooling)
        if why := unanswered(got, f'stage1_accuracy(setup, "{pooling}")'):
            return answer(False, why)
        if len(built) != 1 or len(trained) != 1:
            return answer(
                False,
                f'stage1_accuracy(setup, "{pooling}") built {len(built)} model(s) with ex.new_tlm and ran stage 1 '
                f"{len(trained)} time(s): build one model and train its stage 1 once (ex.stage1)",
            )
        model, recipe = built[0].result, trained[0].args[4]
        if model.pooling != pooling:
            return answer(False, f'asked for pooling "{pooling}", the model\'s task head reads "{model.pooling}"')
        if recipe.rho2 != 0 or not 0 < recipe.rho1 < math.inf:
            return answer(
                False,
                f"stage 1 ran with rho1 = {recipe.rho1}, rho2 = {recipe.rho2}: the exercise wants the interleaved "
                "stream (retrieved batches between task batches, the sizes' rho1) and no task-text MLM (rho2 = 0)",
            )
        if trained[0].args[0] is not model:
            return answer(False, "stage 1 trained another model than the one built with the pooling asked")
        want = _accuracy(model, setup)
        if not isinstance(got, (int, float, np.floating)) or not math.isclose(float(got), want, abs_tol=1e-9):
            return answer(
                False,
                f'stage1_accuracy(setup, "{pooling}") returned {got!r}, not the accuracy of the trained classifier '
                "on the test split (runs.scores(...)[0]: a share of the test texts, between 0 and 1)",
            )
    choices = ("cls", "mean", "same")
    if why := unpredicted(prediction, choices):
        return answer(False, f"stage1_accuracy is right; {why} (which head scores higher after stage 1?)")
    if not isinstance(acc, dict) or not all(np.size(acc.get(k, [])) for k in ("cls", "mean")):
        return answer(
            False,
            'stage1_accuracy is right; now run it and pass acc={"cls": [...], "mean": [...]}, one test accuracy '
            "per seed for each head",
        )
    shows, test = _compare(acc["mean"], acc["cls"], _test_texts())
    shows = {"higher": "mean", "lower": "cls"}.get(shows, "same")
    return answer(
        prediction == shows,
        f"the token-mean head against the [CLS] head after stage 1: {test}, so {shows} "
        f"({'within the noise' if shows == 'same' else 'higher'}; you predicted {prediction})",
    )


def _shares(rho1: float, rho2: float, normalize_internal: bool) -> tuple[float, float, float]:
    """The reference: one cycle's loss weight on the task, the task texts' MLM and the retrieved texts' MLM."""
    scale = rho2 + 1 if normalize_internal else 1
    w_mlm, w_task = rho2 / scale, 1 / scale
    total = w_mlm + w_task + rho1
    return w_task / total, w_mlm / total, rho1 / total


def _check_3(cycle_shares) -> Verdict:
    """Exercise 3: the shares of one cycle's loss weight, with and without the kit's normalisation."""
    cases = [(3, 20, True), (3, 20, False), (1, 100, True), (1, 100, False), (19, 0, True), (0, 5, False)]
    for rho1, rho2, normalize in cases:
        call = f"cycle_shares({rho1}, {rho2}, normalize_internal={normalize})"
        got = cycle_shares(rho1, rho2, normalize_internal=normalize)
        if why := unanswered(got, call):
            return answer(False, why)
        try:
            got = [float(v) for v in (got.values() if isinstance(got, dict) else got)]
        except (TypeError, ValueError):
            return answer(False, f"{call} returned {got!r}: return three numbers (task, task-text MLM, retrieved MLM)")
        if len(got) != 3 or not math.isclose(sum(got), 1, abs_tol=1e-6):
            return answer(
                False, f"{call} returned {got}: three shares (task, task-text MLM, retrieved MLM) summing to 1"
            )
        if not np.allclose(got, _shares(rho1, rho2, normalize), atol=1e-6):
            return answer(
                False,
                f"{call} gives {[round(v, 3) for v in got]}, not the shares of one cycle: one task batch weighing "
                "rho2 x MLM + task (all of it divided by rho2 + 1 when normalised) and rho1 retrieved batches of "
                "MLM with weight 1, in the order task, task-text MLM, retrieved MLM",
            )
    return answer(True, f"the shares are right on {len(cases)} settings, normalised and as printed")


def _check_4(two_stages, prediction=None, results=None) -> Verdict:
    """Exercise 4: test accuracy after stage 1 and after stage 2 on the same weights."""
    setup = _tiny_setup()
    for rho1 in (setup.Z["rho1"], math.inf):
        built, trained, tuned = [], [], []

        def accuracy(clf, *_, **__):
            """The classifier's test accuracy (before and after stage 2)."""
            return runs.scores(clf, setup.x["test"], setup.ds.test.y)[0]

        me = sys.modules[__name__]
        with (
            _spying(me, "new_tlm", built),
            _spying(train, "train_stage1", trained),
            _spying(train, "fit_classifier", tuned, before=accuracy, after=accuracy),
        ):
            got = two_stages(setup, rho1, steps=4, epochs=1)
        call = f"two_stages(setup, {rho1}, steps=4, epochs=1)"
        if why := unanswered(got, call):
            return answer(False, why)
        if (len(built), len(trained), len(tuned)) != (1, 1, 1):
            return answer(
                False,
                f"{call} built {len(built)} model(s) (ex.new_tlm), ran stage 1 {len(trained)} time(s) (ex.stage1) "
                f"and stage 2 {len(tuned)} time(s) (kit.train.fit_classifier): one of each",
            )
        recipe = trained[0].args[4]
        if recipe.rho1 != rho1 or recipe.rho2 != setup.Z["rho2"] or recipe.steps != 4:
            return answer(
                False,
                f"{call}: stage 1 ran with rho1 = {recipe.rho1}, rho2 = {recipe.rho2}, {recipe.steps} steps; "
                "it should take the rho1 and steps asked and the sizes' rho2",
            )
        clf = tuned[0].args[0]
        if not _shares_weights(built[0].result, clf):
            return answer(False, "stage 2 trained a classifier that does not share the stage-1 model's weights")
        try:
            got = [float(v) for v in got]
        except (TypeError, ValueError):
            return answer(False, f"{call} returned {got!r}: return two accuracies (after stage 1, after stage 2)")
        want = [tuned[0].before, tuned[0].after]
        if len(got) != 2 or not np.allclose(got, want, atol=1e-9):
            return answer(
                False,
                f"{call} returned {got}: not the test accuracy of the classifier just before stage 2 and just "
                "after it (score it between the two stages, then again)",
            )
    choices = ("main", "ext only", "same")
    if why := unpredicted(prediction, choices):
        return answer(False, f"two_stages is right; {why} (which setting gains more from stage 2?)")
    return _stage2_gains(prediction, results)


def _stage2_gains(prediction: str, results) -> Verdict:
    """Exercise 4's prediction against the run: stage 2's gain for Ext only against the main rho1's, and its test."""
    try:
        main = next(k for k in results if k != math.inf)
        runs_ = {k: np.asarray([[float(a1), float(a2)] for a1, a2 in results[k]]) for k in (main, math.inf)}
        gains = {k: v[:, 1] - v[:, 0] for k, v in runs_.items()}
    except (TypeError, ValueError, KeyError, StopIteration, IndexError):
        return answer(
            False,
            "two_stages is right; now run it and pass results={rho1: [two_stages(setup, rho1, seed) for seed in "
            "setup.seeds]} for the main rho1 and math.inf",
        )
    if len(gains[main]) >= 2 and len(gains[main]) == len(gains[math.inf]):
        shows, test = _compare(gains[math.inf], gains[main], _test_texts())
    else:  # one seed: four accuracies on the same texts, taken as independent (an approximation)
        d = float(gains[math.inf].mean() - gains[main].mean())
        shows, test = _one_seed(d, np.concatenate([v.mean(0) for v in runs_.values()]), _test_texts())
    shows = {"higher": "ext only", "lower": "main"}.get(shows, "same")
    return answer(
        prediction == shows,
        f"stage 2's gain for Ext only against the main rho1 = {main}: {test}, so {shows} (you predicted {prediction})",
    )


def _shares_weights(model, clf) -> bool:
    """Whether the classifier ``clf`` holds the TLM model's own variables (the same weights, not a copy)."""
    own = {id(v) for v in model.weights}
    return bool(clf.weights) and all(id(v) in own for v in clf.weights)


def _check_5(seconds_per_step, prediction=None, per_step=None) -> Verdict:
    """Exercise 5: seconds per stage-1 step over the second of two chunks of n steps."""
    setup, n = _tiny_setup(), 3
    ends: list[float] = []  # when each chunk ended, by the check's clock
    real = train.train_stage1

    def timed(*args, **kwargs):
        """The real train_stage1, the check's clock read beside the learner's callback after each chunk."""
        progress = kwargs.get("progress")

        def both(*a):
            """The check's clock, then the learner's callback."""
            ends.append(time.perf_counter())
            return progress(*a) if progress else None

        return real(*args, **{**kwargs, "progress": both})

    train.train_stage1 = timed
    try:
        model = new_tlm(setup, seed=0)
        got = seconds_per_step(model, setup.x["train"], setup.ds.train.y, setup.tokens.masker, n=n, batch_size=4)
    finally:
        train.train_stage1 = real
    call = f"seconds_per_step(model, x, y, masker, n={n}, batch_size=4)"
    if why := unanswered(got, call):
        return answer(False, why)
    if len(ends) != 2:
        return answer(
            False,
            f"{call} ran {len(ends)} chunk(s) of stage 1: run train_stage1 once, in two chunks of n steps "
            "(warm-up, then timed), with a progress callback",
        )
    want = (ends[1] - ends[0]) / n
    if not isinstance(got, (int, float, np.floating)) or not math.isclose(float(got), want, rel_tol=0.25):
        return answer(
            False,
            f"{call} returned {got!r}, but the second chunk of {n} steps took {want:.4f} s a step: time only the "
            "second chunk (the first warms up) and divide by its steps",
        )
    choices = ("under 2x", "2x or more")
    if why := unpredicted(prediction, choices):
        return answer(False, f"{call} times right; {why} (how many times a compact step is the full one?)")
    try:
        compact, full = (float(v) for v in per_step)
    except (TypeError, ValueError):
        return answer(
            False,
            f"{call} times right; now time both models and pass per_step=[compact seconds, full seconds]",
        )
    ratio = full / compact
    shows = choices[ratio >= 2]
    return answer(
        prediction == shows,
        f"a full-vocabulary step took {ratio:.1f}x the compact one in your run, so {shows} (you predicted "
        f"{prediction}); {100 * (1 - 1 / ratio):.0f}% of a full step is the extra vocabulary rows",
    )
