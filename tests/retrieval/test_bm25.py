"""BM25: rank-bm25 parity (edge cases included), retrieval, persistence, TLM's data step, errors."""

import numpy as np
import pytest
from rank_bm25 import BM25L, BM25Okapi, BM25Plus

from kit.retrieval import (
    BM25Params,
    BM25Retriever,
    make_queries,
    rake_keywords,
    random_retrieval,
    select_external,
    word_tokenize,
)

# no Keras here: `kit test` runs this module under its first backend only
pytestmark = pytest.mark.one_backend


def _corpora():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    zipf = [[words[min(int(rng.zipf(1.3)) - 1, 59)] for _ in range(rng.integers(1, 30))] for _ in range(300)]
    half = [["common", f"u{i}"] if i % 2 == 0 else [f"u{i}"] for i in range(10)]  # "common" in exactly half
    dups = [["same", "doc", "twice"], ["same", "doc", "twice"], ["other", "doc"], ["doc"]]
    return {"zipf": zipf, "half": half, "duplicates": dups}


@pytest.fixture(scope="module")
def real_corpus():
    import kit.data

    texts = kit.data.load("bbc_news").train.texts[:400]
    return [word_tokenize(t) for t in texts]


QUERIES = {
    "zipf": [["w0"], ["w1", "w2", "w2"], ["w59", "w0", "zzz"], [], ["unknown"], ["w5", "w7", "w11", "w3"]],
    "half": [["common"], ["common", "u3"], ["u4"], []],
    "duplicates": [["same"], ["doc"], ["twice", "other"], ["nothing"]],
}


@pytest.mark.parametrize("name", ["zipf", "half", "duplicates"])
@pytest.mark.parametrize("method,ref_cls", [("okapi", BM25Okapi), ("bm25l", BM25L), ("bm25+", BM25Plus)])
def test_parity_with_rank_bm25(name, method, ref_cls):
    corpus = _corpora()[name]
    ref = ref_cls(corpus)
    ours = BM25Retriever(corpus, method=method)
    for q in QUERIES[name]:
        np.testing.assert_allclose(
            ours.get_scores(q), ref.get_scores(q), rtol=1e-5, atol=1e-6, err_msg=f"{method} {name} query={q}"
        )


def test_parity_real_text_and_parameters(real_corpus):
    for k1, b, eps in ((1.5, 0.75, 0.25), (1.2, 0.3, 0.0), (2.0, 1.0, 0.5)):
        ref = BM25Okapi(real_corpus, k1=k1, b=b, epsilon=eps)
        ours = BM25Retriever(real_corpus, method="okapi", params=BM25Params(k1=k1, b=b, epsilon=eps))
        for q in (["the", "economy", "growth"], ["film", "award", "the", "the"], ["election", "labour", "blair"]):
            assert np.allclose(ours.get_scores(q), ref.get_scores(q), rtol=1e-5, atol=1e-6)


def test_half_the_documents_term_has_zero_idf():
    corpus = _corpora()["half"]
    r = BM25Retriever(corpus, method="okapi")
    assert np.all(r.get_scores(["common"]) == 0)  # idf = log(5.5/5.5) = 0: not floored (not negative)


def test_empty_and_unknown_queries_score_zero():
    r = BM25Retriever(_corpora()["zipf"], method="okapi")
    assert not r.get_scores([]).any() and not r.get_scores(["not-a-term"]).any()
    ids, scores = r.retrieve([[], "not-a-term"], k=3)
    assert (ids == -1).all() and (scores == 0).all()


def test_retrieve_matches_full_ranking(real_corpus):
    r = BM25Retriever(real_corpus, method="okapi")
    queries = [["economy", "growth"], ["film", "award"], ["mobile", "phone", "technology"]]
    ids, scores = r.retrieve(queries, k=10, n_jobs=2)
    assert ids.shape == (3, 10)
    for q, row, srow in zip(queries, ids, scores):
        full = r.get_scores(q)
        best = np.sort(full)[::-1][:10]
        np.testing.assert_allclose(srow, best, rtol=1e-6)
        np.testing.assert_allclose(full[row], srow, rtol=1e-6)
        assert np.all(np.diff(srow) <= 0)


def test_lucene_formula():
    corpus = ["a b c", "a a d", "e"]
    r = BM25Retriever(corpus, method="lucene")
    n, df, k1, b = 3, 2, 1.2, 0.75
    idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
    avgdl = 7 / 3
    expect0 = idf * 1 / (1 + k1 * (1 - b + b * 3 / avgdl))
    expect1 = idf * 2 / (2 + k1 * (1 - b + b * 3 / avgdl))
    np.testing.assert_allclose(r.get_scores("a")[:2], [expect0, expect1], rtol=1e-6)
    assert r.k1 == 1.2


def test_text_and_tokens_and_stopwords():
    r = BM25Retriever(["The cat sat on the mat", "A dog"], method="okapi")
    np.testing.assert_allclose(r.get_scores("CAT"), r.get_scores(["cat"]))
    rs = BM25Retriever(["The cat sat on the mat", "A dog"], stopwords=True)
    assert "the" not in rs.vocab and "cat" in rs.vocab


def test_exclude_keeps_documents_out():
    r = BM25Retriever(["cat", "cat cat", "dog"], method="okapi")
    ids, _ = r.retrieve(["cat"], k=2, exclude=[1])
    assert ids.tolist() == [[0, -1]]
    mask = np.array([True, False, False])
    assert r.retrieve(["cat"], k=1, exclude=mask)[0].tolist() == [[1]]


