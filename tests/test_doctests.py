"""The docstring examples in kit/ are runnable: run them (on every backend, like the rest of the suite)."""

import doctest
import importlib
import pkgutil

import pytest

import kit

PACKAGES = pkgutil.walk_packages(kit.__path__, "kit.")
MODULES = ["kit", *sorted(m.name for m in PACKAGES if not m.name.endswith("__main__"))]  # kit: kit.quiet's example
#: Modules whose examples use no Keras, or are a notebook's plumbing (kit.papers: the layers and training helpers it
#: calls are tested on every backend): `kit test` runs them under its first backend only.
ONE_BACKEND = (
    "kit.data",
    "kit.retrieval",
    "kit.analysis.baselines",
    "kit.analysis.bootstrap",
    "kit.analysis.calibration",
    "kit.analysis.cost",
    "kit.analysis.noise",
    "kit.analysis.power",
    "kit.analysis.spread",
    "kit.analysis.verdict_views",
    "kit.analysis.verdicts",
    "kit.analysis.pictures",
    "kit.lab",
    "kit.course_site",
    "kit.inprocess",
    "kit.notebooks",
    "kit.testplan",
    "kit.metrics.tagging_scores",
    "kit.metrics.classification",
    "kit.data.encoding",
    "kit.papers.",
    "kit.text.byte_bpe",
    "kit.text.words",
)


@pytest.mark.parametrize(
    "name", [pytest.param(m, marks=pytest.mark.one_backend) if m.startswith(ONE_BACKEND) else m for m in MODULES]
)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples in {name} failed"
