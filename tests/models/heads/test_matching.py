"""Sentence-pair heads: BiMPM matching (checked against a NumPy reference), Sim-Transformer, pair masks."""

import keras
import numpy as np
import pytest

from kit.models.heads.matching import (
    BiMPMHead,
    MultiPerspectiveMatching,
    SimTransformerHead,
    TransformerLayers,
    pair_masks,
)
from kit.testing import run_layer_test, run_precision_test


def _pair_states(batch=3, steps=9, dim=8, seed=0):
    """[CLS] a a a [SEP] b b [SEP] pad, with shorter rows."""
    rng = np.random.default_rng(seed)
    seg = np.array([[0, 0, 0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 1, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1, 1, 0]])[:batch]
    mask = np.array([[1] * 8 + [0], [1] * 6 + [0] * 3, [1] * 8 + [0]])[:batch].astype("int32")
    return {
        "sequence_output": rng.normal(size=(batch, steps, dim)).astype("float32"),
        "padding_mask": mask,
        "segment_ids": seg.astype("int32"),
    }


def _out(layer, s):
    return keras.ops.convert_to_numpy(layer(s))


def _scramble(s, where):
    """The same input with the states at positions ``where`` (bool (B, T)) replaced by large noise."""
    noise = np.random.default_rng(9).normal(scale=5.0, size=s["sequence_output"].shape).astype("float32")
    return dict(s, sequence_output=np.where(where[..., None], noise, s["sequence_output"]).astype("float32"))


# BiMPM's contract runs without the context BiLSTM (an LSTM costs ~15 s more on jax, and BiLSTMEncoder has its
# own contract test); the padding and special-token tests below run the context BiLSTM too.
BIMPM_CONTEXT = {
    "num_classes": 3,
    "perspectives": 2,
    "context_cells": 3,
    "aggregation_cells": 3,
    "hidden_dim": 5,
    "dropout": 0.1,
    "drop_special": True,
}
HEADS = [
    (BiMPMHead, {**BIMPM_CONTEXT, "context_cells": 0}, 1 + 6 + 2 + 2),
    (
        SimTransformerHead,
        {
            "num_classes": 3,
            "transformer": TransformerLayers(num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=8),
            "perspectives": 2,
            "use_matching": True,
            "dropout": 0.1,
            "drop_special": True,
        },
        1 + 2 + 16 + 2,
    ),
]


@pytest.mark.parametrize("cls,kwargs,n_weights", HEADS, ids=[h[0].__name__ for h in HEADS])
def test_head_contract_and_precision(cls, kwargs, n_weights):
    s = _pair_states()
    run_layer_test(cls, kwargs, s, expected_output_shape=(3, 3), expected_num_trainable_weights=n_weights)
    run_precision_test(cls, kwargs, s)


LEAK = HEADS + [(BiMPMHead, BIMPM_CONTEXT, 6 + 1 + 6 + 2 + 2)]


@pytest.mark.parametrize("cls,kwargs,n_weights", LEAK, ids=["BiMPMHead", "SimTransformerHead", "BiMPMHead-context"])
def test_padding_does_not_leak(cls, kwargs, n_weights):
    head = cls(**{**kwargs, "dropout": 0.0})
    s = _pair_states()
    ref = _out(head, s)
    assert ref.shape == (3, 3) and len(head.trainable_weights) == n_weights
    np.testing.assert_allclose(_out(head, _scramble(s, s["padding_mask"] == 0)), ref, atol=1e-5)
    real = _scramble(s, s["padding_mask"] == 1)  # and the real tokens do matter
    assert np.abs(_out(head, real) - ref).max() > 1e-4


def test_pair_masks_split_segments():
    s = _pair_states()
    a, b = (keras.ops.convert_to_numpy(m).astype(int) for m in pair_masks(s["padding_mask"], s["segment_ids"]))
    assert a.tolist()[0] == [0, 1, 1, 1, 0, 0, 0, 0, 0] and b.tolist()[0] == [0, 0, 0, 0, 0, 1, 1, 0, 0]
    assert a.tolist()[1] == [0, 1, 0, 0, 0, 0, 0, 0, 0] and b.tolist()[1] == [0, 0, 0, 1, 1, 0, 0, 0, 0]
    a, b = (
        keras.ops.convert_to_numpy(m).astype(int)
        for m in pair_masks(s["padding_mask"], s["segment_ids"], drop_special=False)
    )
    assert a.tolist()[0] == [1, 1, 1, 1, 1, 0, 0, 0, 0] and b.tolist()[0] == [0, 0, 0, 0, 0, 1, 1, 1, 0]


