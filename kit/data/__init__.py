"""Data sets: the registry of real offline text, the papers' formats, and your own data.

:func:`read` reads your CSV/TSV, JSON Lines, Parquet, Hugging Face dataset (in memory or saved), CoNLL or CoNLL-U,
with :class:`Columns`, :class:`Splits` and a format's settings (:class:`CsvFormat`, :class:`ConlluFormat` ...).

>>> import kit.data
>>> sorted(kit.data.list_datasets())[:3]
['ag_news', 'amazon_electronics', 'amazon_snippets']
"""

from .dataset import Split, TextDataset
from .own import OwnData, notebook_dataset
from .read import Columns, ConllFormat, ConlluFormat, CsvFormat, JsonlFormat, Splits, data_kind, read
from .registry import REGISTRY, fetch, general_corpus, list_datasets, load, spec

__all__ = [
    "Split",
    "TextDataset",
    "read",
    "Columns",
    "Splits",
    "CsvFormat",
    "JsonlFormat",
    "ConllFormat",
    "ConlluFormat",
    "OwnData",
    "data_kind",
    "notebook_dataset",
    "REGISTRY",
    "fetch",
    "general_corpus",
    "list_datasets",
    "load",
    "spec",
]
