"""Tokenization outside the model graph."""

from .wordpiece import BertPreprocessor, clean_text

__all__ = ["BertPreprocessor", "clean_text"]
