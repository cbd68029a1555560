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


#: kit/'s size when issue 41 asked for a leaner kit (28,344 lines); it was 27,403 after its docstrings were shortened.
MAX_KIT_LINES = 28_344


def kit_lines(folder: Path) -> int:
    """All the lines of the .py files under ``folder`` (code, docstrings, comments and blanks)."""
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in folder.rglob("*.py"))


def test_kit_stays_smaller_than_when_issue_41_measured_it(tmp_path):
    lines = kit_lines(ROOT / "kit")
    assert lines < MAX_KIT_LINES, (
        f"kit/ is {lines:,} lines, over the {MAX_KIT_LINES:,} of issue 41: say it once (a helper, a shorter docstring)"
    )
    (tmp_path / "a.py").write_text("x = 1\n\n\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "c.py").write_text('"""Doc."""\n')
    (tmp_path / "notes.txt").write_text("not code\n" * 5)
    assert kit_lines(tmp_path) == 4


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


#: The kit's rooms by floor (docs/layout.md): a module may import its own room and the floors below, never above.
FLOORS = {
    "kit.config": 0, "kit.devices": 0, "kit.tf_guard": 0, "kit.testing": 0, "kit.notebooks": 0, "kit.files": 0,
    "kit.results": 0, "kit.checks": 0,
    "kit.data": 1, "kit.text": 1,
    "kit.metrics": 2, "kit.optimizers": 2, "kit.retrieval": 2,
    "kit.models": 3,
    "kit.train": 4, "kit.analysis": 4,
    "kit.papers": 5,
    "kit.runner": 6, "kit.session": 6, "kit.lab": 6, "kit.inprocess": 6,
    "kit.cli": 7, "kit.course_site": 7, "kit.testplan": 7, "kit.exercises": 7,
}  # fmt: skip


def room(module: str) -> str:
    """The room of a kit module: its entry in FLOORS (``kit.models.heads.matching`` -> ``kit.models``)."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in FLOORS:
            return ".".join(parts[:n])
    return module


def kit_imports(folder: Path, package: str = "kit") -> dict[str, set[str]]:
    """``{module: {kit modules it imports}}`` for every module under ``folder``, imports inside functions included."""
    graph = {}
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        here = name if rel.name == "__init__" else name.rsplit(".", 1)[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
                names = [f"{module}.{a.name}" for a in node.names]
                targets.update(n for n in [module, *names] if n and n.split(".")[0] == package)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.split(".")[0] == package)
        graph[name] = {t for t in targets if t != name}
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``"importer -> imported"`` for every import of a higher floor (the package ``kit`` itself is exempt)."""
    rows = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            a, b = room(module), room(target)
            if a in FLOORS and b in FLOORS and FLOORS[b] > FLOORS[a]:
                rows.append(f"{module} (floor {FLOORS[a]}) -> {target} (floor {FLOORS[b]})")
    return rows


def module_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle of modules that import each other (through their __init__ or directly), as found by a DFS."""
    known = {m: {t if t in graph else t.rsplit(".", 1)[0] for t in ts} & set(graph) for m, ts in graph.items()}
    cycles, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        for t in sorted(known[m]):
            if state.get(t) == "open" and not (m.startswith(t + ".") or t == "kit"):  # a package imports its parts
                cycles.append(stack[stack.index(t) :] + [t])
            elif t not in state:
                visit(t, stack + [t])
        state[m] = "done"

    for m in sorted(known):
        if m not in state:
            visit(m, [m])
    return cycles


def test_every_import_in_kit_points_down_and_no_modules_import_each_other():
    graph = kit_imports(ROOT / "kit")
    assert not upward_imports(graph), "imports that run back up a floor (docs/layout.md):\n  " + "\n  ".join(
        upward_imports(graph)
    )
    assert not module_cycles(graph), f"modules that import each other: {module_cycles(graph)}"


def test_the_floor_check_finds_an_upward_import_and_a_cycle(tmp_path):
    kit = tmp_path / "kit"
    for folder in ("models", "train"):
        (kit / folder).mkdir(parents=True)
        (kit / folder / "__init__.py").write_text("")
    (kit / "__init__.py").write_text("")
    (kit / "models" / "bundle.py").write_text("def load():\n    from .. import train\n")  # up, inside a function
    (kit / "train" / "a.py").write_text("from .b import x\n")
    (kit / "train" / "b.py").write_text("from kit.train.a import y\n")
    graph = kit_imports(kit)
    assert upward_imports(graph) == ["kit.models.bundle (floor 3) -> kit.train (floor 4)"]
    assert module_cycles(graph) == [["kit.train.a", "kit.train.b", "kit.train.a"]]


def unnamed_modules(kit: Path, layout: str) -> list[str]:
    """Every module of ``kit`` (not ``__init__``) whose file name the file list of ``layout`` (docs/layout.md) lacks.

    A paper's module may be named by its pattern (``<paper>_runs.py`` names ``tlm_runs.py``).
    """
    listing = layout.split("```")[1]
    missing = []
    for path in sorted(kit.rglob("*.py")):
        rel = path.relative_to(kit)
        if path.name == "__init__.py" or path.name in listing:
            continue
        paper = rel.parts[1] if len(rel.parts) == 3 and rel.parts[0] == "papers" else None
        if paper and path.name.replace(paper, "<paper>", 1) in listing:
            continue
        missing.append(str(rel))
    return missing


def test_docs_layout_names_every_module_and_every_room_has_a_floor():
    missing = unnamed_modules(ROOT / "kit", (ROOT / "docs" / "layout.md").read_text(encoding="utf-8"))
    assert not missing, "docs/layout.md's file list lacks: " + ", ".join(missing)
    graph = kit_imports(ROOT / "kit")
    floorless = sorted({room(m) for m in graph} - set(FLOORS) - {"kit"})
    assert not floorless, f"modules on no floor (add them to FLOORS and docs/layout.md's floors): {floorless}"


def test_the_layout_check_finds_an_unnamed_module(tmp_path):
    (tmp_path / "papers" / "tlm").mkdir(parents=True)
    for name in ("a.py", "b.py", "papers/tlm/tlm_runs.py", "papers/tlm/tlm_new.py"):
        (tmp_path / name).write_text("")
    assert unnamed_modules(tmp_path, "```\na.py <paper>_runs.py\n```") == ["b.py", "papers/tlm/tlm_new.py"]
