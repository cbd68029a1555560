"""``run_layer_test``: the checks every kit layer passes on every backend.

As keras' own: config round-trip, weight counts, symbolic and eager output shapes, a ``fit`` step that moves weights, a
``.keras`` save/load with the same outputs. ``run_precision_test`` (as keras-hub's): under mixed policies, outputs
finite in the compute dtype, weights float32, every sublayer on the policy.

>>> from kit.models import ClassifierHead
>>> import numpy as np
>>> _ = run_layer_test(ClassifierHead, {"num_classes": 3}, np.ones((4, 8), "float32"),
...                    expected_output_shape=(4, 3), expected_num_trainable_weights=2)
"""

from __future__ import annotations

import os
import tempfile

import keras
import numpy as np


def _tree_map(fn, x):
    if isinstance(x, dict):
        return {k: _tree_map(fn, v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_tree_map(fn, v) for v in x)
    return fn(x)


def _first(x):
    if isinstance(x, dict):
        return _first(x[sorted(x)[0]])
    if isinstance(x, (list, tuple)):
        return _first(x[0])
    return x


def _to_numpy(x):
    return _tree_map(lambda t: keras.ops.convert_to_numpy(t), x)


def run_layer_test(
    layer_cls,
    init_kwargs: dict,
    input_data,
    expected_output_shape=None,
    expected_num_trainable_weights: int | None = None,
    expected_num_non_trainable_weights: int | None = None,
    run_training_check: bool = True,
    call_kwargs: dict | None = None,
) -> keras.layers.Layer:
    """Run the standard checks on ``layer_cls(**init_kwargs)`` with ``input_data``; returns the eager call's layer.

    In order: config round-trip (each init argument must be in ``get_config()``), an eager call (output shape, weight
    counts; None: not checked), a symbolic call in a functional model, one ``fit`` step to random targets that moves the
    weights (``run_training_check``), a ``.keras`` save/load with the same outputs (:data:`SAVE_LOAD_ATOL`).
    ``input_data``: one batch (array, dict or list of them); ``expected_output_shape``: the first output's shape, or
    ``{key: shape}`` for dict outputs. AssertionError says which check failed.
    """
    call_kwargs = call_kwargs or {}
    layer = _check_config_round_trip(layer_cls, init_kwargs)
    out = layer(input_data, **call_kwargs)
    shape = _check_output_shape(out, expected_output_shape)
    _check_weight_counts(layer, expected_num_trainable_weights, expected_num_non_trainable_weights)
    model, eager = _check_symbolic_call(layer_cls, init_kwargs, input_data, call_kwargs, shape)
    if run_training_check:
        _check_fit_step(model, input_data, eager)
    _check_save_load(model, input_data)
    return layer


def _check_config_round_trip(layer_cls, init_kwargs: dict) -> keras.layers.Layer:
    """1. ``get_config``/``from_config`` round-trip, and every init argument is in the config; returns the layer."""
    layer = layer_cls(**init_kwargs)
    config = layer.get_config()
    clone = layer_cls.from_config(config)
    assert clone.get_config() == config, "get_config/from_config does not round-trip"
    for key in init_kwargs:
        assert key in config, f"init argument {key!r} missing from get_config()"
    return layer


def _check_output_shape(out, expected_output_shape) -> tuple:
    """2. The eager output's shape (a dict output: every key's) is the expected one; returns the first output's."""
    shape = tuple(_first(out).shape)
    if isinstance(expected_output_shape, dict):  # dict outputs: {key: shape}
        got = {k: tuple(v.shape) for k, v in out.items()}
        want = {k: tuple(v) for k, v in expected_output_shape.items()}
        assert got == want, f"output shapes {got} != {want}"
    elif expected_output_shape is not None:
        assert shape == tuple(expected_output_shape), f"output shape {shape} != {expected_output_shape}"
    return shape


def _check_weight_counts(layer, expected_trainable: int | None, expected_non_trainable: int | None) -> None:
    """2. The built layer has the expected numbers of trainable and non-trainable weights (None: not checked)."""
    if expected_trainable is not None:
        got = len(layer.trainable_weights)
        assert got == expected_trainable, f"{got} trainable weights, expected {expected_trainable}"
    if expected_non_trainable is not None:
        got = len(layer.non_trainable_weights)
        assert got == expected_non_trainable, f"{got} non-trainable weights, expected {expected_non_trainable}"


def _symbolic_input(a, name=None):
    """A ``keras.Input`` of ``a``'s shape without the batch and of its dtype."""
    return keras.Input(shape=np.shape(a)[1:], dtype=str(np.asarray(a).dtype), name=name)


def _check_symbolic_call(layer_cls, init_kwargs: dict, input_data, call_kwargs: dict, shape: tuple):
    """3. A symbolic call builds a functional model with the eager output's batch-free shape."""
    sym_inputs = (
        {k: _symbolic_input(v, k) for k, v in input_data.items()}
        if isinstance(input_data, dict)
        else _tree_map(_symbolic_input, input_data)
    )
    sym_layer = layer_cls(**init_kwargs)
    sym_out = sym_layer(sym_inputs, **call_kwargs)
    assert tuple(_first(sym_out).shape)[1:] == shape[1:], "symbolic and eager output shapes differ"
    model = keras.Model(sym_inputs, sym_out)
    return model, _to_numpy(model(input_data))


def _check_fit_step(model, input_data, eager) -> None:
    """4. One SGD ``fit`` step on random targets (seeded) moves at least one weight."""
    rng = np.random.default_rng(0)
    target = _tree_map(lambda a: rng.normal(size=np.shape(a)).astype("float32"), eager)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = [np.array(w) for w in _to_numpy(model.trainable_weights)]
    model.fit(input_data, target, batch_size=len(_first(eager)), epochs=1, verbose=0)
    after = _to_numpy(model.trainable_weights)
    assert any(not np.allclose(b, a) for b, a in zip(before, after)), "fit did not change any weight"


#: The absolute tolerance of :func:`run_layer_test`'s save/load comparison (rtol 1e-5).
SAVE_LOAD_ATOL = 1e-5


def _check_save_load(model, input_data, atol: float = SAVE_LOAD_ATOL) -> None:
    """5. A ``.keras`` save/load gives the same outputs (within ``atol``, rtol 1e-5)."""
    ref = _to_numpy(model(input_data))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.keras")
        model.save(path)
        loaded = keras.saving.load_model(path)
    got = _to_numpy(loaded(input_data))
    for g, r in zip(keras.tree.flatten(got), keras.tree.flatten(ref)):
        np.testing.assert_allclose(g, r, atol=atol, rtol=1e-5, err_msg="outputs changed after .keras save/load")


PRECISION_POLICIES = ("mixed_float16", "mixed_bfloat16")


def run_precision_test(
    layer_cls, init_kwargs: dict, input_data, call_kwargs: dict | None = None, policies=PRECISION_POLICIES
) -> None:
    """Build ``layer_cls(**init_kwargs, dtype=policy)`` for each of ``policies`` and check its dtypes and outputs.

    Floating outputs finite and in the compute dtype (float16 / bfloat16); floating weights float32; every sublayer but
    Softmax and inputs (float32 in keras-hub) on the policy. AssertionError names layer, policy and the failing part.

    Example:
        >>> from kit.models import ClassifierHead
        >>> run_precision_test(ClassifierHead, {"num_classes": 2}, np.ones((2, 4), "float32"))
    """
    call_kwargs = call_kwargs or {}
    for name in policies:
        policy = keras.dtype_policies.DTypePolicy(name)
        layer = layer_cls(**{**init_kwargs, "dtype": policy})
        out = layer(input_data, **call_kwargs)
        for tensor in keras.tree.flatten(out):
            dtype = keras.backend.standardize_dtype(tensor.dtype)
            if "float" in dtype:
                assert dtype == policy.compute_dtype, (
                    f"{layer_cls.__name__} under {name}: an output is {dtype}, expected {policy.compute_dtype}"
                )
                values = keras.ops.convert_to_numpy(keras.ops.cast(tensor, "float32"))
                assert np.isfinite(values).all(), f"{layer_cls.__name__} under {name}: outputs are not all finite"
        for weight in layer.weights:
            dtype = keras.backend.standardize_dtype(weight.dtype)
            if "float" in dtype:
                assert dtype == policy.variable_dtype, (
                    f"{layer_cls.__name__} under {name}: weight {weight.path} is {dtype}, "
                    f"expected {policy.variable_dtype}"
                )
        for sub in layer._flatten_layers(include_self=False):
            if isinstance(sub, (keras.layers.Softmax, keras.layers.InputLayer)):
                continue
            assert sub.compute_dtype == policy.compute_dtype, (
                f"{layer_cls.__name__} under {name}: sublayer {sub.name} computes in {sub.compute_dtype}"
            )
