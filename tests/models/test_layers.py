"""run_layer_test on every kit layer (config, weights, symbolic/eager, fit step, .keras save/load)."""

import numpy as np
import pytest

from kit.models import ClassifierHead
from kit.testing import run_layer_test, run_precision_test
from tests.helpers import TINY_BERT

#: A one-layer BERT of width 8 for the layer contract (TINY_BERT's other sizes).
ONE_LAYER_BERT = {**TINY_BERT, "num_layers": 1, "hidden_dim": 8, "intermediate_dim": 16}


@pytest.mark.parametrize("hidden_dim,n_weights", [(None, 2), (16, 4)])
def test_classifier_head(hidden_dim, n_weights):
    run_layer_test(
        ClassifierHead,
        {"num_classes": 5, "dropout": 0.1, "hidden_dim": hidden_dim},
        np.random.default_rng(0).normal(size=(4, 8)).astype("float32"),
        expected_output_shape=(4, 5),
        expected_num_trainable_weights=n_weights,
        expected_num_non_trainable_weights=0,
    )


def test_classifier_head_precision():
    run_precision_test(ClassifierHead, {"num_classes": 3, "hidden_dim": 8}, np.ones((2, 6), "float32"))


def test_bert_backbone_precision():
    from kit.models import BertBackbone
    from tests.helpers import tiny_inputs

    run_precision_test(
        BertBackbone,
        ONE_LAYER_BERT,
        tiny_inputs(seq=10),
    )


def test_precision_test_can_fail():
    """The precision tier is a real check: a layer that ignores its dtype policy is caught."""
    import keras

    class Stubborn(keras.layers.Layer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.dense = keras.layers.Dense(2)  # dtype not passed on: computes in float32

        def call(self, x):
            return self.dense(x)

    with pytest.raises(AssertionError, match="sublayer|output"):
        run_precision_test(Stubborn, {}, np.ones((2, 4), "float32"))


def test_masked_mean_pooling():
    from kit.models.heads import MaskedMeanPooling

    x = np.random.default_rng(0).normal(size=(3, 5, 4)).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1] * 5, [0, 1, 1, 1, 0]], "int32")
    layer = run_layer_test(
        MaskedMeanPooling,
        {},
        x,
        expected_output_shape=(3, 4),
        run_training_check=False,
        call_kwargs={"padding_mask": mask},
    )
    import keras

    out = keras.ops.convert_to_numpy(layer(x, padding_mask=mask))
    np.testing.assert_allclose(out[0], x[0, :3].mean(0), atol=1e-6)
    np.testing.assert_allclose(out[2], x[2, 1:4].mean(0), atol=1e-6)
    run_precision_test(MaskedMeanPooling, {}, x, call_kwargs={"padding_mask": mask})


def test_classifier_head_regression_output():
    run_layer_test(ClassifierHead, {"num_classes": 1}, np.ones((3, 6), "float32"), expected_output_shape=(3, 1))


def test_classifier_head_rejects_zero_classes():
    with pytest.raises(ValueError, match="num_classes must be >= 1"):
        ClassifierHead(num_classes=0)


def test_bert_backbone_layer_contract():
    from kit.models import BertBackbone
    from tests.helpers import tiny_inputs

    run_layer_test(
        BertBackbone,
        ONE_LAYER_BERT,
        tiny_inputs(seq=10),
        run_training_check=True,
        expected_output_shape={"sequence_output": (4, 10, 8), "pooled_output": (4, 8)},
    )


def test_run_layer_test_can_fail():
    """The helper is a real check: a layer whose config drops an argument is caught."""
    import keras

    class Forgetful(keras.layers.Layer):
        def __init__(self, units=3, **kw):
            super().__init__(**kw)
            self.units = units
            self.dense = keras.layers.Dense(units)

        def call(self, x):
            return self.dense(x)

        def get_config(self):  # forgets "units"
            return super().get_config()

    with pytest.raises(AssertionError, match="missing from get_config"):
        run_layer_test(Forgetful, {"units": 3}, np.ones((2, 4), "float32"))
