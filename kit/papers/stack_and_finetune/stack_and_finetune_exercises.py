"""Notebook 03's exercises: the set-up their solutions share, so each solution shows only its experiment.

Every exercise trains the classification task (BBC headlines at smoke and medium, Yahoo Answers at full):
:func:`classification_setup` prepares it; :class:`ExerciseSetup` gives each run its BERT-Adam, phase-1 rule, accuracy.

>>> EMBEDDINGS
('token_embedding', 'position_embedding', 'segment_embedding', 'embeddings_layer_norm')
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import config
from ...analysis.baselines import constant_guess
from ...checks import Verdict, answer, unanswered
from ...models import load_backbone
from ...models.truncate import truncate_backbone
from ...train.freeze_helpers import ReusableBackbone, optimizer_factory
from . import stack_and_finetune_sizes as size_table
from . import stack_and_finetune_tasks as task_specs
from .stack_and_finetune_runs import TaskData, encode_tasks, score

#: The backbone's four embedding layers (not one group): ``fixed="all"`` keeps every one of them fixed.
EMBEDDINGS = ("token_embedding", "position_embedding", "segment_embedding", "embeddings_layer_norm")
#: At smoke the exercises use fewer and shorter texts than the notebook, so a run takes seconds on a CPU.
SMOKE_TASK = {"max_train": 64, "max_dev": 32, "sequence_length": 16}


@dataclass
class ExerciseSetup:
    """One exercise's task and encoder, and the recipe's pieces a run passes ``kit.train.stack_and_finetune``.

    ``sizes`` include ``KIT_SIZES``; at ``smoke`` solutions train fewer epochs on one seed; ``backbone`` is cut to its
    depth; ``encoder`` wraps it (:class:`ReusableBackbone`: ``encoder.fresh()`` before every run); ``guess``: the most
    frequent training class's test accuracy.
    """

    sizes: dict
    smoke: bool
    name: str
    task: TaskData
    backbone: object
    encoder: ReusableBackbone
    guess: float
    seeds: list

    def optimizer(self, strategy: str, phase1_epochs: int, phase2_epochs: int):
        """A fresh BERT-Adam per phase (``kit.train.optimizer_factory``) for a run of ``strategy``."""
        s = self.sizes
        steps = self.task.steps_per_epoch(s["batch_size"])
        return optimizer_factory(
            strategy, steps, phase1_epochs, phase2_epochs, s["schedule"], s["warmup"], s["weight_decay"]
        )

    def divergence(self) -> dict:
        """The notebook's phase-1 rule: ``{"threshold", "patience"}`` of ``kit.train.DivergenceStopping``."""
        return {"threshold": self.sizes["divergence_threshold"], "patience": self.sizes["divergence_patience"]}

    def test_accuracy(self, model) -> float:
        """``model``'s accuracy on the task's test split."""
        return score(self.task, model.predict(self.task.x["test"], verbose=0))["accuracy"]

    def header(self, what: str) -> str:
        """One line: the task, its sizes, ``what`` is trained, the seeds and the constant guess."""
        return f"{self.name}: {self.task.sizes()}, {what}, seeds {self.seeds}; constant guess {100 * self.guess:.1f}%"


