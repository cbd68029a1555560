"""``kit site``: the course as a static web site, built from the executed notebooks as committed (never executed).

Sphinx with MyST-NB (``site_src/conf.py`` says why): a page per notebook of :mod:`kit.notebooks`, the ``docs/`` guides,
an API reference, full-text search, local MathJax. :func:`stage` copies the sources, adds a "run this yourself" box,
rewrites links (to a file the site lacks: its path in code, so no link breaks); :func:`build_site` runs Sphinx.

>>> rewrite_links("[the guide](../docs/own-data.md#csv), [code](../kit/cli.py)", "notebooks/01_pretrain_or_not.ipynb")
'[the guide](docs/own-data.md#csv), code (`kit/cli.py`)'
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path, PurePosixPath

from . import notebooks
from .runner import notebooks_dir

#: The box at the top of each notebook's page.
RUN_THIS = """:::{{admonition}} Run this yourself
:class: tip

```bash
./kit.sh lab                          # JupyterLab on the notebooks; open {name}.ipynb
./kit.sh run {number}                        # or headless: the executed notebook and its results in runs/
KERAS_BACKEND=jax ./kit.sh run {number}      # another backend: jax, tensorflow or torch
./kit.sh run {number} --scale medium         # a larger scale (a GPU); --data my.csv --text COL --label COL: your data
```
:::
"""
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
#: The line of ``site_src/index.md`` that :func:`stage` replaces with the notebooks' pages (:mod:`kit.notebooks`).
NOTEBOOKS_HERE = "<!-- the notebooks: kit/course_site.py lists kit/notebooks.py's here -->"


def staged_path(repo_path: str) -> str | None:
    """Where a repository file (path from the root) sits in the staged site, or None when the site does not hold it.

    Example:
        >>> staged_path("notebooks/02_tlm.ipynb"), staged_path("docs/data.md"), staged_path("kit/cli.py")
        ('02_tlm.ipynb', 'docs/data.md', None)
    """
    path = PurePosixPath(repo_path)
    if path.parent == PurePosixPath("notebooks") and path.suffix == ".ipynb" and _registered(path.stem):
        return path.name
    if path.parent == PurePosixPath("docs") and path.suffix == ".md":
        return str(path)
    return None


def rewrite_links(text: str, source: str) -> str:
    """Point markdown ``text``'s relative links (from ``source``) at staged pages; missing ones become paths."""
    here = PurePosixPath(staged_path(source) or source).parent

    def fix(match: re.Match) -> str:
        label, target = match.groups()
        if re.match(r"[a-z]+:|#", target):
            return match.group(0)
        file, _, anchor = target.partition("#")
        repo_file = os.path.normpath(str(PurePosixPath(source).parent / file)).replace(os.sep, "/")
        staged = staged_path(repo_file)
        if staged is None:
            return f"{label} (`{repo_file}`)"
        relative = os.path.relpath(staged, str(here)).replace(os.sep, "/")
        return f"[{label}]({relative}{'#' + anchor if anchor else ''})"

    return _LINK.sub(fix, text)


def stage(dest) -> list[str]:
    """Copy ``site_src/``, the notebooks and guides into ``dest`` (emptied first), links rewritten; notebooks' names.

    The index's notebook list is written from :data:`kit.notebooks.NOTEBOOKS` at :data:`NOTEBOOKS_HERE`. ValueError when
    the registry and ``notebooks/`` disagree, or ``site_src/index.md`` has lost :data:`NOTEBOOKS_HERE`.
    """
    root, dest = repo_root(), Path(dest)
    paths = notebooks.check_folder(root / "notebooks")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(root / "site_src", dest)
    index = (dest / "index.md").read_text(encoding="utf-8")
    if NOTEBOOKS_HERE not in index:
        raise ValueError(f"site_src/index.md has lost the line {NOTEBOOKS_HERE!r} (in its notebooks' toctree).")
    (dest / "index.md").write_text(index.replace(NOTEBOOKS_HERE, "\n".join(p.stem for p in paths)), encoding="utf-8")
    (dest / "docs").mkdir()
    for guide in sorted((root / "docs").glob("*.md")):
        text = rewrite_links(guide.read_text(encoding="utf-8"), f"docs/{guide.name}")
        (dest / "docs" / guide.name).write_text(text, encoding="utf-8")
    for path in paths:
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb["cells"]:
            if cell["cell_type"] == "markdown":
                cell["source"] = rewrite_links("".join(cell["source"]), f"notebooks/{path.name}")
        box = RUN_THIS.format(name=path.stem, number=path.name[:2])
        nb["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": box})
        (dest / path.name).write_text(json.dumps(nb), encoding="utf-8")
    return [p.stem for p in paths]


def build_site(out=None, staging=None, quiet: bool = True) -> str:
    """Build the site into ``out`` (default ``site/``) from a staged copy (default ``runs/site-src``); ``index.html``.

    Sphinx runs under ``KERAS_BACKEND=torch`` (autodoc imports the kit; no TensorFlow); ``quiet``: warnings and errors
    only. ModuleNotFoundError names what to install; RuntimeError holds Sphinx's last lines.
    """
    missing = [m for m in ("sphinx", "myst_nb", "furo", "sphinx-mathjax-offline", "sphinx_togglebutton") if _missing(m)]
    if missing:
        raise ModuleNotFoundError(f"{', '.join(missing)} not installed: pip install 'nlp-course-kit[site]'.")
    root = repo_root()
    out = root / "site" if out is None else Path(out)
    staging = root / "runs" / "site-src" if staging is None else Path(staging)
    stage(staging)
    built = staging / "_build" / "html"  # MyST-NB writes its images beside the build folder: keep that in staging
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-j", "1", *(["-q"] if quiet else []), staging, built]
    env = {**os.environ, "KERAS_BACKEND": "torch", "TF_CPP_MIN_LOG_LEVEL": "3"}
    done = subprocess.run([str(c) for c in command], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"Sphinx failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(built, out)
    return str(out / "index.html")


def repo_root() -> Path:
    """The repository's root: the folder that holds ``notebooks/``, ``docs/`` and ``site_src/``."""
    return notebooks_dir().parent


def _registered(stem: str) -> bool:
    """Whether ``stem`` is a notebook of :data:`kit.notebooks.NOTEBOOKS`."""
    return any(nb.stem == stem for nb in notebooks.NOTEBOOKS)


def _missing(module: str) -> bool:
    """Whether ``module`` is not installed."""
    import importlib.util  # noqa: PLC0415 - the site's packages are an optional extra

    return importlib.util.find_spec(module) is None
