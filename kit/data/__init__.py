"""Data sets: the registry of real offline text, the papers' formats, and your own data.

Your own data: CSV/TSV, JSON Lines, Parquet, a Hugging Face dataset (in memory or saved to disk), CoNLL, CoNLL-U.

>>> import kit.data
>>> sorted(kit.data.list_datasets())[:3]
['ag_news', 'amazon_electronics', 'amazon_snippets']
"""

from .conll import from_conll
from .conllu import from_conllu
from .csv_reader import from_csv
from .dataset import Split, TextDataset
from .hf_reader import from_hf, from_hf_disk
from .jsonl_reader import from_jsonl
from .own import OwnData, data_kind, notebook_dataset
from .parquet_reader import from_parquet
from .registry import REGISTRY, fetch, general_corpus, list_datasets, load, spec

__all__ = [
    "Split",
    "TextDataset",
    "OwnData",
    "from_csv",
    "from_conll",
    "from_conllu",
    "from_jsonl",
    "from_parquet",
    "from_hf",
    "from_hf_disk",
    "data_kind",
    "notebook_dataset",
    "REGISTRY",
    "fetch",
    "general_corpus",
    "list_datasets",
    "load",
    "spec",
]
