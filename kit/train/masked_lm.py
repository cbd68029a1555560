"""What TLM's stage 1 and further MLM pretraining share.

Batches of per-pass shuffles, the warm-up schedule, fits in chunks with a loss
curve, and masked-token scoring.

>>> first, second = pass_rows(0, 3, 6, 0), pass_rows(1, 3, 6, 0)      # two batches of 3 from 6 examples
>>> sorted(first.tolist() + second.tolist())                          # one pass: every example once
[0, 1, 2, 3, 4, 5]
"""

from __future__ import annotations

import numpy as np

from ..metrics.masked_tokens import masked_token_scores
from ..optimizers import schedules

INPUT_KEYS = ("token_ids", "segment_ids", "padding_mask")


def check_inputs(x, what: str) -> int:
    """The number of examples in a preprocessor dict ``x``.

    Args:
        x: the preprocessor's dict (``token_ids``, ``segment_ids``, ``padding_mask``).
        what: its name in the error message.

    Returns:
        The length of ``x["token_ids"]``.

    Raises:
        ValueError: ``x`` is not such a dict, or its arrays differ in length.
    """
    if not isinstance(x, dict) or any(k not in x for k in INPUT_KEYS):
        raise ValueError(
            f"{what} must be the preprocessor's dict with {INPUT_KEYS}; got "
            f"{sorted(x) if isinstance(x, dict) else type(x).__name__}."
        )
    n = len(x["token_ids"])
    if any(len(x[k]) != n for k in INPUT_KEYS):
        raise ValueError(f"{what}: token_ids, segment_ids and padding_mask differ in length.")
    return n


def pass_rows(batch_number: int, batch_size: int, n: int, *key: int) -> np.ndarray:
    """Rows of the ``batch_number``-th batch of a stream over ``n`` examples: consecutive slices of per-pass shuffles.

    Pass ``p`` is shuffled by ``numpy.random.default_rng([*key, p])``, so a stream resumes anywhere.

    Args:
        batch_number: the batch's index in the stream (0-based, over all passes).
        batch_size: examples per batch.
        n: how many examples the stream goes over.
        *key: the seed (and any stream tag) of the shuffles.

    Returns:
        ``batch_size`` row indices (int64); a batch may span the end of one pass and the start of the next.
    """
    pos = batch_number * batch_size + np.arange(batch_size)
    passes = pos // n
    rows = np.empty(batch_size, dtype="int64")
    for p in np.unique(passes):
        perm = np.random.default_rng([*key, int(p)]).permutation(n)
        rows[passes == p] = perm[pos[passes == p] % n]
    return rows


SCHEDULES = ("cosine", "constant")


def mlm_schedule(learning_rate: float, steps: int, warmup: float = 0.06, schedule: str = "cosine"):
    """Linear warm-up from 0, then cosine decay to 0 (``"cosine"``) or a constant rate.

    The schedules are :mod:`kit.optimizers.schedules`' with ``start="zero"``.

    Args:
        learning_rate: the peak rate, reached at the end of the warm-up.
        steps: the run's optimizer steps (the cosine reaches 0 at the last).
        warmup: the fraction of the steps spent warming up (at least one step; 0: no warm-up).
        schedule: ``"cosine"`` or ``"constant"``.

    Returns:
        A Keras learning-rate schedule (a plain float for a constant rate without warm-up).

    Raises:
        ValueError: an unknown ``schedule``.

    Example:
        >>> s = mlm_schedule(1e-3, steps=100, warmup=0.1, schedule="constant")
        >>> [round(float(s(i)), 6) for i in (0, 5, 10, 99)]
        [0.0, 0.0005, 0.001, 0.001]
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}.")
    warm = max(1, int(warmup * steps)) if warmup else 0
    if schedule == "constant":
        return schedules.constant(learning_rate, warm)
    return schedules.cosine(learning_rate, steps, warm, start="zero")


def fit_in_chunks(model, batches, steps: int, chunks: int, verbose: int = 0, progress=None) -> dict:
    """Take ``steps`` optimizer steps as ``chunks`` consecutive ``fit`` calls on ``batches(start, n)`` (one stream).

    Args:
        model: a compiled model; its optimizer and schedule carry over from chunk to chunk.
        batches: ``batches(start, n)``, the ``n`` steps of the stream from step ``start`` (a Keras ``PyDataset``).
        steps: the optimizer steps in all.
        chunks: how many ``fit`` calls (at most ``steps``, at least 1), one point of the curve each.
        verbose: Keras' ``fit`` verbosity.
        progress: ``progress(done, steps, logs)``, called after each chunk, or None.

    Returns:
        The curve: ``{"step": [end of each chunk], <each logged value>: [its mean over the chunk]}``.
    """
    chunks = max(1, min(int(chunks), steps))
    bounds = np.linspace(0, steps, chunks + 1).astype(int)
    curve = {"step": []}
    for a, b in zip(bounds[:-1], bounds[1:]):
        hist = model.fit(batches(int(a), int(b - a)), epochs=1, verbose=verbose, shuffle=False)
        curve["step"].append(int(b))
        for key, values in hist.history.items():
            curve.setdefault(key, []).append(float(values[-1]))
        if progress is not None:
            progress(int(b), steps, {k: v[-1] for k, v in curve.items()})
    return curve


def evaluate_mlm(model, inputs: dict, masker, batch_size: int = 64, seed: int = 0) -> dict:
    """Masked-token accuracy and loss (nats) on ``inputs``, with a fixed seeded masking (same for every model).

    Scored batch by batch: memory holds one batch's ``(batch, predictions, vocabulary)``
    logits, never the whole set's (3,000 texts x 20 predictions x 30,522 words would be 7 GB
    in float32).

    Args:
        model: an MLM model with an ``"mlm"`` output (logits at ``mask_positions``).
        inputs: the preprocessor's dict of the texts.
        masker: BERT's masking (:class:`kit.text.masking.MLMMasker`), applied once to the whole set.
        batch_size: examples per prediction batch.
        seed: the seed of the masking.

    Returns:
        ``{"mlm_accuracy": ..., "mlm_loss": ..., "masked_tokens": ...}``: means over the masked tokens, and their count.

    Raises:
        ValueError: ``inputs`` is not the preprocessor's dict, or holds no texts.
    """
    n = check_inputs(inputs, "inputs")
    if n == 0:
        raise ValueError("evaluate_mlm got no texts.")
    rng = np.random.default_rng([seed, 3])
    m = masker(np.asarray(inputs["token_ids"]), np.asarray(inputs["padding_mask"]), rng)
    x = {
        "token_ids": m["token_ids"],
        "segment_ids": np.asarray(inputs["segment_ids"]),
        "padding_mask": np.asarray(inputs["padding_mask"]),
        "mask_positions": m["mask_positions"],
    }
    correct, nll, count = 0, 0.0, 0
    for start in range(0, n, batch_size):
        part = {k: v[start : start + batch_size] for k, v in x.items()}
        logits = np.asarray(model.predict_on_batch(part)["mlm"], "float32")  # (b, P, vocabulary)
        s = masked_token_scores(
            logits, m["mask_ids"][start : start + batch_size], m["mask_weights"][start : start + batch_size]
        )
        correct, nll, count = correct + s["correct"], nll + s["nll"], count + s["count"]
    count = max(count, 1)
    return {"mlm_accuracy": correct / count, "mlm_loss": nll / count, "masked_tokens": count}
