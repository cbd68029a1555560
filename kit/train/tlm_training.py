"""TLM's joint training: MLM on retrieved ("external") data + MLM and the task on task ("internal") data.

The paper's objective (Sec. 3.2): ``rho1 · E_{x~S}[L_mlm(x)] + E_{x,y~T}[rho2 · L_mlm(x) + L_task(f(x), y)]``, trained
as a stream of batches with per-output sample weights on a two-output model (``task``, ``mlm``: one Keras ``fit`` path
for jax, tensorflow, torch). MLM losses are means over the batch's masked tokens, the task loss a batch mean. Stage 2 is
``kit.train.fit_classifier`` of ``model.classifier()``.

>>> import numpy as np
>>> from kit.text.masking import MLMMasker
>>> masker = MLMMasker(vocabulary_size=50, mask_token_id=4, special_token_ids=[0, 2, 3], max_predictions=2)
>>> ids = np.tile(np.array([2, 10, 11, 12, 13, 3]), (8, 1))
>>> x = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": np.ones_like(ids)}
>>> stream = TLMBatches((x, np.zeros(8, int)), x, masker, Stage1Recipe(rho1=3, rho2=20, steps=8, batch_size=4))
>>> [stream.kind(i) for i in range(8)]
['internal', 'external', 'external', 'external', 'internal', 'external', 'external', 'external']
>>> _, _, w = stream[0]                     # internal: (20 · MLM + task) / 21
>>> round(float(w["task"][0]), 4), round(float(w["mlm"].sum() / w["mlm"].size), 4)
(0.0476, 0.9524)
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field

import keras
import numpy as np

from ..optimizers import adamw
from .classify import check_distribution
from .masked_lm import INPUT_KEYS, SCHEDULES, check_inputs, fit_in_chunks, mlm_schedule, pass_rows
from .mlm_prior import PRIORS, set_mlm_prior, unigram_log_prior


@dataclass(frozen=True)
class Stage1Recipe:
    """TLM stage 1's recipe: the paper's ``rho1`` and ``rho2``, the steps and batch, the optimizer's schedule.

    ``rho1`` is a sampling ratio, as in the paper's text and the authors' code: one internal batch, then ``rho1``
    external ones (MLM weight 1), repeated (0: internal only; ``math.inf``: "Ext only"). ``rho2`` weighs the internal
    MLM loss against the task loss. Every batch's gradient is clipped to norm 1, which drops a constant factor on its
    loss, so while internal gradients exceed norm 1 ``normalize_internal`` changes the reported loss, not the training
    (notebook 02's Exercise 3: the same test logits to ~1e-6 at smoke).

    Attributes:
        normalize_internal: an internal batch's loss is ``(rho2 · L_mlm + L_task) / (rho2 + 1)`` (the authors' code), on
            an external batch's scale; False: ``rho2 · L_mlm + L_task`` as printed.
        schedule: ``"cosine"`` (decay to 0) or ``"constant"``, after the warm-up.
        mlm_prior: the MLM head's output bias starts at ``"unigram"``, the log frequencies of the stream's tokens
            (:mod:`kit.train.mlm_prior`: without it 3 of 9 medium runs stayed at the most frequent token), or ``"zero"``
            (BERT's).

    Raises:
        ValueError: ``rho1``/``rho2`` < 0, a ``rho1`` neither an integer nor ``math.inf``, ``batch_size``/``steps`` < 1,
            or an unknown ``schedule`` or ``mlm_prior``.

    Example:
        >>> r = Stage1Recipe(rho1=3, rho2=20, steps=400, batch_size=32)
        >>> r.learning_rate, r.warmup, r.chunks, r.mlm_prior
        (0.001, 0.06, 10, 'unigram')
    """

    rho1: float
    rho2: float
    steps: int
    batch_size: int
    learning_rate: float = 1e-3
    warmup: float = 0.06
    weight_decay: float = 0.01
    normalize_internal: bool = True
    chunks: int = 10
    schedule: str = "cosine"
    mlm_prior: str = "unigram"

    def __post_init__(self):
        if self.rho1 < 0 or self.rho2 < 0:
            raise ValueError(f"rho1 and rho2 must be >= 0, got rho1={self.rho1}, rho2={self.rho2}.")
        if self.rho1 != math.inf and self.rho1 != int(self.rho1):
            raise ValueError(
                f"rho1 is a number of external batches per internal batch: an integer or math.inf, got {self.rho1}."
            )
        if self.batch_size < 1 or self.steps < 1:
            raise ValueError(f"batch_size and steps must be >= 1, got {self.batch_size}, {self.steps}.")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}.")
        if self.mlm_prior not in PRIORS:
            raise ValueError(f"mlm_prior must be one of {PRIORS}, got {self.mlm_prior!r}.")


class TLMBatches(keras.utils.PyDataset):
    """Stage 1's stream: one internal batch, then ``rho1`` external batches, repeated; masked afresh each step.

    Item ``i`` is ``(x + mask_positions, {"task": labels, "mlm": original ids}, {"task": (B,), "mlm": (B, P)})``;
    external batches have task weight 0. ``task`` is ``(inputs, labels)``; ``external`` may be None when ``recipe.rho1``
    is 0. ``steps`` (default ``recipe.steps``) is the stream's length; ``start`` offsets the step index so a run fitted
    in chunks continues one stream; ``seed`` drives the shuffles and the masks.

    Raises:
        ValueError: no internal examples, labels that do not match them, ``recipe.rho1`` > 0 without external data, or
            ``steps`` < 1.
    """

    def __init__(
        self,
        task: tuple,
        external: dict | None,
        masker,
        recipe: Stage1Recipe,
        *,
        steps: int | None = None,
        start: int = 0,
        seed: int = 0,
    ):
        super().__init__()
        internal, labels = task
        n_int = check_inputs(internal, "internal (task) inputs")
        if n_int == 0:
            raise ValueError("The task (internal) data is empty: TLM needs labelled task examples.")
        labels = np.asarray(labels)
        if len(labels) != n_int:
            raise ValueError(f"{len(labels)} labels for {n_int} internal examples.")
        n_ext = 0 if external is None else check_inputs(external, "external (retrieved) inputs")
        rho1 = recipe.rho1
        if rho1 > 0 and n_ext == 0:
            raise ValueError(
                f"rho1={rho1} asks for external batches but no external data was given: pass the "
                "retrieved texts' inputs, or set rho1=0 to train on task data only."
            )
        steps = recipe.steps if steps is None else steps
        if steps < 1:
            raise ValueError(f"steps must be >= 1, got {steps}.")
        self.internal, self.labels, self.external = internal, labels, external
        self.masker, self.recipe = masker, recipe
        self.rho1 = rho1 if rho1 == math.inf else int(rho1)
        self.rho2 = float(recipe.rho2)
        self.batch_size, self.steps, self.start = int(recipe.batch_size), int(steps), int(start)
        self.seed = int(seed)
        self.normalize_internal = bool(recipe.normalize_internal)
        if self.normalize_internal:
            self.internal_weights = (self.rho2 / (self.rho2 + 1), 1.0 / (self.rho2 + 1))
        else:
            self.internal_weights = (self.rho2, 1.0)

    def __len__(self):
        return self.steps

    def kind(self, i: int) -> str:
        """``"internal"`` or ``"external"``: the data step ``i`` (global step ``start + i``) draws from."""
        g = self.start + i
        if self.rho1 == math.inf:
            return "external"
        return "internal" if g % (self.rho1 + 1) == 0 else "external"

    def _counts(self, g: int) -> tuple[int, int]:
        """How many internal and external batches come before global step ``g``."""
        if self.rho1 == math.inf:
            return 0, g
        n_int = -(-g // (self.rho1 + 1))
        return n_int, g - n_int

    def __getitem__(self, i):
        if not 0 <= i < self.steps:
            raise IndexError(i)
        g = self.start + i
        kind = self.kind(i)
        n_int, n_ext = self._counts(g)
        if kind == "internal":
            src, rows = self.internal, pass_rows(n_int, self.batch_size, len(self.labels), self.seed, 0)
            labels = self.labels[rows]
            w_mlm, w_task = self.internal_weights
        else:
            src, rows = self.external, pass_rows(n_ext, self.batch_size, len(self.external["token_ids"]), self.seed, 1)
            labels = np.zeros(self.batch_size, dtype=self.labels.dtype)
            w_mlm, w_task = 1.0, 0.0
        batch = {k: np.asarray(src[k])[rows] for k in INPUT_KEYS}
        m = self.masker(batch["token_ids"], batch["padding_mask"], np.random.default_rng([self.seed, 2, g]))
        x = {
            "token_ids": m["token_ids"],
            "segment_ids": batch["segment_ids"],
            "padding_mask": batch["padding_mask"],
            "mask_positions": m["mask_positions"],
        }
        n_masked = max(1.0, float(m["mask_weights"].sum()))
        mlm_weight = (w_mlm * m["mask_weights"].size / n_masked) * m["mask_weights"]  # mean over masked tokens
        y = {"task": labels, "mlm": m["mask_ids"]}
        sw = {"task": np.full(self.batch_size, w_task, dtype="float32"), "mlm": mlm_weight.astype("float32")}
        return x, y, sw


@dataclass
class Stage1Result:
    """What stage 1 did: steps by kind, tokens seen, time, and the loss curve (one point per chunk).

    Attributes:
        tokens: the tokens seen, padding included (``steps * batch_size * sequence length``).
        curve: ``{"step": [end of each chunk], <each logged loss>: [its mean over the chunk]}``.
    """

    steps: int
    internal_batches: int
    external_batches: int
    tokens: int
    seconds: float
    curve: dict = field(default_factory=dict)


def compile_stage1(
    model,
    *,
    learning_rate: float,
    steps: int,
    warmup: float = 0.06,
    weight_decay: float = 0.01,
    schedule: str = "cosine",
) -> None:
    """Compile a TLM model (outputs ``task``, ``mlm``) for stage 1: AdamW clipped to norm 1, cross-entropy on both.

    The rate warms up linearly, then decays to 0 by a cosine or stays constant
    (:func:`kit.train.masked_lm.mlm_schedule`).

    Raises:
        ValueError: an unknown ``schedule``.
    """
    optimizer = adamw(mlm_schedule(learning_rate, steps, warmup, schedule), weight_decay, global_clipnorm=1.0)
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer=optimizer, loss={"task": loss, "mlm": loss})


def _stream_maker(task: tuple, external, masker, recipe: Stage1Recipe, seed: int):
    """A factory ``(start, n) -> TLMBatches``: ``n`` steps of stage 1's stream from step ``start`` on."""

    def make(start: int, n: int) -> TLMBatches:
        return TLMBatches(task, external, masker, recipe, steps=n, start=start, seed=seed)

    return make


def train_stage1(
    model,
    task: tuple,
    external: dict | None,
    masker,
    recipe: Stage1Recipe,
    *,
    seed: int = 0,
    progress=None,
    distribution=None,
) -> Stage1Result:
    """TLM stage 1 on a :class:`kit.models.TLMModel`: ``recipe.steps`` optimizer steps of the interleaved stream.

    Fitted in ``recipe.chunks`` ``fit`` calls on one stream; ``progress(done, steps, logs)`` runs after each. ``task``
    is ``(inputs, labels)``; ``external`` may be None with ``rho1=0``; ``seed`` drives rows and masks. With
    ``distribution`` (e.g. ``DataParallel`` on jax), build the model inside its scope.

    Raises:
        TypeError: ``recipe`` is not a :class:`Stage1Recipe`.
        ValueError: data :class:`TLMBatches` refuses (checked before anything compiles), or a model built outside
            ``distribution``.
    """
    if not isinstance(recipe, Stage1Recipe):
        raise TypeError(
            f"recipe must be a kit.train.Stage1Recipe, got {type(recipe).__name__}: e.g. "
            "Stage1Recipe(rho1=3, rho2=20, steps=400, batch_size=32)."
        )
    internal, r = task[0], recipe
    make_stream = _stream_maker(task, external, masker, recipe, seed)
    stream = make_stream(0, r.steps)  # the whole run's stream: checks the arguments before anything compiles
    check_distribution(model, distribution)
    t = time.perf_counter()
    if r.mlm_prior == "unigram":
        set_mlm_prior(model, unigram_log_prior([internal, external], masker.vocabulary_size, masker.special_token_ids))
    with distribution.scope() if distribution is not None else contextlib.nullcontext():
        compile_stage1(
            model,
            learning_rate=r.learning_rate,
            steps=r.steps,
            warmup=r.warmup,
            weight_decay=r.weight_decay,
            schedule=r.schedule,
        )
        curve = fit_in_chunks(model, make_stream, r.steps, r.chunks, progress=progress)
    seconds = time.perf_counter() - t
    n_int = stream._counts(r.steps)[0]  # internal batches among steps 0..steps-1
    seq_len = np.asarray(internal["token_ids"]).shape[1]
    return Stage1Result(r.steps, n_int, r.steps - n_int, r.steps * r.batch_size * seq_len, seconds, curve)