def classification_setup(fixed: str = "word") -> ExerciseSetup:
    """An :class:`ExerciseSetup`: the classification task loaded and encoded, the encoder cut, the embeddings ``fixed``.

    At smoke: 64 training texts of 16 tokens, the encoder's bottom 2 layers, one seed; else the scale's task,
    ``sizes["encoder_layers"]`` layers, every seed. ``fixed``: ``"word"`` (the 11.7M-weight word-embedding table, at
    smoke only, for speed) or ``"all"`` (the :data:`EMBEDDINGS`, every scale); anything else is a ValueError.
    """
    if fixed not in ("word", "all"):
        raise ValueError(f"fixed must be 'word' or 'all', not {fixed!r}")
    sizes = config.paper_sizes("stack_and_finetune", size_table.DEFAULTS, size_table.SCALES)
    smoke = config.scale() == "smoke"
    name = next(n for n, s in sizes["tasks"].items() if s["section"] == "classification")
    spec = {**sizes["tasks"][name], **(SMOKE_TASK if smoke else {})}
    enc = load_backbone(sizes.get("backbone") or config.sizes()["backbone"])
    task = encode_tasks(task_specs.task_datasets({name: spec}), {name: spec}, enc.tokenizer)[name]
    backbone = truncate_backbone(enc.backbone, 2 if smoke else sizes["encoder_layers"])
    for layer in EMBEDDINGS if fixed == "all" else ("token_embedding",) if smoke else ():
        backbone.get_layer(layer).trainable = False  # before the wrap: fresh() puts these flags back
    guess = constant_guess(task.y["train"], task.y["test"])
    seeds = sizes["seeds"][:1] if smoke else sizes["seeds"]
    return ExerciseSetup(sizes, smoke, name, task, backbone, ReusableBackbone(backbone), guess, seeds)


# ---- the checks: each tries the learner's function on a toy task and a 2-layer toy BERT against the kit's own run ----

_WORDS = ["good", "bad", "film", "a", "play", "##s", "fine", "dull", "the", "show"]
_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *_WORDS]
#: The predictions each exercise asks for (its keyword ``prediction``) and what they may be.
PREDICTIONS = {1: ("negative", "positive"), 2: ("above", "below"), 3: ("all", "gradual")}


def check(number: int, *answers, **kw) -> Verdict:
    """Say whether exercise ``number``'s (1-3) answer is right or not yet, and why, without giving the solution.

    Calls ``run_rule`` (1), ``run_arm`` (2) or ``run_unfreeze`` (3) on a toy task (2-layer random BERT, seconds on a
    CPU) and compares it with the kit's own run weight for weight (test class probabilities). ``prediction``: 1
    ``"negative"`` or ``"positive"`` (first gap); 2 ``"above"`` or ``"below"`` (highway finetune-only vs light); 3
    ``"all"`` or ``"gradual"``. Returns True or False and prints why; ValueError for no such exercise.

    Example:
        ``check(1, run_rule, prediction="negative")`` prints ``right: ...`` or ``not yet: ...``.
    """
    checks = {1: _check_1, 2: _check_2, 3: _check_3}
    if number not in checks:
        raise ValueError(f"notebook 03 has exercises 1, 2 and 3, not {number!r}")
    return checks[number](*answers, **kw)


class _Recording(ExerciseSetup):
    """An :class:`ExerciseSetup` that keeps the class probabilities of every model whose test accuracy it gives."""

    def test_accuracy(self, model) -> float:
        """The test accuracy, after noting the model's test probabilities in ``self.seen``."""
        probs = model.predict(self.task.x["test"], verbose=0)
        self.seen.append(probs)
        return score(self.task, probs)["accuracy"]


