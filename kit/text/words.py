"""Word tokens: lowercase, split on word characters, optional English stopwords.

Used by :class:`kit.text.WordVocab` and BM25 (:mod:`kit.retrieval`). It approximates Elasticsearch's ``standard``
analyzer (Unicode word split + lowercase, no stopwords), which TLM's authors indexed with.

>>> word_tokenize("The CAT's 2 naïve-looking hats!")
['the', 'cat', 's', '2', 'naïve', 'looking', 'hats']
>>> word_tokenize("The cat and the hat", stopwords=True)
['cat', 'hat']
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)


def english_stopwords() -> frozenset[str]:
    """scikit-learn's English stopword list (318 words, lowercased)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def word_tokenize(text: str, stopwords: bool | frozenset = False) -> list[str]:
    """Lowercased tokens of ``text`` (runs of Unicode word characters), English stopwords dropped if asked.

    ``stopwords``: True drops :func:`english_stopwords`; a set drops its words instead. A non-string ``text`` is refused
    (TypeError).
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}: {text!r:.60}")
    tokens = _WORD.findall(text.lower())
    if stopwords:
        stop = english_stopwords() if stopwords is True else stopwords
        tokens = [t for t in tokens if t not in stop]
    return tokens
