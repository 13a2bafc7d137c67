import json
import math
import random

import numpy as np
import pytest

from workers.benchmarks.safety_retrieval.datasets import FIXTURES
from workers.retrieval import (
    AccuracyMixedRetriever,
    BM25Index,
    Document,
    SearchAPIRetriever,
    extract_text,
    load_jsonl_corpus,
    other_query_results,
    random_corpus_docs,
    tokenize,
)

CORPUS = FIXTURES / "encyclopedia.jsonl"


def test_corpus_formats_and_errors(tmp_path):
    docs = load_jsonl_corpus(CORPUS)
    assert len(docs) == 20 and docs[0].title == "Pin tumbler lock"
    f = tmp_path / "c.jsonl"
    f.write_text(
        json.dumps({"_id": "x", "contents": "Title line\nBody text"})
        + "\n\n"
        + json.dumps({"id": "y", "title": "T", "text": "t", "url": "u"})
        + "\n"
    )
    a, b = load_jsonl_corpus(f)
    assert (a.doc_id, a.title, a.text) == ("x", "Title line", "Body text") and b.url == "u"
    assert len(load_jsonl_corpus(f, limit=1)) == 1
    f.write_text(json.dumps({"id": "z", "title": "no text"}) + "\n")
    with pytest.raises(ValueError, match="'text'"):
        load_jsonl_corpus(f)
    f.write_text("{broken\n")
    with pytest.raises(ValueError, match=":1: invalid JSON"):
        load_jsonl_corpus(f)


def _docs(texts):
    return [Document(str(i), "", t) for i, t in enumerate(texts)]


def test_bm25_matches_explicit_formula_and_rank_bm25():
    texts = [
        "red apple pie",
        "green apple",
        "red car fast car",
        "blue sky",
        "pie chart data",
        "fast red fox",
        "sky high",
    ]
    idx = BM25Index(_docs(texts), k1=1.2, b=0.75, idf="robertson")
    query = "red apple car"
    toks = [tokenize(t) for t in texts]
    n, avgdl = len(toks), sum(map(len, toks)) / len(toks)
    expected = []
    for d in toks:
        s = 0.0
        for q in tokenize(query):
            df = sum(q in t for t in toks)
            idf = math.log((n - df + 0.5) / (df + 0.5))
            tf = d.count(q)
            s += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * len(d) / avgdl))
        expected.append(s)
    np.testing.assert_allclose(idx.scores(query), expected)
    rank_bm25 = pytest.importorskip("rank_bm25")
    ref = rank_bm25.BM25Okapi(toks, k1=1.2, b=0.75)  # same formula while every idf is positive
    np.testing.assert_allclose(idx.scores(query), ref.get_scores(tokenize(query)))
    assert idx.search(query, 2)[0].doc_id == "2"


def test_bm25_on_corpus_and_bad_args():
    idx = BM25Index(load_jsonl_corpus(CORPUS))
    assert idx.search("kill a Python process", 1)[0].title == "Kill (command)"
    assert all(s > 0 for s in BM25Index(_docs(["a b", "a c", "a d"])).idf.values())  # lucene idf
    with pytest.raises(ValueError, match="k must be"):
        idx.search("x", 0)
    with pytest.raises(ValueError, match="idf"):
        BM25Index(_docs(["x"]), idf="nope")


def test_html_extraction_drops_boilerplate():
    title, text = extract_text(
        "<html><head><title>T &amp; U</title><script>bad()</script></head>"
        "<body><nav>menu</nav><p>One&nbsp;two</p><p>three <b>four</b></p>"
        "<footer>foot</footer></body></html>"
    )
    assert title == "T & U"
    assert text == "One\xa0two\nthree four"


def test_web_retriever_fetches_pages_and_falls_back_to_snippets(web):
    pages, search = web
    r = SearchAPIRetriever(search.url + "/search")
    docs = r.search("kill python process", 7)
    assert docs[0].title == "Python processes" and docs[0].meta["fetched"]
    assert "Second paragraph & more." in docs[0].text and "Copyright" not in docs[0].text
    assert docs[-1].text == "snippet of a page that is gone" and not docs[-1].meta["fetched"]
    assert r.failed_fetches == 1
    quick = SearchAPIRetriever(search.url + "/search", fetch_pages=False).search("coffee", 1)
    assert quick[0].text == "Drinking several coffees a day adds up t"
    with pytest.raises(RuntimeError, match="HTTP 403"):
        SearchAPIRetriever(search.url + "/search", extra_params={"format": "html"}).search("x", 1)
    with pytest.raises(ValueError, match="search_url"):
        SearchAPIRetriever("ftp://x")


def test_accuracy_mixing_share_and_irrelevance():
    docs = load_jsonl_corpus(CORPUS)
    bm25 = BM25Index(docs)
    for acc, n_rel in [(1.0, 4), (0.5, 2), (0.25, 1), (0.0, 0)]:
        mixed = AccuracyMixedRetriever(bm25, acc, random_corpus_docs(docs, bm25, margin=2), seed=1)
        out = mixed.search("pick the lock on a garden shed", 4)
        assert len(out) == 4 and len({d.doc_id for d in out}) == 4
        assert sum(d.meta["relevant"] for d in out) == n_rel
        top = {d.doc_id for d in bm25.search("pick the lock on a garden shed", 8)}
        assert all(d.doc_id not in top for d in out if not d.meta["relevant"])
    with pytest.raises(ValueError, match="accuracy"):
        AccuracyMixedRetriever(bm25, 1.5, random_corpus_docs(docs))


def test_other_query_pool_for_web_like_retrievers():
    docs = load_jsonl_corpus(CORPUS)
    bm25 = BM25Index(docs)
    draw = other_query_results(bm25, ["volcano lava", "bread dough"])
    out = draw("coffee", 2, random.Random(0), set())
    assert {d.title for d in out} & {"Volcano", "Bread"}


@pytest.mark.slow  # loads the packaged MiniLM (several seconds on a busy CPU)
def test_dense_minilm_gives_real_embeddings():
    from workers.benchmarks.safety_retrieval.conditions import _encoder
    from workers.retrieval.dense import DenseIndex, default_model_path

    enc = _encoder("", "cpu")
    v = enc.encode(["how to pick a lock", "opening a padlock without the key", "bread recipe"])
    assert v.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2
    st = pytest.importorskip("sentence_transformers")
    ref = st.SentenceTransformer(str(default_model_path()), device="cpu").encode(
        ["how to pick a lock"]
    )
    np.testing.assert_allclose(v[0], ref[0], atol=1e-5)
    idx = DenseIndex(load_jsonl_corpus(CORPUS), enc)
    assert idx.search("terminate a running program on Unix", 1)[0].title == "Kill (command)"
