"""The one list of notebooks (kit/notebooks.py) matches notebooks/, and a notebook added as docs/contributing.md
says is found by everything that reads it: `kit test`'s plan, `kit run`, the tests' notebook lists and the site."""

import json
import re
import shutil

import pytest

import kit.course_site
import kit.runner
from kit import config, notebooks, testplan
from kit.notebooks import Notebook
from tests.helpers import ROOT, notebook_paths

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend

#: The paper-folder files docs/contributing.md tells a contributor to copy, ``{p}`` the paper's folder name.
PAPER_FILES = ("{p}_sizes.py", "{p}_paper.py", "{p}_runs.py", "{p}_report.py", "{p}_exercises.py", "README.md")


def test_the_registry_and_the_notebooks_folder_name_the_same_notebooks():
    paths = notebooks.check_folder(ROOT / "notebooks")
    assert [p.stem for p in paths] == sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert paths == notebook_paths()


@pytest.mark.parametrize("nb", notebooks.NOTEBOOKS, ids=lambda nb: nb.stem)
def test_each_registered_notebook_is_complete(nb):
    assert nb.stem.startswith(nb.number + "_") and len(nb.number) == 2 and nb.number.isdigit()
    assert nb.backend in ("jax", "tensorflow", "torch") and nb.minutes > 0 and nb.title
    assert nb.tasks and set(nb.tasks) <= {"classification", "regression", "pairs", "pair_regression", "tagging"}
    if nb.paper:
        folder = ROOT / "kit" / "papers" / nb.paper
        assert [f.format(p=nb.paper) for f in PAPER_FILES if not (folder / f.format(p=nb.paper)).exists()] == []
        assert (ROOT / "tests" / "papers" / nb.paper / f"test_{nb.paper}_views.py").exists()
        assert nb.paper in config.PAPERS


def test_the_readme_table_and_the_layout_name_every_notebook_and_paper():
    rows = re.findall(r"^\| (\d\d) \| \[[^]]+\]\(notebooks/(\w+)\.ipynb\)", (ROOT / "README.md").read_text(), re.M)
    assert rows == [(nb.number, nb.stem) for nb in notebooks.NOTEBOOKS]
    layout = (ROOT / "docs" / "layout.md").read_text()
    assert [p for p in notebooks.papers() if p not in layout] == []


def test_numbers_stems_and_papers_are_unique_and_in_order():
    numbers = [nb.number for nb in notebooks.NOTEBOOKS]
    assert numbers == sorted(set(numbers)) and len({nb.stem for nb in notebooks.NOTEBOOKS}) == len(numbers)
    assert len(set(notebooks.papers())) == len(notebooks.papers())


