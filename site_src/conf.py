"""Sphinx configuration of the course's web site (`./kit.sh site` builds it into site/; kit/course_site.py stages it).

Sphinx with MyST-NB: the notebooks are rendered as committed, outputs and figures included, never executed here
(`nb_execution_mode = "off"`); the API reference comes from the kit's Google-style docstrings (autodoc + napoleon);
MathJax and the search index are served from the site itself (sphinx-mathjax-offline, Sphinx's own search), so the
site works with no network.
"""

project = "NLP course kit"
author = "the NLP course kit team"
extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",
    "sphinx_togglebutton",
]
nb_execution_mode = "off"  # the executed notebooks as committed: the site never re-runs them
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "html_image"]
myst_heading_anchors = 3
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "furo"
html_title = "NLP course kit"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"  # a page without one logs a 404 in the browser's console
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_typehints = "description"
autodoc_mock_imports = []
napoleon_google_docstring = True
napoleon_numpy_docstring = False
suppress_warnings = ["myst.header", "myst.xref_missing", "mystnb.unknown_mime_type", "docutils"]
nitpicky = False