def _cos(u, v):
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def test_matching_strategies_match_numpy_reference():
    rng = np.random.default_rng(1)
    T, D, L = 5, 4, 3
    p, q = rng.normal(size=(1, T, D)).astype("float32"), rng.normal(size=(1, T, D)).astype("float32")
    pm, qm = np.array([[1, 1, 0, 0, 0]], bool), np.array([[0, 0, 1, 1, 1]], bool)
    layer = MultiPerspectiveMatching(perspectives=L, directions=1)
    out = keras.ops.convert_to_numpy(layer({"p": p, "q": q, "p_mask": pm, "q_mask": qm}))
    w = keras.ops.convert_to_numpy(layer.w)[:, 0]  # (4, L, D)
    qs = q[0, 2:]
    mean_q = qs.mean(0)
    for i in range(2):
        pi = p[0, i]
        alpha = np.array([_cos(pi, qj) for qj in qs])
        att = (np.maximum(alpha, 0)[:, None] * qs).sum(0) / max(np.maximum(alpha, 0).sum(), 1e-6)
        best = qs[alpha.argmax()]
        want = np.concatenate(
            [
                [_cos(w[0, k] * pi, w[0, k] * mean_q) for k in range(L)],
                [max(_cos(w[1, k] * pi, w[1, k] * qj) for qj in qs) for k in range(L)],
                [_cos(w[2, k] * pi, w[2, k] * att) for k in range(L)],
                [_cos(w[3, k] * pi, w[3, k] * best) for k in range(L)],
            ]
        )
        np.testing.assert_allclose(out[0, i], want, atol=1e-5)
    assert np.all(out[0, 2:] == 0)  # nothing outside p's mask
    run_layer_test(
        MultiPerspectiveMatching,
        {"perspectives": 2, "directions": 2},
        {"p": p, "q": q, "p_mask": pm, "q_mask": qm},
        expected_output_shape=(1, T, 16),
        expected_num_trainable_weights=1,
    )


def test_bimpm_full_matching_uses_last_forward_and_first_backward_state():
    rng = np.random.default_rng(2)
    p, q = rng.normal(size=(1, 4, 6)).astype("float32"), rng.normal(size=(1, 4, 6)).astype("float32")
    pm, qm = np.array([[1, 1, 0, 0]], bool), np.array([[0, 0, 1, 1]], bool)
    layer = MultiPerspectiveMatching(perspectives=2, directions=2)
    out = keras.ops.convert_to_numpy(layer({"p": p, "q": q, "p_mask": pm, "q_mask": qm}))
    w = keras.ops.convert_to_numpy(layer.w)
    fw = [_cos(w[0, 0, k] * p[0, 0, :3], w[0, 0, k] * q[0, 3, :3]) for k in range(2)]  # last real q, forward
    bw = [_cos(w[0, 1, k] * p[0, 0, 3:], w[0, 1, k] * q[0, 2, 3:]) for k in range(2)]  # first real q, backward
    np.testing.assert_allclose(out[0, 0, :2], fw, atol=1e-5)
    np.testing.assert_allclose(out[0, 0, 8:10], bw, atol=1e-5)


def test_pair_heads_need_segments_and_ignore_specials():
    s = _pair_states()
    head = BiMPMHead(**{**BIMPM_CONTEXT, "dropout": 0.0})
    with pytest.raises(ValueError, match="segment_ids"):
        head({"sequence_output": s["sequence_output"], "padding_mask": s["padding_mask"]})
    ref = _out(head, s)
    pos = np.arange(9)[None, :]
    last_a = np.array([4, 2, 3])[:, None]
    specials = (pos == 0) | (pos == last_a) | ((s["padding_mask"] == 1) & (np.roll(s["padding_mask"], -1, 1) == 0))
    np.testing.assert_allclose(_out(head, _scramble(s, specials)), ref, atol=1e-5)
    # the variants: BiMPM without the context BiLSTM, Sim-Transformer on the token states themselves
    for variant in (
        BiMPMHead(**{**BIMPM_CONTEXT, "context_cells": 0, "dropout": 0.0}),
        SimTransformerHead(**{**HEADS[1][1], "use_matching": False, "dropout": 0.0}),
    ):
        ref = _out(variant, s)
        assert ref.shape == (3, 3)
        np.testing.assert_allclose(_out(variant, _scramble(s, s["padding_mask"] == 0)), ref, atol=1e-5)
    with pytest.raises(ValueError, match="divisible by num_heads"):
        SimTransformerHead(num_classes=2, transformer={"hidden_dim": 6, "num_heads": 4})
    with pytest.raises(ValueError, match="num_layers must be >= 1"):
        TransformerLayers(num_layers=0)
    sizes = {"num_layers": 1, "num_heads": 2, "hidden_dim": 8, "intermediate_dim": 16, "perspectives": 3}
    head = SimTransformerHead.from_sizes(2, sizes, name="sim")  # the paper's flat sizes table, the group gathered
    assert head.transformer == TransformerLayers(1, 2, 8, 16) and head.perspectives == 3
    assert head.get_config()["transformer"] == {
        "num_layers": 1,
        "num_heads": 2,
        "hidden_dim": 8,
        "intermediate_dim": 16,
    }
