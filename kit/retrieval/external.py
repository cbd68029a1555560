"""TLM's data step: task texts as BM25 queries, the union of top-K results as external data.

>>> corpus = ["my cat purrs", "the cat purrs softly", "stock prices fell", "a dog barks loudly"]
>>> sel = select_external(["my cat purrs", "that dog barks"], corpus, k=1)
>>> sel.doc_ids.tolist(), sel.query_id.tolist(), sel.excluded   # the task text itself is not retrieved
([1, 3], [0, 1], 1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bm25 import BM25Retriever
from .keywords import rake_keywords


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass
class ExternalSelection:
    """The external set: each document once, with its best rank, the query that found it, and its score.

    ``doc_ids`` ascending; ``best_rank`` over all queries (0: a top result); ``query_id``: the task text that gave it;
    ``score``: BM25's there (the higher on a tie of ranks); ``excluded``: passages kept out (task texts,
    ``exclude_texts``); ``k``: documents per query.
    """

    doc_ids: np.ndarray
    best_rank: np.ndarray
    query_id: np.ndarray
    score: np.ndarray
    excluded: int = 0
    n_queries: int = 0
    k: int = 0

    def __len__(self):
        return len(self.doc_ids)

    def texts(self, corpus) -> list[str]:
        """The selected documents' texts from ``corpus``, in ``doc_ids`` order."""
        return [corpus[i] for i in self.doc_ids]

    def to_frame(self, corpus=None, task_texts=None):
        """A row per document: ``doc_id``, ``best_rank``, ``query_id``, ``score`` (+``text``, ``query``)."""
        import pandas as pd

        df = pd.DataFrame(
            {"doc_id": self.doc_ids, "best_rank": self.best_rank, "query_id": self.query_id, "score": self.score}
        )
        if corpus is not None:
            df["text"] = self.texts(corpus)
        if task_texts is not None:
            df["query"] = [task_texts[i] for i in self.query_id]
        return df


def task_text_mask(corpus, texts) -> np.ndarray:
    """Bool mask ``(len(corpus),)``: True where a passage is one of ``texts`` (case and spacing ignored).

    Keeps a task's own texts (train, dev and test) out of what is retrieved.
    """
    keep_out = {_norm(t) for t in texts}
    return np.asarray([_norm(d) in keep_out for d in corpus], dtype=bool)


def make_queries(task_texts, long_text_words: int = 64, n_keywords: int = 10) -> list[str]:
    """One query per text: the text, or its ``n_keywords`` RAKE keywords when over ``long_text_words`` words."""
    return [" ".join(rake_keywords(t, n_keywords)) if len(t.split()) > long_text_words else t for t in task_texts]


def select_external(
    task_texts,
    corpus,
    k: int,
    retriever: BM25Retriever | None = None,
    queries=None,
    n_jobs: int | None = None,
    progress: bool = False,
    exclude_texts=(),
) -> ExternalSelection:
    """Top-``k`` corpus documents for every task text; their union, each document once, task texts themselves excluded.

    ``retriever``: a :class:`BM25Retriever` over ``corpus`` or anything with ``retrieve(queries, k, exclude=...)``
    (default: a new ``"lucene"`` index; build one for another method). ``queries``: one per task text (default
    :func:`make_queries`: RAKE keywords past 64 words). ``exclude_texts``: kept out too (e.g. dev and test texts).
    ValueError: no task texts, or not one query each.
    """
    task_texts = list(task_texts)
    if not task_texts:
        raise ValueError("No task texts: select_external needs at least one query.")
    queries = make_queries(task_texts) if queries is None else list(queries)
    if len(queries) != len(task_texts):
        raise ValueError(f"{len(queries)} queries for {len(task_texts)} task texts: give one query per task text.")
    if retriever is None:
        retriever = BM25Retriever(corpus, method="lucene", progress=progress)
    excluded = task_text_mask(corpus, list(task_texts) + list(exclude_texts))
    ids, scores = retriever.retrieve(queries, k, exclude=excluded, n_jobs=n_jobs, progress=progress)
    ranks = np.broadcast_to(np.arange(ids.shape[1]), ids.shape)
    qids = np.broadcast_to(np.arange(ids.shape[0])[:, None], ids.shape)
    valid = ids >= 0
    flat_ids, flat_rank, flat_q, flat_s = ids[valid], ranks[valid], qids[valid], scores[valid]
    order = np.lexsort((-flat_s, flat_rank, flat_ids))  # per document: best rank, then higher score
    flat_ids, flat_rank, flat_q, flat_s = flat_ids[order], flat_rank[order], flat_q[order], flat_s[order]
    first = np.r_[True, flat_ids[1:] != flat_ids[:-1]]
    return ExternalSelection(
        flat_ids[first],
        flat_rank[first],
        flat_q[first],
        flat_s[first],
        excluded=int(excluded.sum()),
        n_queries=len(task_texts),
        k=k,
    )


def random_retrieval(n: int, k: int, seed: int = 0, exclude=None) -> np.ndarray:
    """``k`` distinct sorted ids drawn uniformly from ``range(n)`` minus ``exclude``: TLM's equal-size random baseline.

    ValueError: fewer than ``k`` documents left to draw.
    """
    pool = np.arange(n)
    if exclude is not None:
        mask = np.ones(n, dtype=bool)
        mask[np.asarray(exclude, dtype="int64")] = False
        pool = pool[mask]
    if k > len(pool):
        raise ValueError(f"k={k} is larger than the {len(pool)} documents available for random retrieval.")
    return np.sort(np.random.default_rng(seed).choice(pool, size=k, replace=False))
