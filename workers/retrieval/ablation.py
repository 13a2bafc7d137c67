"""Retrieval-accuracy ablation: inject a set share of relevant vs irrelevant documents.

Of the k documents shown, round(accuracy * k) are the retriever's top-ranked ones ("relevant")
and the rest come from an irrelevant pool, then the list is shuffled so position does not leak
which is which. accuracy = 1 is plain top-k retrieval.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from workers.retrieval.documents import Document, Retriever

IrrelevantSource = Callable[[str, int, random.Random, set[str]], list[Document]]


def random_corpus_docs(
    docs: list[Document], exclude_top: Retriever | None = None, margin: int = 10
) -> IrrelevantSource:
    """Irrelevant pool for a local corpus: random documents outside the query's top
    margin * k hits of `exclude_top` (when given), k = relevant already drawn + n."""

    def draw(query: str, n: int, rng: random.Random, seen: set[str]) -> list[Document]:
        banned = set(seen)
        if exclude_top is not None:
            banned |= {
                d.doc_id for d in exclude_top.search(query, max(1, margin * (n + len(seen))))
            }
        pool = [d for d in docs if d.doc_id not in banned] or [
            d for d in docs if d.doc_id not in seen
        ]
        return rng.sample(pool, min(n, len(pool)))

    return draw


def other_query_results(base: Retriever, queries: list[str]) -> IrrelevantSource:
    """Irrelevant pool for web search: results for a different, randomly drawn query."""
    if not queries:
        raise ValueError("queries: need distractor queries for the irrelevant pool")

    def draw(query: str, n: int, rng: random.Random, seen: set[str]) -> list[Document]:
        candidates = [q for q in queries if q != query] or list(queries)
        out = [
            d
            for d in base.search(rng.choice(candidates), max(n, 1) + len(seen))
            if d.doc_id not in seen
        ]
        return out[:n]

    return draw


class AccuracyMixedRetriever:
    """Wrap `base` so that a share `accuracy` of the k documents is relevant."""

    def __init__(
        self, base: Retriever, accuracy: float, irrelevant: IrrelevantSource, seed: int = 0
    ) -> None:
        if not 0.0 <= accuracy <= 1.0:
            raise ValueError(f"accuracy must be in [0, 1], got {accuracy}")
        self.base, self.accuracy, self.irrelevant = base, accuracy, irrelevant
        self.rng = random.Random(seed)
        self.name = f"{base.name}@acc{accuracy:g}"

    def search(self, query: str, k: int) -> list[Document]:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        n_rel = int(round(self.accuracy * k))
        relevant = self.base.search(query, n_rel) if n_rel else []
        relevant = [_tag(d, True) for d in relevant]
        seen = {d.doc_id for d in relevant}
        noise = [_tag(d, False) for d in self.irrelevant(query, k - len(relevant), self.rng, seen)]
        mixed = relevant + noise
        self.rng.shuffle(mixed)
        return mixed


def _tag(doc: Document, relevant: bool) -> Document:
    return Document(
        doc.doc_id, doc.title, doc.text, doc.url, doc.score, {**doc.meta, "relevant": relevant}
    )
