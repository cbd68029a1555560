"""RAKE keywords (Rose et al., 2010): short BM25 queries for long texts, as TLM does.

Candidates are runs of words between stopwords and punctuation; a word scores degree/frequency, a phrase its words' sum.

>>> rake_keywords("Compatibility of systems of linear constraints over the set of natural numbers. "
...               "Criteria of compatibility of a system of linear Diophantine equations are considered.", 3)
['linear diophantine equations', 'linear constraints', 'natural numbers']
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from ..text.words import english_stopwords

_SPLIT = re.compile(r"[^\w\s'-]+|\s-\s|\s+'|'\s+")


def rake_keywords(text: str, n: int = 10, max_words: int = 4) -> list[str]:
    """The ``n`` (>= 1) best RAKE phrases of ``text``, lowercased, best first (ties: the phrase seen first).

    Stopwords, digits and punctuation split phrases; ``max_words``: the longest kept. TypeError: not a string;
    ValueError: ``n`` below 1.
    """
    if not isinstance(text, str):
        raise TypeError(f"rake_keywords needs a string, got {type(text).__name__}.")
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}.")
    stop = english_stopwords()
    phrases = []
    for fragment in _SPLIT.split(text.lower()):
        current = []
        for word in re.findall(r"\w+", fragment):
            if word in stop or word.isdigit():
                if current:
                    phrases.append(tuple(current))
                current = []
            else:
                current.append(word)
        if current:
            phrases.append(tuple(current))
    phrases = [p for p in phrases if len(p) <= max_words]
    freq, degree = Counter(), defaultdict(int)
    for p in phrases:
        for w in p:
            freq[w] += 1
            degree[w] += len(p)
    score = {p: sum(degree[w] / freq[w] for w in p) for p in set(phrases)}
    first = {}
    for i, p in enumerate(phrases):
        first.setdefault(p, i)
    ranked = sorted(score, key=lambda p: (-score[p], first[p]))
    return [" ".join(p) for p in ranked[:n]]
