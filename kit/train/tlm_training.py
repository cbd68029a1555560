"""TLM's joint training: MLM on retrieved ("external") data + MLM and the task on task ("internal") data.

The paper's objective (Sec. 3.2)::

    rho1 · E_{x~S}[L_mlm(x)]  +  E_{x,y~T}[rho2 · L_mlm(x) + L_task(f(x), y)]

How the kit turns it into batches and weights (stage 1, :func:`train_stage1`):

- **rho1 is a sampling ratio**, as in the paper's text and the authors' code:
  the stream is one internal batch, then ``rho1`` external batches, repeated
  (``rho1=0``: internal only; ``rho1=math.inf``: external only, "Ext only").
  Each external batch carries MLM loss with weight 1, so over the stream the
  external MLM term weighs ``rho1`` times an internal batch.
- **rho2 weighs the internal MLM loss** against the task loss on internal
  batches. With ``normalize_internal=True`` (the default, as the authors' code
  does) an internal batch's loss is ``(rho2 · L_mlm + L_task) / (rho2 + 1)``,
  so it stays on the scale of an external batch's loss whatever rho2 is; with
  ``False`` it is the paper's equation as printed, ``rho2 · L_mlm + L_task``.
  Stage 1 clips every batch's gradient to global norm 1 (:func:`compile_stage1`),
  and a clipped gradient has lost any constant factor on its batch's loss: while
  the internal batches' gradients are above norm 1, the two forms change the
  reported loss, not the training (notebook 02's Exercise 3 measures it: the same
  test logits to ~1e-6 at smoke). What still moves the training is rho1 (how often an internal
  batch comes) and rho2's split between MLM and task inside an internal batch.
- MLM losses are means over the masked tokens of the batch; the task loss is the
  mean over the batch.

Training uses Keras' own ``fit`` on a two-output model (``task``, ``mlm``) with
per-output sample weights, so one code path trains on jax, tensorflow and torch:
external batches carry task weight 0, and MLM weights are the masked positions
scaled as above. Stage 2 is ordinary fine-tuning of ``model.classifier()`` on the
task loss alone (``kit.train.fit_classifier``).

>>> import numpy as np
>>> from kit.text.masking import MLMMasker
>>> masker = MLMMasker(vocabulary_size=50, mask_token_id=4, special_token_ids=[0, 2, 3], max_predictions=2)
>>> ids = np.tile(np.array([2, 10, 11, 12, 13, 3]), (8, 1))
>>> x = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": np.ones_like(ids)}
>>> stream = TLMBatches(x, np.zeros(8, int), x, masker, rho1=3, rho2=20, batch_size=4, steps=8)
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
from .masked_lm import INPUT_KEYS, check_inputs, fit_in_chunks, mlm_schedule, pass_rows


class TLMBatches(keras.utils.PyDataset):
    """Stage 1's stream: one internal batch, then ``rho1`` external batches, repeated; masked afresh each step.

    Item ``i`` is ``(x, y, sample_weight)`` with ``x`` the masked inputs plus
    ``mask_positions``, ``y = {"task": labels, "mlm": original token ids}`` and
    ``sample_weight = {"task": (B,), "mlm": (B, P)}``. ``start`` offsets the step
    index, so a run can be fitted in chunks and continue the same stream.
    """

    def __init__(
        self,
        internal: dict,
        labels,
        external: dict | None,
        masker,
        *,
        rho1: float,
        rho2: float,
        batch_size: int,
        steps: int,
        start: int = 0,
        normalize_internal: bool = True,
        seed: int = 0,
    ):
        super().__init__()
        n_int = check_inputs(internal, "internal (task) inputs")
        if n_int == 0:
            raise ValueError("The task (internal) data is empty: TLM needs labelled task examples.")
        labels = np.asarray(labels)
        if len(labels) != n_int:
            raise ValueError(f"{len(labels)} labels for {n_int} internal examples.")
        if rho1 < 0 or rho2 < 0:
            raise ValueError(f"rho1 and rho2 must be >= 0, got rho1={rho1}, rho2={rho2}.")
        if rho1 != math.inf and rho1 != int(rho1):
            raise ValueError(
                f"rho1 is a number of external batches per internal batch: an integer or math.inf, got {rho1}."
            )
        n_ext = 0 if external is None else check_inputs(external, "external (retrieved) inputs")
        if rho1 > 0 and n_ext == 0:
            raise ValueError(
                f"rho1={rho1} asks for external batches but no external data was given: pass the "
                "retrieved texts' inputs, or set rho1=0 to train on task data only."
            )
        if batch_size < 1 or steps < 1:
            raise ValueError(f"batch_size and steps must be >= 1, got {batch_size}, {steps}.")
        self.internal, self.labels, self.external = internal, labels, external
        self.masker = masker
        self.rho1 = rho1 if rho1 == math.inf else int(rho1)
        self.rho2 = float(rho2)
        self.batch_size, self.steps, self.start = int(batch_size), int(steps), int(start)
        self.seed = int(seed)
        self.normalize_internal = bool(normalize_internal)
        if self.normalize_internal:
            self.internal_weights = (self.rho2 / (self.rho2 + 1), 1.0 / (self.rho2 + 1))
        else:
            self.internal_weights = (self.rho2, 1.0)

    def __len__(self):
        return self.steps

    def kind(self, i: int) -> str:
        """``"internal"`` or ``"external"`` for step ``i`` of the stream (counted from ``start``)."""
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
    """What stage 1 did: steps by kind, tokens seen, time, and the loss curve (one point per chunk)."""

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
    """AdamW (gradients clipped to global norm 1), linear warm-up then cosine decay to 0 (or constant);
    cross-entropy on both outputs.
    """
    optimizer = adamw(mlm_schedule(learning_rate, steps, warmup, schedule), weight_decay, global_clipnorm=1.0)
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer=optimizer, loss={"task": loss, "mlm": loss})


def _stream_maker(internal, labels, external, masker, rho1, rho2, batch_size, normalize_internal, seed):
    """A factory ``(start, n) -> TLMBatches``: ``n`` steps of stage 1's stream from step ``start`` on.

    Args:
        internal: the task's inputs.
        labels: the task's labels.
        external: the retrieved texts' inputs, or ``None``.
        masker: the MLM masker.
        rho1: external batches per internal batch.
        rho2: the weight of the internal MLM loss.
        batch_size: examples per batch.
        normalize_internal: divide an internal batch's loss by ``rho2 + 1``.
        seed: the stream's seed (rows and masks).

    Returns:
        A function of ``(start, n)``, what :func:`kit.train.fit_in_chunks` calls for each chunk.
    """

    def make(start: int, n: int) -> TLMBatches:
        return TLMBatches(
            internal,
            labels,
            external,
            masker,
            rho1=rho1,
            rho2=rho2,
            batch_size=batch_size,
            steps=n,
            start=start,
            normalize_internal=normalize_internal,
            seed=seed,
        )

    return make


def train_stage1(
    model,
    internal: dict,
    labels,
    external: dict | None,
    masker,
    *,
    rho1: float,
    rho2: float,
    steps: int,
    batch_size: int,
    learning_rate: float = 1e-3,
    warmup: float = 0.06,
    weight_decay: float = 0.01,
    normalize_internal: bool = True,
    chunks: int = 10,
    seed: int = 0,
    verbose: int = 0,
    progress=None,
    distribution=None,
    schedule: str = "cosine",
) -> Stage1Result:
    """TLM stage 1 on a :class:`kit.models.TLMModel`: ``steps`` optimizer steps of the interleaved stream.

    The run is fitted in ``chunks`` consecutive ``fit`` calls on one stream (same
    optimizer and schedule), so ``curve`` holds the mean losses of each chunk
    and ``progress(done, steps, logs)`` (if given) is called after each.
    ``distribution`` (e.g. ``keras.distribution.DataParallel`` on jax) trains
    across devices; build the model inside its scope.
    """
    make_stream = _stream_maker(internal, labels, external, masker, rho1, rho2, batch_size, normalize_internal, seed)
    stream = make_stream(0, steps)  # the whole run's stream: checks the arguments before anything compiles
    check_distribution(model, distribution)
    t = time.perf_counter()
    with distribution.scope() if distribution is not None else contextlib.nullcontext():
        compile_stage1(
            model, learning_rate=learning_rate, steps=steps, warmup=warmup, weight_decay=weight_decay, schedule=schedule
        )
        curve = fit_in_chunks(model, make_stream, steps, chunks, verbose=verbose, progress=progress)
    seconds = time.perf_counter() - t
    n_int = stream._counts(steps)[0]  # internal batches among steps 0..steps-1
    seq_len = np.asarray(internal["token_ids"]).shape[1]
    return Stage1Result(steps, n_int, steps - n_int, steps * batch_size * seq_len, seconds, curve)