def test_a_notebook_missing_from_the_registry_or_the_folder_is_named(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    for nb in notebooks.NOTEBOOKS[1:]:
        (folder / f"{nb.stem}.ipynb").write_text("{}")
    (folder / "05_new.ipynb").write_text("{}")
    named = r"(?s)not there: \['00_start_here'\].*not registered: \['05_new'\].*add a line"
    with pytest.raises(ValueError, match=named):
        notebooks.check_folder(folder)
    with pytest.raises(KeyError, match="No notebook '05'"):
        notebooks.notebook("05")
    assert notebooks.tasks("05_new.ipynb") is None


#: The registry line docs/contributing.md shows for a new notebook 05, read from the guide.
TOY = eval(re.search(r"\n +(Notebook\(\"05\".*\)),\n", (ROOT / "docs" / "contributing.md").read_text())[1])


@pytest.fixture
def repo_with_05(tmp_path, monkeypatch):
    """A copy of the repository's notebooks (as small stand-ins), site and guides, with a notebook 05 added as
    docs/contributing.md says: its .ipynb in notebooks/ and its line in kit/notebooks.py."""
    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    shutil.copytree(ROOT / "site_src", root / "site_src")
    shutil.copytree(ROOT / "docs", root / "docs")
    small = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# a notebook"}], "metadata": {}}
    for nb in notebooks.NOTEBOOKS:
        (root / "notebooks" / f"{nb.stem}.ipynb").write_text(json.dumps({**small, "nbformat": 4, "nbformat_minor": 5}))
    shutil.copy(root / "notebooks" / "00_start_here.ipynb", root / "notebooks" / "05_toy.ipynb")
    with pytest.raises(ValueError, match=r"not registered: \['05_toy'\]"):
        notebooks.check_folder(root / "notebooks")  # before its line in the registry
    monkeypatch.setattr(notebooks, "NOTEBOOKS", (*notebooks.NOTEBOOKS, TOY))
    monkeypatch.setattr(kit.runner, "notebooks_dir", lambda: root / "notebooks")
    monkeypatch.setattr(kit.course_site, "notebooks_dir", lambda: root / "notebooks")
    return root


def test_the_guides_registry_line_is_a_notebook_05():
    assert TOY == Notebook("05", "05_toy", "toy", "A toy paper", "jax", 4.5, ("classification",))


def test_a_new_notebook_05_is_in_kit_tests_plan(repo_with_05, capsys):
    plan = testplan.notebook_plan(repo_with_05)
    assert plan["jax"] == ["notebooks/01_pretrain_or_not.ipynb", "notebooks/05_toy.ipynb"]
    jobs = {label: env for label, _, env in testplan.test_jobs(repo_with_05, ["torch"], [], plan)}
    assert jobs["05_toy on jax"]["KERAS_BACKEND"] == "jax" and testplan.expected_minutes("05_toy on jax") == 4.5
    assert testplan.plan_with_overrides(repo_with_05, "05=tensorflow")["tensorflow"][-1] == "notebooks/05_toy.ipynb"
    from kit.cli import main

    with pytest.raises(SystemExit):
        main(["test", "--help"])
    assert "05=jax" in capsys.readouterr().out


def test_a_new_notebook_05_runs_with_kit_run_and_its_tasks_are_checked(repo_with_05, kit_run_reads, tmp_path, capsys):
    from kit.cli import main

    assert main(["run", "05", "--out", str(tmp_path / "o")]) == 0
    assert (tmp_path / "o").is_dir() and "05_toy.ipynb" in capsys.readouterr().out
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("a,b,label\n" + "".join(f"x{i},y{i},{i % 2}\n" for i in range(40)))
    args = ["run", "05", "--data", str(pairs), "--text-a", "a", "--text-b", "b", "--label", "label"]
    assert main(args + ["--out", str(tmp_path / "p")]) == 1
    assert "Notebook 05_toy needs classification data" in capsys.readouterr().err


def test_a_new_notebook_05_is_in_the_tests_lists_and_its_paper_has_sizes(repo_with_05, monkeypatch):
    assert notebook_paths(root=repo_with_05)[-1] == repo_with_05 / "notebooks" / "05_toy.ipynb"
    assert notebook_paths(papers_only=True, root=repo_with_05)[-1].name == "05_toy.ipynb"
    monkeypatch.setenv("KIT_SIZES", '{"toy": {"steps": 7}}')  # its section of KIT_SIZES, not a shared size
    assert config.paper_sizes("toy", {"rho": 1}, {s: {"steps": 1} for s in config.SCALES}) == {"rho": 1, "steps": 7}
    assert "toy" not in config.sizes()


def test_a_new_notebook_05_is_on_the_site(repo_with_05, tmp_path):
    staged = kit.course_site.stage(tmp_path / "site")
    assert staged[-1] == "05_toy" and (tmp_path / "site" / "05_toy.ipynb").exists()
    index = (tmp_path / "site" / "index.md").read_text()
    assert "04_serbertus\n05_toy\n```" in index and kit.course_site.NOTEBOOKS_HERE not in index
    box = json.loads((tmp_path / "site" / "05_toy.ipynb").read_text())["cells"][1]["source"]
    assert "./kit.sh run 05" in box
    assert kit.course_site.staged_path("notebooks/05_toy.ipynb") == "05_toy.ipynb"
