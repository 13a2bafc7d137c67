"""Retrieval library: corpora, BM25 and dense (MiniLM) indexes, open-web search with page
extraction, and the relevant/irrelevant accuracy ablation. Usable outside the platform."""

from workers.retrieval.ablation import (
    AccuracyMixedRetriever,
    other_query_results,
    random_corpus_docs,
)
from workers.retrieval.bm25 import BM25Index, tokenize
from workers.retrieval.documents import Document, Retriever, load_jsonl_corpus
from workers.retrieval.web import SearchAPIRetriever, extract_text

__all__ = [
    "AccuracyMixedRetriever",
    "BM25Index",
    "Document",
    "Retriever",
    "SearchAPIRetriever",
    "extract_text",
    "load_jsonl_corpus",
    "other_query_results",
    "random_corpus_docs",
    "tokenize",
]
