"""Data sets: the registry of real offline text, the papers' formats, and your own CSV or CoNLL file.

>>> import kit.data
>>> sorted(kit.data.list_datasets())[:3]
['ag_news', 'amazon_electronics', 'amazon_snippets']
"""

from .conll import from_conll
from .csv_reader import from_csv
from .dataset import Split, TextDataset
from .own import OwnData, notebook_dataset
from .registry import REGISTRY, fetch, general_corpus, list_datasets, load, spec

__all__ = [
    "Split",
    "TextDataset",
    "OwnData",
    "from_csv",
    "from_conll",
    "notebook_dataset",
    "REGISTRY",
    "fetch",
    "general_corpus",
    "list_datasets",
    "load",
    "spec",
]
