"""Tokenization outside the model graph (no TensorFlow): WordPiece, RoBERTa's byte-level BPE, a word vocabulary,
MLM masking."""

from .byte_bpe import ROBERTA_SPECIAL_TOKENS, ByteLevelBPETokenizer
from .compact_vocabulary import CompactVocabulary
from .masking import MLMMasker
from .vocab import WordVocab
from .wordpiece import BERT_SPECIAL_TOKENS, BertPreprocessor, WordPieceTokenizer, clean_text

__all__ = ["BERT_SPECIAL_TOKENS", "ByteLevelBPETokenizer", "ROBERTA_SPECIAL_TOKENS", "CompactVocabulary",
           "BertPreprocessor", "MLMMasker", "WordPieceTokenizer", "WordVocab", "clean_text"]
