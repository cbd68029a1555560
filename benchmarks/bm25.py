"""BM25 speed: the kit's BM25Retriever vs rank-bm25 (and bm25s if installed), same corpus, one run.

    python benchmarks/bm25.py                      # 100k passages, 1,000 queries
    python benchmarks/bm25.py --docs 1000000 --rank-bm25-queries 0   # the 1M-passage indexing test

The corpus is real text: the kit's general corpus (Wikipedia sample, State of
the Union, Moby Dick, Brown) cut into passages of ``--words`` words, recycled
with a shuffle when more passages are asked for than it holds. Queries are
Rotten Tomatoes sentences (TLM uses task texts as queries). Prints queries/s
for each and the ratio; checks that the kit's top-k equals rank-bm25's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time

import numpy as np


def build_corpus(n_docs: int, words: int, seed: int = 0) -> list[str]:
    import kit.data

    tokens = " ".join(kit.data.load("general_corpus").splits["all"].texts).split()
    passages = [" ".join(tokens[i : i + words]) for i in range(0, len(tokens) - words, words)]
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_docs:  # recycle real passages, shuffled, each pass with a different sentence offset
        order = rng.permutation(len(passages))
        out.extend(passages[i] for i in order[: n_docs - len(out)])
    return out


def rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--words", type=int, default=30)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--rank-bm25-queries", type=int, default=20, help="rank-bm25 runs ~1 query/s at 100k docs")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args()

    import kit.data
    from kit.retrieval import BM25Retriever, word_tokenize

    t = time.perf_counter()
    corpus = build_corpus(args.docs, args.words)
    queries = kit.data.load("rt_snippets").train.texts[: args.queries]
    print(
        f"corpus: {len(corpus):,} passages of {args.words} words ({time.perf_counter() - t:.1f}s to build); "
        f"{len(queries):,} queries; k={args.k}; {os.cpu_count()} cores; {platform.processor() or platform.machine()}"
    )
    res = {"docs": len(corpus), "words": args.words, "queries": len(queries), "k": args.k, "cores": os.cpu_count()}

    t = time.perf_counter()
    kit_bm25 = BM25Retriever(corpus, method="okapi", progress=True)
    res["kit_index_s"] = time.perf_counter() - t
    print(f"kit index: {res['kit_index_s']:.1f}s, peak RSS {rss_gib():.2f} GiB, {kit_bm25}")

    q_tokens = [word_tokenize(q) for q in queries]
    for jobs in (1, os.cpu_count()):
        t = time.perf_counter()
        ids, scores = kit_bm25.retrieve(q_tokens, k=args.k, n_jobs=jobs)
        dt = time.perf_counter() - t
        res[f"kit_qps_{jobs}_threads"] = len(queries) / dt
        print(f"kit retrieve: {len(queries) / dt:,.0f} queries/s on {jobs} thread(s)")
    kit_qps = max(v for k, v in res.items() if k.startswith("kit_qps"))

    n_ref = min(args.rank_bm25_queries, len(queries))
    if n_ref:
        from rank_bm25 import BM25Okapi

        t = time.perf_counter()
        tokenized = [word_tokenize(d) for d in corpus]
        ref = BM25Okapi(tokenized)
        res["rank_bm25_index_s"] = time.perf_counter() - t
        t = time.perf_counter()
        ref_scores = [ref.get_scores(q) for q in q_tokens[:n_ref]]
        dt = time.perf_counter() - t
        res["rank_bm25_qps"] = n_ref / dt
        same = 0
        for i, full in enumerate(ref_scores):
            top = np.sort(full)[::-1][: args.k]
            same += bool(np.allclose(top, scores[i], rtol=1e-5) and np.allclose(full[ids[i]], top, rtol=1e-5))
        res["same_top_k"] = f"{same}/{n_ref}"
        res["speedup_vs_rank_bm25"] = kit_qps / res["rank_bm25_qps"]
        print(
            f"rank-bm25: index {res['rank_bm25_index_s']:.1f}s, {res['rank_bm25_qps']:.2f} queries/s "
            f"({n_ref} queries); same top-{args.k} as the kit: {same}/{n_ref}"
        )
        print(f"==> kit / rank-bm25 queries/s ratio: {res['speedup_vs_rank_bm25']:,.0f}x")

    try:
        import bm25s

        t = time.perf_counter()
        retriever = bm25s.BM25(method="atire", k1=1.5, b=0.75)
        same_tokens = dict(stopwords=None, show_progress=False, token_pattern=r"(?u)\w+")  # the kit's tokenizer
        retriever.index(bm25s.tokenize(corpus, **same_tokens), show_progress=False)
        res["bm25s_index_s"] = time.perf_counter() - t
        qt = bm25s.tokenize(queries, **same_tokens)
        t = time.perf_counter()
        retriever.retrieve(qt, k=args.k, show_progress=False, n_threads=os.cpu_count())
        res["bm25s_qps"] = len(queries) / (time.perf_counter() - t)
        res["kit_vs_bm25s"] = kit_qps / res["bm25s_qps"]
        print(
            f"bm25s: index {res['bm25s_index_s']:.1f}s, {res['bm25s_qps']:,.0f} queries/s; "
            f"kit/bm25s ratio {res['kit_vs_bm25s']:.2f}x"
        )
    except ImportError:
        print("bm25s not installed: skipped (pip install bm25s to compare)")
    res["peak_rss_gib"] = rss_gib()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
