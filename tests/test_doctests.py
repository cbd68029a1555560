"""The docstring examples in kit/ are runnable: run them (on every backend, like the rest of the suite)."""

import doctest
import importlib
import pkgutil

import pytest

import kit

MODULES = sorted(m.name for m in pkgutil.walk_packages(kit.__path__, "kit.") if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples in {name} failed"
