"""docs/glossary.md: every term the notebooks use before they explain it, on the site, each with the kit's name for it.

A glossary entry is a ``###`` heading and a few sentences; the kit functions it names (```kit.analysis.holm```) must
exist, so an entry cannot outlive a rename. Read without importing the kit (no Keras): each package's ``__all__`` or
each module's top-level names, parsed.
"""

import ast
import re

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.one_backend

GLOSSARY = ROOT / "docs" / "glossary.md"
#: Terms a learner meets in the notebooks before (or without) their explanation: each needs an entry (its heading).
TERMS = (
    "Holm", "Welch", "Degrees of freedom", "Two-level bootstrap", "Standard error", "p-value", "Confidence interval",
    "Verdict table", "Smallest detectable difference", "Too few seeds", "Budget-matched", "Seed", "Constant guess",
    "Macro-F1", "Entity F1", "Token accuracy", "Pearson", "Masked-token", "FLOPs", "Attention head", "WordPiece",
    "Pooling", "Fine-tuning", "MLM", "Further", "LSTM-n-k", "BM25", "RAKE", "Top-K", "Stage 1", "rho1", "rho2",
    "Unigram prior", "stack-and-finetune", "Rich heads", "Layer-wise", "SMART", "Multi-BERT", "CerBERTus",
    "triple-BERT", "Multitask stream", "Dev-gated ensemble", "Smoke", "medium", "full scale", "Backend",
)  # fmt: skip
#: A kit name in the glossary's code spans: ``kit.<room>.<name>`` (what follows, a call or an attribute, is not read).
KIT_NAME = re.compile(r"`kit\.(\w+)\.(\w+)")


def headings(text: str) -> list[str]:
    """The glossary's entries: its ``###`` headings."""
    return [line[4:].strip() for line in text.splitlines() if line.startswith("### ")]


def exported_names(room: str) -> set[str]:
    """The public names of ``kit.<room>``: its package's ``__all__``, or a module's top-level definitions."""
    package, module = ROOT / "kit" / room / "__init__.py", ROOT / "kit" / f"{room}.py"
    path = package if package.is_file() else module
    if not path.is_file():
        return set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if hasattr(t, "id")}
    if "__all__" in assigned:  # its strings, and the keys or items of a name it unpacks (``*_WITH_KERAS``)
        parts = [assigned[e.value.id] if isinstance(e, ast.Starred) else e for e in assigned["__all__"].elts]
        keys = [
            k for part in parts for k in (part.keys if isinstance(part, ast.Dict) else getattr(part, "elts", [part]))
        ]
        return {ast.literal_eval(k) for k in keys}
    return set(assigned) | {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def unknown_kit_names(text: str) -> list[str]:
    """The ``kit.<room>.<name>`` the text names that the kit does not define."""
    return sorted({f"kit.{r}.{n}" for r, n in KIT_NAME.findall(text) if n not in exported_names(r)})


def test_every_term_has_an_entry():
    entries = " | ".join(headings(GLOSSARY.read_text(encoding="utf-8"))).lower()
    missing = [t for t in TERMS if t.lower() not in entries]
    assert not missing, f"docs/glossary.md has no entry (### heading) for {missing}"


def test_every_entry_names_what_computes_it_and_every_name_exists():
    text = GLOSSARY.read_text(encoding="utf-8")
    entries = re.split(r"\n### ", text)[1:]
    bare = [e.splitlines()[0] for e in entries if "`kit." not in e and "KIT_" not in e]
    assert not bare, f"glossary entries that name no kit function: {bare}"
    assert not unknown_kit_names(text), f"docs/glossary.md names what the kit lacks: {unknown_kit_names(text)}"


def test_an_unknown_kit_name_is_found():
    assert unknown_kit_names("`kit.analysis.holm`, `kit.train.SMART(model)`, `kit.config.set_seed(0)`") == []
    assert unknown_kit_names("`kit.analysis.holmes` and `kit.nowhere.x`") == ["kit.analysis.holmes", "kit.nowhere.x"]


def test_the_glossary_is_on_the_site():
    index = (ROOT / "site_src" / "index.md").read_text(encoding="utf-8")
    assert "\ndocs/glossary\n" in index, "site_src/index.md's Guides toctree does not list docs/glossary"
