"""Further MLM pretraining of a pretrained encoder on the task texts before fine-tuning (Sun et al. 2019, SerBERTus).

BERT's dynamic masking, :class:`kit.models.mlm_model.MLMModel` (output projection tied to the token embeddings), no
next-sentence prediction (RoBERTa, SerBERTus). The offline MiniLM checkpoint ships no MLM head: its transform and output
bias start random, so the first steps' noisy gradients reach the encoder, hence the default warm-up.

>>> import numpy as np
>>> from kit.models import BertBackbone
>>> from kit.text.masking import MLMMasker
>>> bb = BertBackbone(vocabulary_size=30, num_layers=1, num_heads=2, hidden_dim=8,
...                   intermediate_dim=16, max_sequence_length=8)
>>> ids = np.tile(np.array([2, 10, 11, 12, 13, 14, 15, 3]), (16, 1))
>>> x = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": np.ones_like(ids)}
>>> masker = MLMMasker(30, mask_token_id=4, special_token_ids=[0, 1, 2, 3], max_predictions=2)
>>> result = further_pretrain(bb, x, masker, MLMRecipe(steps=4, batch_size=8, learning_rate=1e-3, chunks=2))
>>> result.steps, len(result.curve["loss"])
(4, 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import keras
import numpy as np

from ..models.mlm_model import MLMModel
from ..optimizers import adamw
from .layerwise_decay import llrd_optimizer
from .masked_lm import INPUT_KEYS, fit_in_chunks, mlm_schedule, pass_rows


class MLMBatches(keras.utils.PyDataset):
    """``steps`` batches of ``inputs`` (consecutive slices of per-pass shuffles), masked afresh by ``masker`` per step.

    Item ``i`` is ``(x + mask_positions, {"mlm": original ids}, {"mlm": weights})``, the weights making the loss a mean
    over the batch's masked tokens. ``start`` is item 0's global step, so a run fitted in chunks continues one stream;
    ``seed`` drives the shuffles and the masks.

    Raises:
        ValueError: ``inputs`` is not the preprocessor's dict, holds no texts, or ``batch_size``/``steps`` < 1.
    """

    def __init__(self, inputs: dict, masker, batch_size: int, steps: int, start: int = 0, seed: int = 0):
        super().__init__()
        if not isinstance(inputs, dict) or any(k not in inputs for k in INPUT_KEYS):
            raise ValueError(f"inputs must be the preprocessor's dict with {INPUT_KEYS}.")
        self.inputs = {k: np.asarray(inputs[k]) for k in INPUT_KEYS}
        self.n = len(self.inputs["token_ids"])
        if self.n == 0:
            raise ValueError("No texts to pretrain on.")
        if batch_size < 1 or steps < 1:
            raise ValueError(f"batch_size and steps must be >= 1, got {batch_size}, {steps}.")
        self.masker, self.batch_size, self.steps = masker, int(batch_size), int(steps)
        self.start, self.seed = int(start), int(seed)

    def __len__(self):
        return self.steps

    def __getitem__(self, i):
        if not 0 <= i < self.steps:
            raise IndexError(i)
        g = self.start + i
        rows = pass_rows(g, self.batch_size, self.n, self.seed)
        batch = {k: v[rows] for k, v in self.inputs.items()}
        m = self.masker(batch["token_ids"], batch["padding_mask"], np.random.default_rng([self.seed, 1, g]))
        x = dict(batch, token_ids=m["token_ids"], mask_positions=m["mask_positions"])
        weights = m["mask_weights"] * (m["mask_weights"].size / max(1.0, float(m["mask_weights"].sum())))
        return x, {"mlm": m["mask_ids"]}, {"mlm": weights.astype("float32")}


@dataclass
class MLMResult:
    """What further pretraining did: the MLM model (backbone + head), steps, tokens, time, loss per chunk.

    Attributes:
        model: the :class:`kit.models.mlm_model.MLMModel`; a later ``fit`` needs a new ``compile``.
        tokens: the tokens seen, padding included.
        curve: ``{"step": [end of each chunk], "loss": [its mean over the chunk], ...}``.
    """

    model: MLMModel
    steps: int
    tokens: int
    seconds: float
    curve: dict = field(default_factory=dict)


@dataclass(frozen=True)
class MLMRecipe:
    """Further pretraining's recipe: the MLM steps and batch, AdamW's rate, warm-up and decay, how the run is cut.

    Attributes:
        decay: layer-wise LR decay (e.g. 0.95, which SerBERTus found hurt less on SST); None: plain AdamW.
        chunks: the run is fitted in this many consecutive ``fit`` calls, one point of ``curve`` each.

    Raises:
        ValueError: ``steps`` or ``batch_size`` below 1.

    Example:
        >>> MLMRecipe(steps=100).learning_rate, MLMRecipe(steps=100).chunks
        (1e-05, 5)
    """

    steps: int
    batch_size: int = 32
    learning_rate: float = 1e-5
    decay: float | None = None
    weight_decay: float = 0.01
    warmup: float = 0.06
    chunks: int = 5

    def __post_init__(self):
        if self.steps < 1:
            raise ValueError(f"steps must be >= 1, got {self.steps}.")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}.")


def _optimizer(model, backbone, schedule, recipe: MLMRecipe):
    """AdamW clipped to global norm 1, with layer-wise LR decay when ``recipe.decay`` is given."""
    if recipe.decay is None:
        return adamw(schedule, recipe.weight_decay, global_clipnorm=1.0)
    return llrd_optimizer(
        model, backbone, schedule, decay=recipe.decay, weight_decay=recipe.weight_decay, global_clipnorm=1.0
    )


def _stream(inputs: dict, masker, batch_size: int, seed: int):
    """The factory ``(start, n) -> MLMBatches`` that :func:`kit.train.masked_lm.fit_in_chunks` calls per chunk."""
    return lambda start, n: MLMBatches(inputs, masker, batch_size, n, start=start, seed=seed)


def further_pretrain(
    backbone,
    inputs: dict,
    masker,
    recipe: MLMRecipe,
    *,
    seed: int = 0,
    model: keras.Model | None = None,
    verbose: int = 0,
    progress=None,
) -> MLMResult:
    """Run ``recipe.steps`` MLM steps on ``inputs`` (the task texts, preprocessed); updates ``backbone`` in place.

    AdamW (clipped to global norm 1), warm-up over ``recipe.warmup`` of the steps, then cosine decay to 0. The [CLS]
    pooler is frozen meanwhile (MLM never reads it: AdamW would only decay it) and trainable again on return. ``model``:
    an ``MLMModel`` of ``backbone`` to reuse (e.g. evaluated before training); None builds one.
    ``progress(done, steps, logs)`` runs after each chunk.

    Raises:
        TypeError: ``recipe`` is not an :class:`MLMRecipe`.
        ValueError: ``inputs`` that :class:`MLMBatches` refuses.
    """
    if not isinstance(recipe, MLMRecipe):
        raise TypeError(
            f"recipe must be a kit.train.MLMRecipe, got {type(recipe).__name__}: e.g. MLMRecipe(steps=100)."
        )
    r = recipe
    if model is None:
        model = MLMModel(backbone, masker.max_predictions)
    # MLM never reads the [CLS] pooler: keep it out of the step (no gradient, so AdamW would only decay it)
    pooler = getattr(backbone, "pooled_dense", None)
    pooler_trainable = pooler.trainable if pooler is not None else None
    if pooler is not None:
        pooler.trainable = False
    try:
        schedule = mlm_schedule(r.learning_rate, r.steps, r.warmup, "cosine")  # warm-up, then cosine to 0
        optimizer = _optimizer(model, backbone, schedule, r)
        model.compile(optimizer=optimizer, loss={"mlm": keras.losses.SparseCategoricalCrossentropy(from_logits=True)})
        t = time.perf_counter()
        curve = fit_in_chunks(
            model, _stream(inputs, masker, r.batch_size, seed), r.steps, r.chunks, verbose=verbose, progress=progress
        )
        seconds = time.perf_counter() - t
    finally:
        if pooler is not None:
            pooler.trainable = pooler_trainable
    seq_len = np.asarray(inputs["token_ids"]).shape[1]
    return MLMResult(model, r.steps, r.steps * r.batch_size * seq_len, seconds, curve)
