"""Notebook 02's exercise helpers: a seeded model on the set-up's vocabulary, and stage 1 with rho1 as asked."""

import math
from types import SimpleNamespace

import numpy as np

import kit
from kit.papers.tlm import tlm_exercises as ex


def _setup():
    """A tiny stand-in for small_setup's namespace: 8 texts of 6 tokens, 20 ids, a 1-layer x 8 model."""
    ids = np.tile([2, 10, 11, 12, 13, 3], (8, 1))
    x = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": np.ones_like(ids)}
    masker = kit.text.MLMMasker(vocabulary_size=20, mask_token_id=4, special_token_ids=[0, 2, 3], max_predictions=2)
    Z = dict(num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16, sequence_length=6, dropout=0.0,
             pooling="mean", stage1_steps=4, batch_size=2, stage1_lr=1e-3, warmup=0.0)  # fmt: skip
    y = np.arange(8) % 2
    return SimpleNamespace(
        Z=Z,
        smoke=True,
        x={"train": x, "test": x},
        external=x,
        tokens=SimpleNamespace(vocabulary=SimpleNamespace(size=20), masker=masker),
        ds=SimpleNamespace(num_classes=2, train=SimpleNamespace(y=y), test=SimpleNamespace(y=y)),
    )


def test_new_tlm_is_seeded_and_shaped_by_the_setup():
    setup = _setup()
    a, b = ex.new_tlm(setup, seed=3), ex.new_tlm(setup, seed=3)
    inputs = {k: v[:2] for k, v in setup.x["train"].items()}
    out = a({**inputs, "mask_positions": np.zeros((2, 2), "int32")})
    assert tuple(out["task"].shape) == (2, 2) and tuple(out["mlm"].shape) == (2, 2, 20)
    for u, v in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(u, v)
    assert ex.new_tlm(setup, seed=3, pooling="cls").count_params() == a.count_params()


def test_stage1_reads_retrieved_batches_only_when_rho1_asks():
    setup = _setup()
    alone = ex.stage1(setup, ex.new_tlm(setup, 0), rho1=0, rho2=20, seed=0)  # task data only: external left out
    assert (alone.steps, alone.internal_batches, alone.external_batches) == (4, 4, 0)
    mixed = ex.stage1(setup, ex.new_tlm(setup, 0), rho1=1, rho2=20, seed=0, steps=2)
    assert (mixed.internal_batches, mixed.external_batches) == (1, 1)
    ext_only = ex.stage1(setup, ex.new_tlm(setup, 0), rho1=math.inf, rho2=20, seed=0, steps=2)
    assert ext_only.internal_batches == 0
