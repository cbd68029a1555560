"""``kit.models.parameter_counts`` counts what the models build, for both poolings (notebook 04's size table)."""

import pytest

from kit.models import parameter_counts
from kit.papers.serbertus import serbertus_runs as runs
from tests.helpers import tiny_backbone

HEADS = {"sst": 5, "qqp": 1, "sts": 1}


def tiny():
    return tiny_backbone(
        0, vocabulary_size=30, num_layers=3, hidden_dim=8, max_sequence_length=8, hidden_activation="gelu_approximate"
    )


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_the_counts_match_the_built_models(pooling):
    rows = {r["architecture"]: r for r in parameter_counts(tiny(), HEADS, ks=(0, 1, 2), pooling=pooling)}
    built = {
        "multi-BERT": ("multi", 0),
        "CerBERTus k=1": ("cerbertus", 1),
        "CerBERTus k=2": ("cerbertus", 2),
        "triple-BERT": ("triple", 0),
    }
    for name, (architecture, k) in built.items():
        model = runs.build_model(tiny(), HEADS, architecture, k=k, dropout=0.0, pooling=pooling)
        summary = model.parameter_summary()
        assert (rows[name]["total"], rows[name]["trainable"]) == (summary["total"], summary["trainable"]), name


def test_mean_pooling_drops_the_per_task_poolers_and_freezes_the_built_ones():
    cls = {r["architecture"]: r for r in parameter_counts(tiny(), HEADS, ks=(2,), pooling="cls")}
    mean = {r["architecture"]: r for r in parameter_counts(tiny(), HEADS, ks=(2,), pooling="mean")}
    pooler = 8 * 8 + 8  # hidden x hidden + bias
    assert cls["CerBERTus k=2"]["total"] - mean["CerBERTus k=2"]["total"] == (len(HEADS) - 1) * pooler
    assert mean["CerBERTus k=2"]["total"] - mean["CerBERTus k=2"]["trainable"] == pooler
    assert mean["triple-BERT"]["total"] - mean["triple-BERT"]["trainable"] == len(HEADS) * pooler
    with pytest.raises(ValueError, match="pooling"):
        parameter_counts(tiny(), HEADS, pooling="max")
