"""Okapi BM25 (Robertson & Zaragoza 2009) over an in-memory document list.

score(D, Q) = sum_{q in Q} IDF(q) * f(q, D) * (k1 + 1) / (f(q, D) + k1 * (1 - b + b * |D| / avgdl))
IDF variants: "lucene" = ln(1 + (N - n + 0.5) / (n + 0.5)) (never negative, the Lucene/Pyserini
default) and "robertson" = ln((N - n + 0.5) / (n + 0.5)) (the classic form; negative for terms in
more than half of the documents).
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from workers.retrieval.documents import Document

_TOKEN = re.compile(r"[a-z0-9]+")
# A short English stop list: without it, BM25 over tiny corpora ranks by "the"/"how".
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it my of on or that the this to "
    "was what when where which who why will with you your".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric tokens without stop words."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


class BM25Index:
    """BM25 retriever. `search(query, k)` returns the top-k Documents with their scores."""

    name = "bm25"

    def __init__(
        self, docs: list[Document], k1: float = 0.9, b: float = 0.4, idf: str = "lucene"
    ) -> None:
        # k1=0.9, b=0.4 are Pyserini's defaults for Wikipedia passage retrieval.
        if not docs:
            raise ValueError("docs: need at least one document")
        if k1 < 0 or not 0 <= b <= 1:
            raise ValueError(f"k1 must be >= 0 and b in [0, 1], got k1={k1}, b={b}")
        if idf not in ("lucene", "robertson"):
            raise ValueError(f"idf: expected 'lucene' or 'robertson', got {idf!r}")
        self.docs = list(docs)
        self.k1, self.b = k1, b
        self.tfs = [Counter(tokenize(f"{d.title} {d.text}")) for d in self.docs]
        self.doc_len = np.array([sum(tf.values()) for tf in self.tfs], dtype=float)
        self.avgdl = float(self.doc_len.mean()) or 1.0
        n_docs = len(self.docs)
        df = Counter(term for tf in self.tfs for term in tf)
        if idf == "lucene":
            self.idf = {t: math.log(1 + (n_docs - n + 0.5) / (n + 0.5)) for t, n in df.items()}
        else:
            self.idf = {t: math.log((n_docs - n + 0.5) / (n + 0.5)) for t, n in df.items()}

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for `query` (Robertson & Zaragoza eq. 3.3)."""
        out = np.zeros(len(self.docs))
        norm = self.k1 * (1 - self.b + self.b * self.doc_len / self.avgdl)
        for term in tokenize(query):
            idf = self.idf.get(term)
            if idf is None:
                continue
            tf = np.array([t.get(term, 0) for t in self.tfs], dtype=float)
            out += idf * tf * (self.k1 + 1) / (tf + norm)
        return out

    def search(self, query: str, k: int) -> list[Document]:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        s = self.scores(query)
        order = np.argsort(-s, kind="stable")[:k]
        return [_with_score(self.docs[i], s[i]) for i in order]


def _with_score(doc: Document, score: float) -> Document:
    return Document(doc.doc_id, doc.title, doc.text, doc.url, float(score), doc.meta)
