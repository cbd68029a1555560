"""Shared fixtures. The suite runs once per backend: KERAS_BACKEND=jax|tensorflow|torch pytest."""

import os

# Tests build hundreds of tiny models, so XLA spends its time compiling, not running: skipping its backend
# optimisations cut a cold jax run of the slowest tests by a third (tensorflow's by a tenth). Set here, before any
# test imports a backend; notebooks keep XLA's default. An XLA_FLAGS that already sets the level wins.
if "xla_backend_optimization_level" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_backend_optimization_level=0").strip()

# Figures draw off screen in every test (a test that draws needs no display); set before matplotlib is imported.
os.environ.setdefault("MPLBACKEND", "Agg")

import sys

import numpy as np
import pytest

from tests.helpers import tiny_backbone, write_roberta_preset


def pytest_configure(config):
    """Keep jax's compiled programs on disk for the session: tests build many alike small models."""
    import keras

    if keras.backend.backend() == "jax":
        from kit.config import enable_compile_cache

        enable_compile_cache()


def pytest_report_header(config):
    return (
        f"KERAS_BACKEND={os.environ.get('KERAS_BACKEND', '(unset: tensorflow)')}, "
        f"KIT_SCALE={os.environ.get('KIT_SCALE', 'smoke')}"
    )


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every figure a test drew (nothing to do where no test imported pyplot)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def kit_run_reads(monkeypatch):
    """`kit run` without a kernel: each run's environment, and the data set the notebook reads with it (``"ds"``)."""
    import kit.runner

    seen = {}

    def fake_run(nb, out, timeout, env, in_process):
        out.mkdir(parents=True, exist_ok=True)
        seen.update(env)
        with kit.runner._environ(env):  # the notebook's own read, as in the kernel
            seen["ds"] = kit.runner.check_data(nb, env)
        return out / nb.name

    monkeypatch.setattr(kit.runner, "run_notebook", fake_run)
    return seen


@pytest.fixture(scope="session")
def minilm():
    from kit.models import load_backbone

    return load_backbone("minilm-l6", sequence_length=40)


@pytest.fixture(scope="session")
def reference():
    import json
    from pathlib import Path

    ref = np.load(Path(__file__).parent / "fixtures" / "minilm_reference.npz")
    return ref, json.loads(str(ref["meta"]))


@pytest.fixture
def tiny_bert():
    """A small random BERT (kit's BertBackbone) for fast layer and save/load tests."""
    return tiny_backbone()


@pytest.fixture(scope="module")
def roberta_preset(tmp_path_factory):
    """A keras-hub preset folder of a tiny random RoBERTa, and the keras-hub model it came from."""
    folder = tmp_path_factory.mktemp("tiny_roberta")
    return folder, write_roberta_preset(folder)


@pytest.fixture(scope="session")
def web_conllu():
    """Google's Turkish Web Treebank (CoNLL-U, from its PyPI wheel; skipped offline when it is not cached)."""
    from kit.data.conllu import turkish_web_treebank

    try:
        return turkish_web_treebank()
    except FileNotFoundError:
        if os.environ.get("KIT_OFFLINE"):
            pytest.skip("the Turkish Web Treebank is not cached and KIT_OFFLINE is set")
        raise
