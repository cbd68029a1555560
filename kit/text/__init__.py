"""Tokenization outside the model graph."""

from .compact import CompactVocabulary
from .masking import MLMMasker
from .vocab import WordVocab
from .wordpiece import BertPreprocessor, clean_text

__all__ = ["CompactVocabulary", "BertPreprocessor", "MLMMasker", "WordVocab", "clean_text"]
