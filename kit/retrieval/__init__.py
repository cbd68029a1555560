"""Retrieval for TLM: BM25 (rank-bm25 compatible, fast), RAKE keywords, the external-data step.

>>> from kit.retrieval import BM25Retriever
>>> BM25Retriever(["a b", "b c"], method="okapi").get_scores(["b"]).shape
(2,)
"""

from ..text.words import english_stopwords, word_tokenize
from .bm25 import METHODS, BM25Params, BM25Retriever
from .external import ExternalSelection, make_queries, random_retrieval, select_external, task_text_mask
from .keywords import rake_keywords

__all__ = [
    "METHODS",
    "BM25Params",
    "BM25Retriever",
    "ExternalSelection",
    "make_queries",
    "random_retrieval",
    "select_external",
    "task_text_mask",
    "rake_keywords",
    "english_stopwords",
    "word_tokenize",
]
