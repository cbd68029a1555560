"""Tokenization outside the model graph."""

from .vocab import WordVocab
from .wordpiece import BertPreprocessor, clean_text

__all__ = ["BertPreprocessor", "WordVocab", "clean_text"]
