"""The warnings `import kit` silences are only the ones it means to (kit/__init__.py)."""

import warnings

import pytest

import kit  # noqa: F401  (installs the filters)

pytestmark = pytest.mark.one_backend


def test_only_the_unused_poolers_gradient_warning_is_silenced():
    with warnings.catch_warnings(record=True) as seen:  # the filters as `import kit` left them
        head = "Gradients do not exist for variables "
        warnings.warn(
            head + "['pooled_dense/kernel', 'pooled_dense/bias'] when minimizing the loss.", UserWarning, stacklevel=1
        )
        warnings.warn(head + "['dense/kernel'] when minimizing the loss.", UserWarning, stacklevel=1)  # a bug: shown
    assert [str(w.message) for w in seen] == [head + "['dense/kernel'] when minimizing the loss."]