def test_save_load_roundtrip(tmp_path, real_corpus):
    r = BM25Retriever(real_corpus, method="lucene")
    r.save(tmp_path / "idx")
    for mmap in (True, False):
        back = BM25Retriever.load(tmp_path / "idx", mmap=mmap)
        q = [["economy", "growth"], ["film"]]
        a, b = r.retrieve(q, k=5), back.retrieve(q, k=5)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_allclose(a[1], b[1])


def test_errors(tmp_path):
    r = BM25Retriever(["a b", "b c"])
    with pytest.raises(ValueError, match=r"k=5 is larger than the corpus \(2 documents\)"):
        r.retrieve(["a"], k=5)
    with pytest.raises(ValueError, match="positive integer"):
        r.retrieve(["a"], k=0)
    with pytest.raises(ValueError, match="corpus is empty"):
        BM25Retriever([])
    with pytest.raises(TypeError, match="document 1: .*int"):
        BM25Retriever(["fine", 42])
    with pytest.raises(ValueError, match="Unknown method 'bm26'"):
        BM25Retriever(["a"], method="bm26")
    with pytest.raises(TypeError, match="params must be a kit.retrieval.BM25Params"):
        BM25Retriever(["a"], params={"k1": 1.2})
    with pytest.raises(FileNotFoundError, match="No BM25 index"):
        BM25Retriever.load(tmp_path / "missing")


def test_select_external_union_and_bookkeeping():
    corpus = ["red apple pie", "green apple", "red car", "blue car", "apple", "a red apple"]
    sel = select_external(["a red apple", "blue car"], corpus, k=2, retriever=BM25Retriever(corpus, method="okapi"))
    assert 5 not in sel.doc_ids and 3 not in sel.doc_ids  # task texts in the corpus are excluded
    assert sel.excluded == 2 and len(set(sel.doc_ids)) == len(sel.doc_ids)
    df = sel.to_frame(corpus, ["a red apple", "blue car"])
    assert set(df.columns) >= {"doc_id", "best_rank", "query_id", "score", "text", "query"}
    assert df.loc[df.doc_id == 2, "query_id"].item() == 1 and df.loc[df.doc_id == 2, "best_rank"].item() == 0


def test_select_external_errors():
    with pytest.raises(ValueError, match="No task texts"):
        select_external([], ["a"], k=1)
    with pytest.raises(ValueError, match="larger than the corpus"):
        select_external(["a"], ["a b", "b"], k=3)
    with pytest.raises(ValueError, match="2 queries for 1 task texts"):
        select_external(["a"], ["a b", "b"], k=1, queries=["a", "b"])


def test_random_retrieval():
    ids = random_retrieval(100, 10, seed=1)
    assert len(set(ids)) == 10 and ids.max() < 100
    assert (ids == random_retrieval(100, 10, seed=1)).all() and not (ids == random_retrieval(100, 10, seed=2)).all()
    assert 5 not in random_retrieval(10, 9, seed=0, exclude=[5])
    with pytest.raises(ValueError, match="k=11 is larger"):
        random_retrieval(10, 11)


def test_rake_and_long_queries():
    text = (
        "Compatibility of systems of linear constraints over the set of natural numbers. Criteria of "
        "compatibility of a system of linear Diophantine equations are considered."
    )
    kws = rake_keywords(text, 3)
    assert kws[0] == "linear diophantine equations"
    long = " ".join(["economy growth slowed sharply"] * 30)
    q = make_queries(["short text", long], long_text_words=64)
    assert q[0] == "short text" and len(q[1].split()) < 20
    corpus = ["economy growth slowed", "short text here", "sharply rising prices"]
    by_default = select_external(["short text", long], corpus, k=1)  # the long text is queried by its keywords
    assert by_default.doc_ids.tolist() == select_external(["short text", long], corpus, k=1, queries=q).doc_ids.tolist()
    chosen = select_external(["short text", long], corpus, k=1, queries=["rising prices", "prices"])
    assert chosen.doc_ids.tolist() == [2] and chosen.query_id.tolist() == [0]  # the queries given, not the texts


def test_select_external_keeps_dev_and_test_texts_out():
    from kit.retrieval import task_text_mask

    corpus = ["The red apple fell", "a red apple pie", "red apple  TREES grow", "blue cars"]
    mask = task_text_mask(corpus, ["red apple trees grow"])
    assert mask.tolist() == [False, False, True, False]
    okapi = BM25Retriever(corpus, method="okapi")
    sel = select_external(["red apple"], corpus, k=3, retriever=okapi, exclude_texts=["red apple trees grow"])
    assert 2 not in sel.doc_ids.tolist() and sel.excluded == 1
    assert sorted(sel.doc_ids.tolist()) == [0, 1]


def test_a_tie_straddling_k_goes_to_the_lower_document_ids():
    # 40 identical documents tie; argpartition alone keeps an arbitrary member of the tie at the k-th place
    corpus = ["cat dog"] * 40 + ["cat cat dog bird"] + ["fish"] * 10
    r = BM25Retriever(corpus, method="lucene")
    for k in (1, 2, 5, 17, 39, 41, 45):
        ids, scores = r.retrieve(["cat dog"], k=k)
        full = np.argsort(-r.get_scores("cat dog"), kind="stable")[:k]  # stable: ties by lower id
        assert ids[0].tolist() == [i for i in full.tolist() if r.get_scores("cat dog")[i] > 0][:k] + [-1] * max(
            0, k - 41
        ), k
    tied = sorted(set(r.retrieve(["cat dog"], k=5)[0][0].tolist()) - {40})
    assert tied == list(range(len(tied)))
