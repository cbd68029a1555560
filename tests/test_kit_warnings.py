"""`import kit` changes no warning filter; `kit.quiet()` hides exactly the two warnings it names (kit/__init__.py)."""

import os
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest
from tqdm import TqdmWarning

import kit

POOLER = "Gradients do not exist for variables ['pooled_dense/kernel', 'pooled_dense/bias'] when minimizing the loss."
KERAS_OPTIMIZER = "keras.src.optimizers.base_optimizer"  # where Keras warns about a missing gradient

UNCHANGED = """
import sys, warnings
import numpy  # the kit imports it, and numpy's import adds its own filters
before = list(warnings.filters)
import kit
sys.exit(0 if warnings.filters == before else 1)
"""


@pytest.mark.one_backend
@pytest.mark.parametrize("backend", ["jax", "tensorflow", "torch"])
def test_import_kit_leaves_the_warning_filters_unchanged(backend):
    # a fresh process: the filters exactly as Python and `import kit` leave them (pytest changes this one's)
    env = {**os.environ, "KERAS_BACKEND": backend, "TF_CPP_MIN_LOG_LEVEL": "3"}
    out = subprocess.run([sys.executable, "-c", UNCHANGED], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"import kit changed warnings.filters under {backend}: {out.stderr[-2000:]}"


def _shown(*warns):
    """The messages of ``warns`` (``(message, category, module)``) that show after :func:`kit.quiet`."""
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        kit.quiet()
        for message, category, module in warns:
            warnings.warn_explicit(message, category, f"{module.replace('.', '/')}.py", 1, module=module)
    return [str(w.message) for w in shown]


@pytest.mark.one_backend
def test_quiet_installs_two_filters_once():
    with warnings.catch_warnings():
        before = len(warnings.filters)
        kit.quiet()
        kit.quiet()
        added = warnings.filters[: len(warnings.filters) - before]
    assert [(action, kind) for action, _, kind, *_ in added] == [("ignore", UserWarning), ("ignore", TqdmWarning)]
    assert [message.pattern for _, message, *_ in added] == [kit.UNUSED_POOLER_MESSAGE, kit.IPROGRESS_MESSAGE]


@pytest.mark.one_backend
def test_quiet_hides_the_unused_pooler_and_tqdm_notices_only():
    iprogress = "IProgress not found. Please update jupyter and ipywidgets. See https://ipywidgets.readthedocs.io/"
    other_variable = "Gradients do not exist for variables ['dense/kernel'] when minimizing the loss."
    head = "Gradients do not exist for variables "
    pooler_and_other = head + "['pooled_dense/kernel', 'dense/bias'] when minimizing the loss."
    task_poolers = head + "['sst_pooled_dense/kernel', 'sts_pooled_dense/bias'] when minimizing the loss."
    hidden = [(POOLER, UserWarning, KERAS_OPTIMIZER), (task_poolers, UserWarning, KERAS_OPTIMIZER)]
    hidden.append((iprogress, TqdmWarning, "tqdm.auto"))
    assert _shown(*hidden) == []
    shown = [(other_variable, UserWarning, KERAS_OPTIMIZER), (pooler_and_other, UserWarning, KERAS_OPTIMIZER)]
    shown += [(POOLER, UserWarning, "my_training_loop"), (POOLER, DeprecationWarning, KERAS_OPTIMIZER)]
    shown.append((iprogress, UserWarning, "tqdm.auto"))
    assert _shown(*shown) == [message for message, *_ in shown]


def test_quiet_hides_keras_notice_of_a_mean_pooled_classifiers_pooler(tiny_bert):
    # the real thing on this backend: a head that never reads [CLS] leaves BERT's pooler without a gradient
    import keras

    model = kit.models.build_classifier(tiny_bert, num_classes=2, dropout=0.0, pooling="mean")
    model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    ids = np.array([[2, 5, 6, 3], [2, 7, 3, 0]], "int32")
    x = {"token_ids": ids, "segment_ids": np.zeros_like(ids), "padding_mask": (ids > 0).astype("int32")}
    for quiet in (False, True):
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("always")
            if quiet:
                kit.quiet()
            model.fit(x, np.array([0, 1]), epochs=1, verbose=0)
        pooler = [w for w in shown if "pooled_dense" in str(w.message)]
        # jax differentiates every variable (a zero gradient for the pooler): Keras has nothing to say there
        notices = 0 if quiet or keras.backend.backend() == "jax" else 1
        assert len(pooler) == notices, [str(w.message) for w in shown]


@pytest.mark.one_backend
def test_pytest_fails_on_a_warning_but_the_few_named_by_message_category_and_module():
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    filters = pyproject["tool"]["pytest"]["ini_options"]["filterwarnings"]
    assert filters[0] == "error"
    accepted = [f.split(":") for f in filters[1:]]
    assert all(len(f) == 4 and f[0] == "ignore" and all(f[1:]) for f in accepted), filters  # never a whole category
    assert [f for f in accepted if f[1] == kit.UNUSED_POOLER_MESSAGE], "the pooler's notice as kit.quiet() names it"
