"""What TLM's stage 1 and further MLM pretraining share: per-pass shuffled batches, warm-up, chunked fits, MLM scoring.

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
    """The number of examples in preprocessor dict ``x`` (``token_ids``, ``segment_ids``, ``padding_mask``).

    Raises:
        ValueError: ``x`` is not such a dict (``what`` names it), or its arrays differ in length.
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
    """Rows (int64) of the ``batch_number``-th batch (0-based, over all passes) of a stream over ``n`` examples.

    Consecutive slices of per-pass shuffles, pass ``p`` shuffled by ``numpy.random.default_rng([*key, p])`` (``key``:
    the seed and any stream tag), so a stream resumes anywhere; a batch may span two passes.
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
    """Linear warm-up from 0 (``start="zero"``), then cosine decay to 0 at ``steps`` (``"cosine"``) or a constant rate.

    ``warmup`` is the fraction of the steps warming up (at least one step; 0: none). A constant rate without warm-up is
    a plain float.

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

    ``batches(start, n)`` gives the stream's ``n`` steps from ``start`` (a ``PyDataset``); the compiled model's
    optimizer and schedule carry over. ``chunks`` (1 to ``steps``) fits, one curve point each;
    ``progress(done, steps, logs)`` runs after each. Returns
    ``{"step": [end of each chunk], <each logged value>: [its mean over the chunk]}``.
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
    """Masked-token accuracy and loss (nats) on ``inputs``, with one fixed seeded masking (same for every model).

    ``model`` has an ``"mlm"`` output (logits at ``mask_positions``); ``masker`` (:class:`kit.text.masking.MLMMasker`)
    masks the whole set once. Scored batch by batch: 3,000 texts x 20 predictions x 30,522 words of logits would be 7 GB
    in float32. Returns ``{"mlm_accuracy", "mlm_loss", "masked_tokens"}``: means over the masked tokens, and their
    count.

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