def _toy_setup(fixed: str = "word") -> _Recording:
    """A 2-layer random BERT on 24 toy texts (dev and test apart from train), as ``classification_setup`` gives it."""
    import keras  # noqa: PLC0415 - the checks alone need Keras

    from ...data import Split, TextDataset  # noqa: PLC0415
    from ...models import BertBackbone  # noqa: PLC0415
    from ...text import BertPreprocessor, WordPieceTokenizer  # noqa: PLC0415
    from .stack_and_finetune_runs import encode_task  # noqa: PLC0415

    keras.utils.set_random_seed(0)
    bert = BertBackbone(
        len(_VOCAB), num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=8
    )
    texts = [
        ["a good film", "fine plays", "the good show", "a fine film"],
        ["a bad film", "dull plays", "the dull show"],
    ]

    def split(n, shift):
        rows = [(texts[k % 2][(k // 2 + shift) % len(texts[k % 2])], 1 - k % 2) for k in range(n)]
        return Split([t for t, _ in rows], [y for _, y in rows])

    ds = TextDataset("toy", "classification", {"train": split(24, 0), "dev": split(12, 1), "test": split(14, 2)},
                     ["neg", "pos"])  # fmt: skip
    task = encode_task(ds, BertPreprocessor(WordPieceTokenizer(_VOCAB), sequence_length=6))
    for layer in EMBEDDINGS if fixed == "all" else ("token_embedding",):
        bert.get_layer(layer).trainable = False
    sizes = config.paper_sizes("stack_and_finetune", size_table.DEFAULTS, size_table.SCALES)
    sizes = {**sizes, "batch_size": 8}
    setup = _Recording(sizes, True, "toy", task, bert, ReusableBackbone(bert), 0.5, [0])
    setup.seen = []
    return setup


def _fit(setup, model, backbone, recipe, strategy, callbacks=()):
    """``kit.train.stack_and_finetune`` on the setup's task."""
    from ...train import stack_and_finetune  # noqa: PLC0415

    task = setup.task
    train, dev = (task.x["train"], task.y["train"]), (task.x["dev"], task.y["dev"])
    return stack_and_finetune(model, backbone, train, dev, recipe, strategy=strategy, callbacks=list(callbacks))


def _recipe(setup, p1, p2, **kw):
    """A ``FreezeRecipe`` with the setup's rates and batch size, and ``kw``."""
    from ...train import FreezeRecipe  # noqa: PLC0415

    s = setup.sizes
    return FreezeRecipe(phase1_epochs=p1, phase2_epochs=p2, phase1_lr=s["phase1_lr"], phase2_lr=s["phase2_lr"],
                        batch_size=s["batch_size"], **kw)  # fmt: skip


def _ref_rule(setup, threshold, patience, seed, p1, p2):
    """The kit's run for exercise 1: (phase-1 epochs, the kept epoch counted from 1, test accuracy, the gaps)."""
    from ...train import DivergenceStopping  # noqa: PLC0415
    from . import stack_and_finetune_runs as runs  # noqa: PLC0415

    config.set_seed(seed)
    stop = DivergenceStopping(threshold=threshold, patience=patience)
    model = runs.build_model(setup.encoder.fresh(), setup.task, runs.rich_head("highway", 2, setup.sizes))
    recipe = _recipe(setup, p1, p2, divergence=stop, optimizer=setup.optimizer("stack_and_finetune", p1, p2))
    result = _fit(setup, model, setup.backbone, recipe, "stack_and_finetune")
    ran = result.phases[0].epochs
    kept = stop.restored_epoch + 1 if stop.restored_epoch is not None else ran
    return ran, kept, setup.test_accuracy(model), list(stop.gaps)


def _ref_arm(setup, head, strategy, seed, p1, p2):
    """The kit's run for exercise 2: the test accuracy of ``head`` (None: the light head) trained by ``strategy``."""
    from . import stack_and_finetune_runs as runs  # noqa: PLC0415

    s = setup.sizes
    config.set_seed(seed)
    model = runs.build_model(setup.encoder.fresh(), setup.task, head and runs.rich_head(head, 2, s),
                             hidden_dim=s["light_hidden_dim"], pooling=s["light_pooling"])  # fmt: skip
    recipe = _recipe(setup, p1, p2, divergence=setup.divergence(), optimizer=setup.optimizer(strategy, p1, p2))
    _fit(setup, model, setup.backbone, recipe, strategy)
    return setup.test_accuracy(model)


def _groups(setup) -> list:
    """The setup's transformer layers, bottom to top."""
    return [setup.backbone.get_layer(f"transformer_layer_{i}") for i in range(setup.backbone.num_layers)]


def _ref_unfreeze(setup, unfreeze, seed, p1, p2):
    """The kit's run for exercise 3: (test accuracy, per layer the phases it changed in)."""
    from ...train import EncoderWatch, adamw  # noqa: PLC0415
    from . import stack_and_finetune_runs as runs  # noqa: PLC0415

    groups = _groups(setup)
    n = len(groups)
    config.set_seed(seed)
    model = runs.build_model(setup.encoder.fresh(), setup.task, runs.rich_head("highway", 2, setup.sizes))
    watches = [EncoderWatch(g) for g in groups]
    phase2 = p2 if unfreeze == "gradual" else (n - 1) + max(1, p2 - (n - 1))  # the same phase-2 epochs in both arms
    optimizer = lambda lr: adamw(lr, setup.sizes["weight_decay"])  # noqa: E731 - a constant rate in both arms
    recipe = _recipe(setup, p1, phase2, unfreeze=unfreeze, divergence=setup.divergence(), optimizer=optimizer)
    _fit(setup, model, groups, recipe, "stack_and_finetune", watches)
    return setup.test_accuracy(model), [w.changed for w in watches]


def _same_model(setup, seen: int, got, want, what: str) -> str | None:
    """Why the learner's run is not the kit's (its accuracy ``got``; its model scored after ``seen``), or None."""
    import numpy as np  # noqa: PLC0415

    if not isinstance(got, (int, float)) or isinstance(got, bool) or not 0.0 <= float(got) <= 1.0:
        return f"{what} returned {got!r}: expected the test accuracy, a number from 0 to 1 (setup.test_accuracy(model))"
    if len(setup.seen) < seen + 2:
        return f"{what} never scored its model with setup.test_accuracy(model): the check reads the model through it"
    if not np.allclose(setup.seen[-2], setup.seen[-1], atol=1e-4):
        return (
            f"{what} trained a model whose test predictions differ from the kit's run of the same arm "
            "(same seed, head, strategy, phase epochs, rates, phase-1 rule and optimizer): compare your recipe's "
            "fields and the model you build with the question's"
        )
    if abs(float(got) - want) > 1e-6:
        return f"{what} returned {float(got):.3f}, but its model's test accuracy is another number: return that"
    return None


def _prediction(number: int, prediction) -> str | None:
    """Why ``prediction`` is not a recorded prediction for exercise ``number``, or None."""
    options = PREDICTIONS[number]
    if prediction not in options:
        return f"record your prediction first: prediction={options[0]!r} or {options[1]!r} (you passed {prediction!r})"
    return None


def _restoring(gaps: list) -> float:
    """A threshold at which a patience-1 rule stops after an epoch within it and goes back to that epoch's head."""
    for k in range(1, len(gaps)):
        below = max(0.0, *gaps[:k])
        if gaps[k] > below + 1e-6:
            return below + 1e-6
    return 0.0


def _restoring_seed(setup, seeds=range(4)) -> tuple[int, tuple]:
    """The first seed whose toy run lets a patience-1 rule go back to an earlier head, and that run (never-firing rule).

    The toy's gaps differ by backend and seed (tensorflow's seed 0 never allows it), and without such a run a learner's
    ``run_rule`` that keeps the last head, not the restored one, would pass. None of ``seeds``: the last one's run.
    """
    for seed in seeds:
        lax = _ref_rule(setup, 1.0, 2, seed, 3, 1)  # never fires: the gaps of every epoch
        if _restoring(lax[3]) > 0:
            break
    return seed, lax


def _check_1(run_rule=None, prediction=None) -> Verdict:
    """Exercise 1: ``run_rule`` against the kit's run under a strict and a lax rule; the first gap's sign."""
    if not callable(run_rule):
        return answer(False, f"pass the function: check(1, run_rule, prediction=...), not {run_rule!r}")
    if (why := _prediction(1, prediction)) is not None:
        return answer(False, why)
    setup = _toy_setup()
    seed, lax = _restoring_seed(setup)
    for threshold, patience in [(1.0, 2), (0.0, 1), (_restoring(lax[3]), 1)]:
        seen = len(setup.seen)
        got = run_rule(setup, threshold, patience, seed=seed, p1=3, p2=1)
        what = f"run_rule(setup, {threshold:.3g}, {patience}, seed={seed}, p1=3, p2=1)"
        if (why := unanswered(got, what)) is not None:
            return answer(False, why)
        want = _ref_rule(setup, threshold, patience, seed, 3, 1)
        if not isinstance(got, tuple) or len(got) != 3:
            return answer(False, f"{what} returned {got!r}: expected (phase-1 epochs, kept epoch, test accuracy)")
        if (got[0], got[1]) != (want[0], want[1]):
            return answer(
                False,
                f"on a toy task, {what} said phase 1 ran {got[0]} epoch(s) and kept epoch {got[1]}; the kit's run "
                "disagrees: pass your DivergenceStopping to the recipe (divergence=stop), read the epochs from the "
                "result's first phase, and count the kept epoch from 1 (stop.restored_epoch counts from 0; None: "
                "the last epoch's head)",
            )
        if (why := _same_model(setup, seen, got[2], want[2], what)) is not None:
            return answer(False, why)
    sign = "negative" if lax[3][0] < 0 else "positive"
    return answer(
        True,
        "run_rule matches the kit's run under a never-firing, a strict and a restoring rule on a toy task (epochs, "
        f"kept head, accuracy); you predicted a {prediction} first gap. The toy (a random 2-layer BERT, 24 texts) "
        f"showed a {sign} one, no guide to a pretrained encoder: compare your prediction with the first gap your own "
        "run prints",
    )


def _check_2(run_arm=None, prediction=None) -> Verdict:
    """Exercise 2: ``run_arm`` against the kit's run for each of the three arms; the head's finetune-only side."""
    if not callable(run_arm):
        return answer(False, f"pass the function: check(2, run_arm, prediction=...), not {run_arm!r}")
    if (why := _prediction(2, prediction)) is not None:
        return answer(False, why)
    setup = _toy_setup()
    acc = {}
    for head, strategy in [(None, "finetune_only"), ("highway", "finetune_only"), ("highway", "stack_and_finetune")]:
        what = f"run_arm(setup, {head!r}, {strategy!r}, p1=1, p2=1)"
        seen = len(setup.seen)
        got = run_arm(setup, head, strategy, seed=0, p1=1, p2=1)
        if (why := unanswered(got, what)) is not None:
            return answer(False, why)
        acc[head, strategy] = _ref_arm(setup, head, strategy, 0, 1, 1)
        if (why := _same_model(setup, seen, got, acc[head, strategy], what)) is not None:
            return answer(False, why)
    side = "above" if acc["highway", "finetune_only"] > acc[None, "finetune_only"] else "below"
    agree = "agrees with" if side == prediction else "differs from"
    return answer(
        True,
        "run_arm trains all three arms as the kit does on a toy task; there the highway head's finetune-only run "
        f"landed {side} the light head's (ties count as below), which {agree} your prediction: one toy seed, so read "
        "your own run",
    )


def _check_3(run_unfreeze=None, prediction=None) -> Verdict:
    """Exercise 3: ``run_unfreeze`` against the kit's run for both arms, embeddings fixed; the arm that wins."""
    if not callable(run_unfreeze):
        return answer(False, f"pass the function: check(3, run_unfreeze, prediction=...), not {run_unfreeze!r}")
    if (why := _prediction(3, prediction)) is not None:
        return answer(False, why)
    setup = _toy_setup(fixed="all")
    acc = {}
    for unfreeze in ("all", "gradual"):
        what = f"run_unfreeze(setup, {unfreeze!r}, p1=1, p2=2)"
        seen = len(setup.seen)
        got = run_unfreeze(setup, unfreeze, seed=0, p1=1, p2=2)
        if (why := unanswered(got, what)) is not None:
            return answer(False, why)
        acc[unfreeze], changed = _ref_unfreeze(setup, unfreeze, 0, 1, 2)
        if (why := _same_model(setup, seen, got, acc[unfreeze], what)) is not None:
            return answer(False, why)
    best = "gradual" if acc["gradual"] > acc["all"] else "all"
    agree = "agrees with" if best == prediction else "differs from"
    return answer(
        True,
        "run_unfreeze trains both arms as the kit does on a toy 2-layer encoder; there "
        f"{best!r} scored higher (ties count for 'all'), which {agree} your prediction: one toy seed, so read your "
        "own run and its EncoderWatch lines",
    )
