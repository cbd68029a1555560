"""Tokenization outside the model graph (no TensorFlow): WordPiece, byte-level BPE, words, MLM masks, tag alignment."""

from .alignment import IGNORE, AlignedTags, align_labels, word_pieces, word_predictions
from .byte_bpe import ROBERTA_SPECIAL_TOKENS, ByteLevelBPETokenizer
from .compact_vocabulary import CompactVocabulary
from .masking import MLMMasker
from .vocab import WordVocab
from .wordpiece import BERT_SPECIAL_TOKENS, BertPreprocessor, WordPieceTokenizer, clean_text
from .words import english_stopwords, word_tokenize

__all__ = [
    "IGNORE",
    "AlignedTags",
    "align_labels",
    "word_pieces",
    "word_predictions",
    "BERT_SPECIAL_TOKENS",
    "ByteLevelBPETokenizer",
    "ROBERTA_SPECIAL_TOKENS",
    "CompactVocabulary",
    "BertPreprocessor",
    "MLMMasker",
    "WordPieceTokenizer",
    "WordVocab",
    "clean_text",
    "english_stopwords",
    "word_tokenize",
]
