"""The kit's version is written once, as ``kit.__version__``; the package's metadata reads it (pyproject.toml)."""

import ast
import tomllib
from pathlib import Path

import pytest

import kit

pytestmark = pytest.mark.one_backend

ROOT = Path(__file__).resolve().parents[1]


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_pyproject_takes_the_version_from_kit():
    pyproject = _pyproject()
    project, setuptools = pyproject["project"], pyproject["tool"]["setuptools"]
    assert "version" not in project, "pyproject.toml writes the version again: it is kit.__version__ alone"
    assert "version" in project["dynamic"]
    assert setuptools["dynamic"]["version"] == {"attr": "kit.__version__"}


def test_kit_version_is_a_literal_that_a_build_reads_without_importing_kit():
    tree = ast.parse((ROOT / "kit" / "__init__.py").read_text())
    literals = [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
        and isinstance(node.value, ast.Constant)
    ]
    assert literals == [kit.__version__]


def test_setuptools_reads_kit_version():
    pyprojecttoml = pytest.importorskip("setuptools.config.pyprojecttoml")  # a venv of Python 3.12+ may lack it
    assert pyprojecttoml.read_configuration(ROOT / "pyproject.toml")["project"]["version"] == kit.__version__
