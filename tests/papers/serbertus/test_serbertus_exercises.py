"""Notebook 04's exercise helpers: the optimizer of the recipe and the mean ± SE over seeds (no data loaded)."""

import keras
import numpy as np

from kit.models import BertBackbone
from kit.papers.serbertus import serbertus_exercises as ex
from kit.papers.serbertus import serbertus_runs as runs

S = {"learning_rate": 1e-3, "warmup": 0.1, "weight_decay": 0.01}


def model():
    keras.utils.set_random_seed(0)
    bb = BertBackbone(
        vocabulary_size=30, num_layers=2, num_heads=2, hidden_dim=8, intermediate_dim=16, max_sequence_length=8
    )
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
