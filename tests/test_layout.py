"""The kit's layout: every function and method in kit/ is short enough to read at once (issue 27)."""

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

#: The most lines a function or method in kit/ may have, from its ``def`` line to its last line, docstring included.
MAX_LINES = 60


def long_functions(folder: Path, limit: int = MAX_LINES) -> list[str]:
    """``"path:line name (N lines)"`` for every function or method under ``folder`` longer than ``limit`` lines."""
    rows = []
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    rows.append(f"{path.relative_to(folder.parent)}:{node.lineno} {node.name} ({length} lines)")
    return rows


def test_every_function_in_kit_is_at_most_60_lines():
    offenders = long_functions(ROOT / "kit")
    assert not offenders, (
        f"{len(offenders)} function(s) in kit/ longer than {MAX_LINES} lines (def line to last line, docstring "
        "included); split them along their steps:\n  " + "\n  ".join(offenders)
    )


def test_the_length_check_finds_long_functions_and_methods(tmp_path):
    body = "    x = 1\n"
    source = (
        "def fits():\n"
        + body * 59  # 60 lines: allowed
        + "\n\n@staticmethod\ndef too_long():\n    '''Docstring.'''\n"
        + body * 59  # 61 lines with its docstring
        + "\n\nclass A:\n    async def method(self):\n"
        + ("    " + body) * 61  # 62 lines
        + "\n    def short(self):\n        def inner():\n"
        + ("    " * 2 + body) * 60
        + "        return inner\n"
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(source)
    assert long_functions(tmp_path / "pkg") == [
        "pkg/m.py:64 too_long (61 lines)",
        "pkg/m.py:128 method (62 lines)",
        "pkg/m.py:191 short (63 lines)",
        "pkg/m.py:192 inner (61 lines)",
    ]
