"""Retrieval conditions as configuration: none, encyclopedia (BM25 or dense MiniLM) over a local
JSONL corpus, or the open web through a search API; each wrapped for the accuracy ablation."""

from __future__ import annotations

import functools
from pathlib import Path

from workers.retrieval.ablation import (
    AccuracyMixedRetriever,
    other_query_results,
    random_corpus_docs,
)
from workers.retrieval.bm25 import BM25Index
from workers.retrieval.documents import Document, Retriever, load_jsonl_corpus
from workers.retrieval.web import SearchAPIRetriever

CONDITIONS = ("none", "encyclopedia_bm25", "encyclopedia_dense", "web")
# How wide each condition's access is, for ordering charts and picking the widest one.
BREADTH = {"none": 0, "encyclopedia_bm25": 1, "encyclopedia_dense": 1, "web": 2}
SOURCE_TEXT = {
    "encyclopedia_bm25": "an encyclopedia (Wikipedia)",
    "encyclopedia_dense": "an encyclopedia (Wikipedia)",
    "web": "the web",
}


@functools.lru_cache(maxsize=4)
def _corpus(path: str, mtime: float, limit: int) -> tuple[Document, ...]:
    return tuple(load_jsonl_corpus(path, limit))


@functools.lru_cache(maxsize=4)
def _bm25(path: str, mtime: float, limit: int) -> BM25Index:
    return BM25Index(list(_corpus(path, mtime, limit)))


@functools.lru_cache(maxsize=2)
def _encoder(model_path: str, device: str):
    from workers.retrieval.dense import MiniLMEncoder

    return MiniLMEncoder(model_path or None, device=device)


@functools.lru_cache(maxsize=4)
def _dense(path: str, mtime: float, limit: int, model_path: str, device: str):
    from workers.retrieval.dense import DenseIndex

    return DenseIndex(list(_corpus(path, mtime, limit)), _encoder(model_path, device))


def build_retriever(
    condition: str,
    *,
    corpus_path: str | Path,
    max_corpus_docs: int,
    search_url: str,
    fetch_pages: bool,
    page_max_chars: int,
    dense_model_path: str,
    accuracy: float,
    distractor_queries: list[str],
    seed: int,
    device: str = "cpu",
) -> Retriever | None:
    """The retriever for `condition` (None for "none"); indexes are cached per process."""
    if condition not in CONDITIONS:
        raise ValueError(f"conditions: unknown condition {condition!r} (known: {CONDITIONS})")
    if condition == "none":
        return None
    if condition == "web":
        if not search_url:
            raise ValueError("search_url: required for the 'web' condition")
        base: Retriever = SearchAPIRetriever(
            search_url, fetch_pages=fetch_pages, max_chars=page_max_chars
        )
        irrelevant = other_query_results(base, distractor_queries)
    else:
        path = Path(corpus_path)
        if not path.is_file():
            raise FileNotFoundError(f"corpus_path: {path} is not a file")
        key = (str(path), path.stat().st_mtime, max_corpus_docs)
        if condition == "encyclopedia_bm25":
            base = _bm25(*key)
        else:
            base = _dense(*key, dense_model_path, device)
        irrelevant = random_corpus_docs(list(_corpus(*key)), exclude_top=base)
    chosen = (
        base if accuracy >= 1.0 else AccuracyMixedRetriever(base, accuracy, irrelevant, seed=seed)
    )
    return Described(chosen, SOURCE_TEXT[condition])


class Described:
    """A retriever plus the words an agent's tool description uses for its source."""

    def __init__(self, inner: Retriever, description: str) -> None:
        self.inner, self.description, self.name = inner, description, inner.name

    def search(self, query: str, k: int) -> list[Document]:
        return self.inner.search(query, k)
