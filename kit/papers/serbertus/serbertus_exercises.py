"""Notebook 04's exercises: the shared set-up of a small SerBERTus experiment, so a solution shows its experiment.

:func:`small_tasks` loads and encodes tasks once, with a fresh-encoder factory; :func:`recipe_optimizer` is the
notebook's AdamW; :func:`mean_se` formats a score over seeds; :func:`check` is each exercise's check cell.

>>> import kit
>>> setup = small_tasks(max_train=48, max_eval=32)           # doctest: +SKIP
>>> model = kit.papers.serbertus.serbertus_runs.build_model(  # doctest: +SKIP
...     setup.make_backbone(), setup.heads, "single", pooling=setup.S["pooling"])
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ... import analysis, config, models, papers, train
from ...checks import Verdict, answer, unanswered, unpredicted
from ...models.compact_backbone import compact_backbone
from . import serbertus_runs as runs


def _copier(template):
    """A function that returns a fresh copy of ``template`` (its config and its weights): every run starts equal."""

    def make_backbone():
        fresh = type(template).from_config(template.get_config())
        fresh.set_weights(template.get_weights())
        return fresh

    return make_backbone


def small_tasks(tasks=None, max_train=None, max_eval=None, smoke_layers: int = 2, sizes=None) -> SimpleNamespace:
    """Some of notebook 04's tasks, encoded (MiniLM WordPiece, token table cut to ids used), with an encoder factory.

    ``tasks``: slots (``"sst"``, ``"qqp"``, ``"sts"``; None: the ablation task); ``max_train``/``max_eval``: examples
    per task (None: the scale's); ``smoke_layers``: MiniLM's bottom layers kept at smoke (other scales:
    ``encoder_layers``); ``sizes``: default ``kit.papers.sizes("serbertus")``. Returns a namespace: ``S`` (sizes),
    ``smoke``, ``A`` (first task), ``tasks``, ``datasets``, ``data`` (``{task: {split: (inputs, labels)}}``), ``kinds``,
    ``heads``, ``make_backbone``, ``guess`` (``{task: constant guess's test score}``) and ``seed`` (the sizes' first).
    """
    S = dict(sizes or papers.sizes("serbertus"))
    smoke = config.scale() == "smoke"
    tasks = list(tasks or [S["ablation_task"]])
    limits = {k: v for k, v in (("max_train", max_train), ("max_eval", max_eval)) if v is not None}
    datasets = runs.load_tasks({**S, "tasks": {t: S["tasks"][t] | limits for t in tasks}})
    enc = models.load_backbone(S["backbone"], sequence_length=S["sequence_length"])
    raw = {t: runs.task_inputs(ds, enc.preprocessor) for t, ds in datasets.items()}
    vocab = runs.compact_vocabulary(raw, enc.tokenizer) if S["compact_vocabulary"] else None
    data = runs.with_vocabulary(raw, vocab)
    kinds, heads = runs.kinds_and_heads(datasets)
    template = compact_backbone(enc.backbone, vocab) if vocab is not None else enc.backbone
    template = models.truncate_backbone(template, smoke_layers if smoke else S["encoder_layers"])
    guess = {
        t: analysis.constant_guess(
            data[t]["train"][1], data[t]["test"][1], "pearson" if kinds[t] == "regression" else "accuracy"
        )
        for t in tasks
    }
    return SimpleNamespace(
        S=S, smoke=smoke, A=tasks[0], tasks=tasks, datasets=datasets, data=data, kinds=kinds, heads=heads,
        make_backbone=_copier(template), guess=guess, seed=S["seeds"][0],
    )  # fmt: skip


def recipe_optimizer(model, S: dict, steps: int, decay: float = 1.0, **options):
    """``(optimizer, schedule)``: notebook 04's AdamW for ``steps``: warm-up, cosine, rates per layer, clipped (norm 1).

    ``model``'s own backbone is the one ``decay`` counts (1: one rate); ``S`` gives ``learning_rate``, ``warmup``,
    ``weight_decay``; ``options`` go to :func:`kit.train.llrd_optimizer` (``embeddings``, ``head_multiplier``).
    """
    schedule = train.schedules.cosine(S["learning_rate"], steps, round(S["warmup"] * steps))
    optimizer = train.llrd_optimizer(
        model, model, schedule, decay=decay, weight_decay=S["weight_decay"], global_clipnorm=1.0, **options
    )
    return optimizer, schedule


def mean_se(values) -> str:
    """``"mean ± standard error"`` of scores over seeds (just the mean for one seed)."""
    v = np.asarray(values, dtype=float)
    return analysis.format_mean_se(v.mean(), v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan)


def check(number: int, *answers, **kw) -> Verdict:
    """Say whether an answer to notebook 04's exercise ``number`` (1-5) is right (``right: why``) or not yet, and why.

    Tries the learner's function on a small made-up case against the kit's own computation (or reads their run) and
    compares a recorded ``prediction=`` with what the run shows; never prints the solution. Returns True when right;
    ValueError for no exercise ``number``.

    Example:
        check(4, lambda before, after: ..., prediction=None)   # prints "not yet: ..." and returns False
    """
    checks = {1: _check_1, 2: _check_2, 3: _check_3, 4: _check_4, 5: _check_5}
    if number not in checks:
        raise ValueError(f"Notebook 04 has exercises {sorted(checks)}, not {number!r}.")
    return checks[number](*answers, **kw)


def _call(fn, name: str, *args):
    """``(value, why_not)``: ``fn(*args)``, or None and why it is no answer (not a function, raised, unanswered)."""
    if not callable(fn):
        return None, f"{name} is not a function: pass the function itself"
    try:
        value = fn(*args)
    except Exception as err:  # the learner's code: say what it raised
        return None, f"{name} raised {type(err).__name__}: {err}"
    return value, unanswered(value, name)


def _check_1(noise_norms, prediction=None) -> Verdict:
    """Exercise 1: noise_norms per token (inf-norm and L2) and the size of the noise after one ascent step."""
    rng = np.random.default_rng(1)
    cases = [rng.normal(0, 1e-5, (2, 3, 8)), rng.normal(0, 1, (3, 5, 16)) * rng.random((3, 5, 1))]
    for noise in cases:
        got, why = _call(noise_norms, "noise_norms(noise)", noise)
        if why:
            return answer(False, why)
        want = (np.abs(noise).max(-1).mean(), np.sqrt((noise**2).sum(-1)).mean())
        try:
            ok = np.allclose(np.asarray(got, dtype=float).ravel(), want, rtol=1e-4, atol=0)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            return answer(
                False,
                f"on made-up noise of shape {noise.shape} (batch, length, hidden) noise_norms gave {got!r}: expected "
                "two numbers, each token's largest |entry| and each token's L2 norm (over the last axis), each "
                "averaged over the tokens",
            )
    choices = ("epsilon", "sigma", "one")
    if why := unpredicted(prediction, choices):
        return answer(False, f"noise_norms measures right; {why}")
    # one ascent step as the kit's SMART takes it: sigma-sized start, eta x a gradient, divided by the per-token max
    start = rng.normal(0, 1e-5, (4, 6, 32))
    step = start + 1e-3 * rng.normal(0, 1e-3, start.shape)
    final = step / (np.abs(step).max(-1, keepdims=True) + 1e-6)
    size = float(noise_norms(final)[0])
    shows = min(choices, key=lambda c: abs(np.log10(size) - np.log10({"epsilon": 1e-6, "sigma": 1e-5, "one": 1.0}[c])))
    return answer(
        prediction == shows,
        f"noise_norms measures right, and after one step normalised by the per-token inf-norm each token's largest "
        f"entry is {size:.3g}, so the noise is of size {shows} (you predicted {prediction}): epsilon only keeps the "
        "division finite",
    )


def _check_2(results, prediction=None) -> Verdict:
    """Exercise 2: the run's (train, test, R_s) at lambda_s 0 and 100, and whether lambda_s = 100 fits less."""
    if not isinstance(results, dict) or not {0.0, 100.0} <= set(results):
        got = sorted(results) if isinstance(results, dict) else type(results).__name__
        return answer(
            False,
            f"results holds {got}: fill it with {{lambda_s: train_and_test(setup, lambda_s)}} for lambda_s 0.0 and "
            "100.0 (run the loop under # YOUR CODE)",
        )
    rows = {}
    for lam in (0.0, 100.0):
        row = results[lam]
        if not isinstance(row, (tuple, list)) or len(row) != 3:
            return answer(False, f"results[{lam}] is {row!r}: expected (training score, test score, R_s)")
        train, test, r_s = row
        if not all(isinstance(s, (int, float, np.floating)) and 0.0 <= s <= 1.0 for s in (train, test)):
            return answer(False, f"results[{lam}] scores {train!r}, {test!r}: expected two accuracies in [0, 1]")
        rows[lam] = (float(train), float(test), float(r_s or 0.0))
    if rows[100.0][2] <= 0.0:
        return answer(False, "R_s in the last epoch is 0 at lambda_s = 100: SMART was not on (pass lambda_s on)")
    if rows[0.0][2] != 0.0:
        return answer(False, "R_s is not 0 at lambda_s = 0: that run should train without SMART")
    choices = ("lower", "same", "higher")
    if why := unpredicted(prediction, choices):
        return answer(False, f"the runs are in; {why} (lambda_s = 100's training score against lambda_s = 0's)")
    gap = rows[100.0][0] - rows[0.0][0]
    shows = "lower" if gap < -0.02 else "higher" if gap > 0.02 else "same"
    return answer(
        prediction == shows,
        f"your run's training score at lambda_s = 100 came out {shows} than without SMART ({gap:+.3f}); you "
        f"predicted {prediction}. The test scores of one seed on a few dozen examples cannot rank the two",
    )


def _adam_reference(gradients, scale, learning_rate=1e-3):
    """Adam's weights after one step per gradient (``scale`` x each), from zeros: the check's own computation."""
    import keras  # noqa: PLC0415 - keras only when the check runs

    w = keras.Variable(np.zeros(len(gradients[0]), "float32"))
    adam = keras.optimizers.Adam(learning_rate=learning_rate)
    for g in gradients:
        adam.apply_gradients([(keras.ops.convert_to_tensor(scale * np.array(g, "float32")), w)])
    return keras.ops.convert_to_numpy(w)


def _check_3(adam_moves, prediction=None) -> Verdict:
    """Exercise 3: Adam's steps on gradients and on gradients / 100 (the same, up to Adam's epsilon)."""
    grads = [[0.3, -1.5, 0.2, 0.05], [0.1, -0.5, 0.6, -0.02], [0.2, 0.4, -0.1, 0.01]]
    moved = {}
    for scale in (1.0, 0.01):
        got, why = _call(adam_moves, f"adam_moves(grads, {scale})", grads, scale)
        if why:
            return answer(False, why)
        got = np.asarray(got, dtype=float)
        want = _adam_reference(grads, scale)
        if not np.abs(got).any():
            return answer(False, "adam_moves left the weights at zero: apply each gradient with adam.apply_gradients")
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-3, atol=1e-7):
            return answer(
                False,
                f"three made-up gradients x {scale}: your weights differ from the kit's Adam steps (expected one "
                "Adam step per gradient, scaled by `scale`, from zeros, at the given learning rate)",
            )
        moved[scale] = got
    choices = ("same", "smaller")
    if why := unpredicted(prediction, choices):
        return answer(False, f"adam_moves is right; {why} (Adam's steps on the gradients / 100 against as given)")
    ratio = float(np.abs(moved[0.01]).sum() / np.abs(moved[1.0]).sum())
    shows = "same" if ratio > 0.9 else "smaller"
    return answer(
        prediction == shows,
        f"adam_moves is right; on gradients / 100 Adam moved the weights {ratio:.3f} times as far, the {shows} "
        f"(you predicted {prediction}): which is why the kit scales each layer's rate, not its gradient",
    )


def _check_4(step_length, prediction=None) -> Verdict:
    """Exercise 4: the L2 length of one step over a branch's arrays, and whether AdamW moves it on a zero gradient."""
    rng = np.random.default_rng(4)
    for shapes in (((3, 4), (4,)), ((2, 2), (5,), (1, 3))):
        before = [rng.normal(size=s) for s in shapes]
        after = [b + rng.normal(0, 0.1, b.shape) for b in before]
        got, why = _call(step_length, "step_length(before, after)", before, after)
        if why:
            return answer(False, why)
        want = np.sqrt(sum(np.sum((a - b) ** 2) for a, b in zip(after, before)))
        if not np.isclose(float(np.asarray(got)), want, rtol=1e-5):
            return answer(
                False,
                f"on {len(shapes)} made-up arrays step_length gave {float(np.asarray(got)):.4g}: expected one L2 norm "
                "of (after - before) over all the arrays together (not a norm per array added up, nor a squared one)",
            )
    choices = ("moves", "stays")
    if why := unpredicted(prediction, choices):
        return answer(False, f"step_length is right; {why} (does a branch move on a batch where its gradient is 0?)")
    import keras  # noqa: PLC0415 - keras only when the check runs

    w = keras.Variable(np.ones(4, "float32"))
    adamw = keras.optimizers.AdamW(learning_rate=1e-2, weight_decay=0.01)
    adamw.apply_gradients([(keras.ops.convert_to_tensor(np.array([0.5, -1.0, 0.2, 0.3], "float32")), w)])
    before = [keras.ops.convert_to_numpy(w)]
    adamw.apply_gradients([(keras.ops.zeros(4), w)])  # the other task's batch: this branch's gradient is 0
    length = float(np.asarray(step_length(before, [keras.ops.convert_to_numpy(w)])))
    shows = "moves" if length > 1e-7 else "stays"
    return answer(
        prediction == shows,
        f"step_length is right; one AdamW step with a zero gradient, after one real one, has length {length:.2g}: the "
        f"weights {shows.replace('moves', 'move').replace('stays', 'stay')} (you predicted {prediction}); think of "
        "what AdamW keeps from earlier steps and what its weight decay does",
    )


def _made_up_dev(seed: int, n: int = 40, models: int = 3, lift: float = 0.3):
    """Notebook 04's exercise 5 made-up dev scores: ``(dev, y_dev)`` for ``models`` models on ``n`` examples."""
    rng = np.random.default_rng(seed)
    y_dev = rng.integers(0, 2, n)
    dev = {f"model {i}": lift * np.eye(2)[y_dev] + rng.random((n, 2)) for i in range(models)}
    return dev, y_dev


def _check_5(gated, prediction=None) -> Verdict:
    """Exercise 5: the hand-made dev gate against kit.train.dev_gated_ensemble, in both orders, on made-up scores."""
    for seed, n, count in ((0, 40, 3), (1, 12, 5), (2, 8, 6), (3, 10, 5)):
        dev, y_dev = _made_up_dev(seed, n, count)
        acc = {name: float(np.mean(p.argmax(1) == y_dev)) for name, p in dev.items()}
        for label, order in (("best first", sorted(dev, key=acc.get, reverse=True)), ("given", list(dev))):
            got, why = _call(gated, "gated(dev, y_dev, order)", dev, y_dev, order)
            if why:
                return answer(False, why)
            kit_order = "best_first" if label == "best first" else "given"
            want = train.dev_gated_ensemble(
                {m: {"t": p} for m, p in dev.items()}, {"t": y_dev}, {"t": "classification"}, order=kit_order
            )["t"].members
            if list(got) != list(want):
                kept = "no model" if not list(got) else "other models than the kit's gate"
                return answer(
                    False,
                    f"{count} made-up models on {n} examples, {label} order: your gate kept {kept} (the first always "
                    "joins; a later one joins when the dev accuracy of the members' average does not drop, ties "
                    "included)",
                )
    choices = (1, 2, 3)
    if why := unpredicted(prediction, choices):
        return answer(False, f"gated is right; {why} (how many of the starter's three models join, best first?)")
    dev, y_dev = _made_up_dev(0)
    acc = {name: float(np.mean(p.argmax(1) == y_dev)) for name, p in dev.items()}
    joined = len(gated(dev, y_dev, sorted(dev, key=acc.get, reverse=True)))
    return answer(
        prediction == joined,
        f"gated agrees with kit.train.dev_gated_ensemble on made-up scores in both orders; on the starter's three "
        f"models, best first, {joined} joined (you predicted {prediction})",
    )
