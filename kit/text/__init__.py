"""Tokenization outside the model graph (no TensorFlow): WordPiece, a word vocabulary, MLM masking."""

from .compact_vocabulary import CompactVocabulary
from .masking import MLMMasker
from .vocab import WordVocab
from .wordpiece import BERT_SPECIAL_TOKENS, BertPreprocessor, WordPieceTokenizer, clean_text

__all__ = ["BERT_SPECIAL_TOKENS", "CompactVocabulary", "BertPreprocessor", "MLMMasker", "WordPieceTokenizer", "WordVocab",
           "clean_text"]
