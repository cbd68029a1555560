"""Training helpers across devices: keras.distribution.DataParallel on two simulated host devices (jax)."""

import os
import subprocess
import sys
import textwrap

import keras
import pytest

SCRIPT = textwrap.dedent("""
    import jax, keras, numpy as np
    import kit
    from kit.train import FitRecipe, Stage1Recipe, fit_classifier, train_stage1
    assert len(jax.devices()) == 2, jax.devices()
    dist = keras.distribution.DataParallel(devices=jax.devices())
    rng = np.random.default_rng(0)
    x = rng.normal(size=(128, 8)).astype("float32"); y = (x[:, 0] > 0).astype("int32")
    keras.utils.set_random_seed(0)
    with dist.scope():
        m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)])
    r = fit_classifier(m, (x, y), (x, y), FitRecipe(2e-2, epochs=20, batch_size=32), distribution=dist)
    devices = len(m.weights[0].value.sharding.device_set)
    print("fit", round(r.best_dev_accuracy, 3), devices)

    outside = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
    try:
        fit_classifier(outside, (x, y), (x, y), FitRecipe(1e-2, epochs=1, batch_size=32), distribution=dist)
    except ValueError as e:
        print("outside:", "built outside the distribution" in str(e))

    from kit.text import MLMMasker
    with dist.scope():
        bb = kit.models.tlm_backbone(40, num_layers=1, num_heads=2, hidden_dim=16, intermediate_dim=32,
                                     max_sequence_length=12, dropout=0.0)
        tlm = kit.models.TLMModel(bb, num_classes=2, max_predictions=2, dropout=0.0)
    ids = rng.choice([5, 6, 7, 8, 9], size=(64, 12), p=[.6, .1, .1, .1, .1]); ids[:, 0] = 2; ids[:, -1] = 3
    inp = {"token_ids": ids, "segment_ids": 0 * ids, "padding_mask": np.ones_like(ids)}
    masker = MLMMasker(vocabulary_size=40, mask_token_id=4, special_token_ids=[0, 2, 3], max_predictions=2)
    recipe = Stage1Recipe(rho1=1, rho2=1, steps=30, batch_size=16, learning_rate=1e-2, chunks=2,
                          mlm_prior="zero")  # from log |V|: the loss falls as the head learns the skew
    s1 = train_stage1(tlm, (inp, (ids[:, 1] == 5).astype("int64")), inp, masker, recipe, distribution=dist)
    print("stage1", s1.curve["mlm_loss"][-1] < s1.curve["mlm_loss"][0],
          len(tlm.weights[0].value.sharding.device_set))
""")


def test_data_parallel_on_two_host_devices():
    if keras.backend.backend() != "jax":
        pytest.skip("DataParallel is tested once, in a jax process with two simulated host devices")
    env = dict(os.environ, KERAS_BACKEND="jax", XLA_FLAGS="--xla_force_host_platform_device_count=2")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    acc, devices = lines["fit"].split()
    assert float(acc) > 0.9 and devices == "2"
    assert lines["outside:"] == "True"
    assert lines["stage1"] == "True 2"
