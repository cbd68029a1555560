"""Word tokens: lowercase, split on word characters, optional English stopwords.

Two rooms share it: the LSTMs' word vocabulary (:class:`kit.text.WordVocab`) and BM25's default tokenizer
(:mod:`kit.retrieval`). It approximates Elasticsearch's ``standard`` analyzer (Unicode word split +
lowercase, no stopwords), which is what TLM's authors indexed with.

>>> word_tokenize("The CAT's 2 naïve-looking hats!")
['the', 'cat', 's', '2', 'naïve', 'looking', 'hats']
>>> word_tokenize("The cat and the hat", stopwords=True)
['cat', 'hat']
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)


def english_stopwords() -> frozenset[str]:
    """scikit-learn's English stopword list (318 words).

    Returns:
        The stopwords, lowercased.
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def word_tokenize(text: str, stopwords: bool | frozenset = False) -> list[str]:
    """Lowercased word tokens of ``text``; drop English stopwords if asked.

    Args:
        text: the text (split on runs of Unicode word characters).
        stopwords: True drops :func:`english_stopwords`; a set drops its words instead.

    Returns:
        The tokens, in order.

    Raises:
        TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}: {text!r:.60}")
    tokens = _WORD.findall(text.lower())
    if stopwords:
        stop = english_stopwords() if stopwords is True else stopwords
        tokens = [t for t in tokens if t not in stop]
    return tokens
