"""The masked loss and accuracy over labelled tokens, against NumPy."""

import keras
import numpy as np
import pytest

from kit.metrics.masked_tokens import (
    MaskedAccuracy,
    MaskedSparseCategoricalCrossentropy,
)
from kit.text.alignment import IGNORE


def test_masked_loss_and_accuracy_match_numpy():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(2, 4, 3)).astype("float32")
    y = np.array([[IGNORE, 2, IGNORE, 0], [1, IGNORE, IGNORE, IGNORE]])
    keep = y != IGNORE
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    want = -np.mean([logp[i, t, y[i, t]] for i, t in zip(*np.nonzero(keep))])
    got = float(keras.ops.convert_to_numpy(MaskedSparseCategoricalCrossentropy()(y, logits)))
    assert got == pytest.approx(want, rel=1e-5)
    acc = MaskedAccuracy()
    acc.update_state(y, logits)
    want_acc = np.mean(logits.argmax(-1)[keep] == y[keep])
    assert float(keras.ops.convert_to_numpy(acc.result())) == pytest.approx(want_acc)
    cfg = MaskedSparseCategoricalCrossentropy(ignore_index=-1).get_config()
    assert cfg["ignore_index"] == -1
