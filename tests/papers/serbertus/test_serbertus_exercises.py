"""Notebook 04's exercise helpers: the optimizer of the recipe and the mean ± SE over seeds (no data loaded)."""

import numpy as np

from kit.papers.serbertus import serbertus_exercises as ex
from kit.papers.serbertus import serbertus_runs as runs
from tests.helpers import tiny_backbone

S = {"learning_rate": 1e-3, "warmup": 0.1, "weight_decay": 0.01}


def model():
    bb = tiny_backbone(0, vocabulary_size=30, hidden_dim=8, max_sequence_length=8, hidden_activation="gelu_approximate")
    return runs.build_model(bb, {"sst": 2}, "single", pooling="mean")


def test_recipe_optimizer_scales_each_layer_and_follows_the_schedule():
    m = model()
    opt, schedule = ex.recipe_optimizer(m, S, steps=10, decay=0.5, embeddings="frozen")
    opt.build(m.trainable_variables)
    multipliers = {round(float(opt.rate_multiplier(v)), 6) for v in m.trainable_variables}
    assert float(schedule(9)) < float(schedule(1)) < 1.001 * S["learning_rate"]
    assert opt.global_clipnorm == 1.0
    assert multipliers == {0.0, 0.5, 1.0}  # frozen embeddings, the lower layer at 0.5, the top layer and the head at 1


def test_mean_se_over_seeds_and_one_seed():
    assert ex.mean_se([0.5, 0.7]).startswith("0.600 ± 0.100")
    assert ex.mean_se([0.5]).startswith("0.500")
    assert np.isfinite(float(ex.mean_se([0.5]).split()[0]))
