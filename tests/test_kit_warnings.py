"""The warnings `import kit` silences are only the ones it means to (kit/__init__.py)."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.one_backend

PROBE = """
import warnings
import kit
head = "Gradients do not exist for variables "
warnings.warn(head + "['pooled_dense/kernel', 'pooled_dense/bias'] when minimizing the loss.", UserWarning)
warnings.warn(head + "['dense/kernel'] when minimizing the loss.", UserWarning)
"""


def test_only_the_unused_poolers_gradient_warning_is_silenced():
    # a fresh process: the filters exactly as `import kit` leaves them (a test run may have changed this one's)
    env = {**os.environ, "KERAS_BACKEND": "jax", "TF_CPP_MIN_LOG_LEVEL": "3"}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "['dense/kernel']" in out.stderr  # a real missing gradient is still shown
    assert "pooled_dense" not in out.stderr  # the [CLS] pooler a head does not read is not
