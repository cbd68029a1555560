"""Beyond one machine: a search-engine backend and a sharded index, behind ``retrieve``.

**Elasticsearch / OpenSearch.** TLM's authors indexed their 16 GB and 160 GB
corpora in Elasticsearch (standard analyzer, BM25 with default k1=1.2, b=0.75).
:class:`SearchEngineRetriever` wraps an ``elasticsearch.Elasticsearch`` or
``opensearchpy.OpenSearch`` client so :func:`select_external` runs against it
unchanged::

    from elasticsearch import Elasticsearch
    es = Elasticsearch("http://localhost:9200")
    # index once: one document per passage, with its position as "doc_id"
    engine = SearchEngineRetriever(es, index="corpus")
    sel = select_external(task_texts, corpus, k=50, retriever=engine)

Its scores follow the kit's ``method="lucene"`` (up to Lucene's one-byte
length norms). Use ``search_type="dfs_query_then_fetch"`` (the default here)
so every shard scores with global term statistics.

**Shards on one or more machines.** :class:`ShardedBM25` splits a corpus into
shards that share the global statistics (document frequencies, N, avgdl), so
merging each shard's top-k gives exactly the single-index top-k; each shard can
be saved, loaded and queried separately.

>>> corpus = ["red apples", "green apples", "red cars", "fast red cars", "slow green boats"]
>>> sharded = ShardedBM25(corpus, n_shards=2, method="okapi")
>>> single = BM25Retriever(corpus, method="okapi")
>>> bool((sharded.retrieve(["red cars"], k=3)[0] == single.retrieve(["red cars"], k=3)[0]).all())
True
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .bm25 import BM25Retriever


class SearchEngineRetriever:
    """``retrieve(queries, k)`` through an Elasticsearch/OpenSearch client's ``msearch``.

    Args:
        client: an ``elasticsearch.Elasticsearch`` or ``opensearchpy.OpenSearch`` client.
        index: the index holding the corpus, one document per passage.
        text_field: the field a ``match`` query searches.
        id_field: the field holding each document's corpus position (an integer), so results line up with the
            in-memory corpus.
        search_type: ``"dfs_query_then_fetch"`` makes every shard score with global term statistics.
        batch_size: queries per ``msearch`` request.
    """

    def __init__(
        self,
        client,
        index: str,
        text_field: str = "text",
        id_field: str = "doc_id",
        search_type: str = "dfs_query_then_fetch",
        batch_size: int = 100,
    ):
        self.client, self.index = client, index
        self.text_field, self.id_field = text_field, id_field
        self.search_type, self.batch_size = search_type, batch_size

    def _body(self, query: str, k: int, exclude_ids):
        q = {"match": {self.text_field: query}}
        if exclude_ids:
            q = {"bool": {"must": q, "must_not": {"terms": {self.id_field: exclude_ids}}}}
        return {"query": q, "size": k, "_source": [self.id_field]}

    def retrieve(self, queries, k: int, exclude=None, n_jobs=None, progress=False):
        """Top-``k`` documents per query from the engine, best first; missing slots hold id -1 and score 0.

        Args:
            queries: query texts.
            k: how many documents per query.
            exclude: a boolean mask over the corpus or document ids, kept out of every result (a ``must_not``).
            n_jobs: unused (the engine runs the queries); kept so it stands in for :class:`BM25Retriever`.
            progress: unused, as ``n_jobs``.

        Returns:
            ``(ids, scores)``, int64 and float64 arrays of shape ``(n_queries, k)``.

        Raises:
            ValueError: ``k`` is below 1.
            RuntimeError: the engine answered a query with an error.
        """
        queries = list(queries)
        if k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}.")
        exclude_ids = []
        if exclude is not None:
            exclude = np.asarray(exclude)
            exclude_ids = np.flatnonzero(exclude).tolist() if exclude.dtype == bool else exclude.tolist()
        ids = np.full((len(queries), k), -1, dtype="int64")
        scores = np.zeros((len(queries), k), dtype="float64")
        for start in range(0, len(queries), self.batch_size):
            searches = []
            for q in queries[start : start + self.batch_size]:
                searches += [{"index": self.index, "search_type": self.search_type}, self._body(q, k, exclude_ids)]
            resp = self.client.msearch(searches=searches)
            for j, r in enumerate(resp["responses"]):
                if "error" in r:
                    raise RuntimeError(f"search engine error for query {start + j}: {r['error']}")
                hits = r["hits"]["hits"][:k]
                ids[start + j, : len(hits)] = [int(h["_source"][self.id_field]) for h in hits]
                scores[start + j, : len(hits)] = [float(h["_score"]) for h in hits]
        return ids, scores


class ShardedBM25:
    """A corpus split into ``n_shards`` BM25 indexes that score with global statistics.

    The shards share the document frequencies, N and avgdl of the whole corpus, so merging each shard's top-k gives
    exactly the single-index top-k.

    Args:
        corpus: the documents, texts or lists of tokens; shard ``i`` holds a contiguous slice of them.
        n_shards: how many shards, between 1 and the corpus size.
        **kwargs: :class:`BM25Retriever`'s arguments (``method``, ``params``, ``tokenizer``, ...), for every shard.

    Raises:
        ValueError: ``n_shards`` is out of range.
    """

    def __init__(self, corpus, n_shards: int = 2, **kwargs):
        if n_shards < 1 or n_shards > len(corpus):
            raise ValueError(f"n_shards must be between 1 and the corpus size ({len(corpus)}), got {n_shards}.")
        probe = BM25Retriever(corpus[:1], **{k: v for k, v in kwargs.items() if k != "progress"}, progress=False)
        df, lengths = Counter(), []
        for doc in corpus:
            toks = probe.tokenize(doc)
            lengths.append(len(toks))
            df.update(set(toks))
        stats = {"df": df, "n_docs": len(corpus), "avgdl": float(np.mean(lengths)) if lengths else 1.0}
        bounds = np.linspace(0, len(corpus), n_shards + 1).astype(int)
        self.offsets = bounds[:-1]
        self.shards = [BM25Retriever(corpus[a:b], _stats=stats, **kwargs) for a, b in zip(bounds[:-1], bounds[1:])]
        self.n_docs = len(corpus)

    def retrieve(self, queries, k: int, exclude=None, n_jobs=None, progress=False):
        """Top-``k`` documents per query over all shards, as :meth:`BM25Retriever.retrieve` on the whole corpus.

        Args:
            queries: texts or lists of tokens.
            k: how many documents per query, at most the corpus size.
            exclude: a boolean mask over the corpus or document ids, kept out of every result.
            n_jobs: the threads each shard's queries run on.
            progress: unused (no bar); kept for the same signature as :class:`BM25Retriever`.

        Returns:
            ``(ids, scores)``, int64 and float64 arrays of shape ``(n_queries, k)``; ids are corpus positions.

        Raises:
            ValueError: ``k`` exceeds the corpus.
        """
        queries = list(queries)
        if k > self.n_docs:
            raise ValueError(f"k={k} is larger than the corpus ({self.n_docs} documents).")
        mask = None
        if exclude is not None:
            exclude = np.asarray(exclude)
            mask = exclude if exclude.dtype == bool else np.isin(np.arange(self.n_docs), exclude)
        all_ids, all_scores = [], []
        for off, shard in zip(self.offsets, self.shards):
            kk = min(k, shard.n_docs)
            sub = None if mask is None else mask[off : off + shard.n_docs]
            ids, sc = shard.retrieve(queries, kk, exclude=sub, n_jobs=n_jobs)
            all_ids.append(np.where(ids >= 0, ids + off, -1))
            all_scores.append(np.where(ids >= 0, sc, -np.inf))
        ids, sc = np.concatenate(all_ids, axis=1), np.concatenate(all_scores, axis=1)
        order = np.lexsort((np.where(ids >= 0, ids, np.iinfo("int64").max), -sc), axis=1)[:, :k]
        ids, sc = np.take_along_axis(ids, order, 1), np.take_along_axis(sc, order, 1)
        return ids, np.where(ids >= 0, sc, 0.0)
