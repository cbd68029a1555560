"""The MLM head's output bias started at the log unigram frequencies of the training text (TLM's stage 1).

With a zero bias, a BERT trained from scratch first learns frequencies through the hidden state (every token's state
turns to one direction, the same word predicted everywhere); at 6 x 512, 1,000 steps, 3 GPU runs of 9 never turned back
to the context (``benchmarks/tlm_collapse/``). ``b_v = log p(v)``, ``p(v) = (c_v + 1/2) / sum_u (c_u + 1/2)`` (``c_v``:
the count of token ``v`` in stage 1's texts) starts the loss at the unigram entropy: the classifiers' "bias at the log
prior".

>>> import numpy as np
>>> x = {"token_ids": np.array([[2, 7, 7, 7, 9, 3, 0]]), "padding_mask": np.array([[1, 1, 1, 1, 1, 1, 0]])}
>>> logp = unigram_log_prior([x], vocabulary_size=10, special_token_ids=[0, 2, 3])
>>> [round(float(np.exp(logp[i])), 3) for i in (7, 9, 2)]     # 3.5 / 9, 1.5 / 9, 0.5 / 9
[0.389, 0.167, 0.056]
"""

from __future__ import annotations

import numpy as np

PRIORS = ("unigram", "zero")


def unigram_log_prior(inputs, vocabulary_size: int, special_token_ids=(), smoothing: float = 0.5) -> np.ndarray:
    """Float32 log frequencies (``vocabulary_size`` of them) of the tokens in ``inputs``, add-``smoothing``.

    ``inputs``: preprocessor dicts (``token_ids``, ``padding_mask``; None skipped), e.g. the task's and the retrieved
    texts. Padding and ``special_token_ids`` ([CLS], [SEP], [MASK]: never a masked target) are not counted.

    Raises:
        ValueError: an id outside the vocabulary, a ``smoothing`` <= 0, or no token counted.
    """
    if smoothing <= 0:
        raise ValueError(f"smoothing must be > 0 (it keeps unseen tokens finite), got {smoothing}.")
    counts = np.zeros(int(vocabulary_size), "float64")
    for x in inputs:
        if x is None:
            continue
        ids = np.asarray(x["token_ids"])[np.asarray(x["padding_mask"]).astype(bool)]
        if ids.size and (ids.min() < 0 or ids.max() >= vocabulary_size):
            raise ValueError(
                f"token ids run from {ids.min()} to {ids.max()}, outside the vocabulary of {vocabulary_size}: "
                "give the MLM head's vocabulary size (the compact vocabulary's, if the texts use it)."
            )
        counts += np.bincount(ids, minlength=vocabulary_size)
    counts[np.asarray(list(special_token_ids), int)] = 0
    if counts.sum() == 0:
        raise ValueError("no token to count: the inputs hold only padding and special tokens.")
    counts += smoothing
    return np.log(counts / counts.sum()).astype("float32")


def set_mlm_prior(model, log_prior) -> None:
    """Set the output bias of ``model.mlm_head`` (built; :class:`kit.models.TLMModel`, ``MLMModel``) to ``log_prior``.

    Raises:
        ValueError: the model has no built MLM head, or ``log_prior`` does not match its vocabulary.
    """
    head = getattr(model, "mlm_head", None)
    bias = [w for w in getattr(head, "weights", []) if w.path.endswith("output_bias")]
    if not bias:
        raise ValueError("the model has no built `mlm_head` with an output bias (a kit TLMModel or MLMModel).")
    log_prior = np.asarray(log_prior, "float32")
    if log_prior.shape != tuple(bias[0].shape):
        raise ValueError(f"log_prior has shape {log_prior.shape}, the MLM head's bias {tuple(bias[0].shape)}.")
    bias[0].assign(log_prior)
