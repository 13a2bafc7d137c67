"""Audit metrics against brute force and closed forms."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from workers.surveys.document import Section, Survey
from workers.surveys.refmetrics import coverage, jaccard, recency_profile
from workers.surveys.textmetrics import (
    LLM_MARKERS,
    machine_generation_indicators,
    near_duplicate_paragraphs,
    tree_similarity,
)


class TableEmbedder:
    """Deterministic embedder: each distinct text gets a fixed vector (normalised)."""

    name = "table"

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def encode(self, texts):
        rows = np.array([self.table[t] for t in texts], dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_jaccard_matches_definition():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = set(rng.integers(0, 15, 8).tolist()), set(rng.integers(0, 15, 6).tolist())
        union = [x for x in range(15) if x in a or x in b]
        inter = [x for x in union if x in a and x in b]
        assert jaccard(a, b) == pytest.approx(len(inter) / len(union))
    assert jaccard(set(), set()) == 0.0


def test_redundancy_brute_force():
    rng = np.random.default_rng(1)
    texts = [f"p{i}" for i in range(7)]
    base = rng.normal(size=(7, 5))
    base[4] = base[1] + 0.01  # a near-duplicate of paragraph 1
    emb = TableEmbedder({t: base[i].tolist() for i, t in enumerate(texts)})
    red, pairs = near_duplicate_paragraphs(texts, emb, 0.95)
    E = emb.encode(texts)
    brute = {(i, j) for i, j in itertools.combinations(range(7), 2) if E[i] @ E[j] >= 0.95}
    assert {(i, j) for i, j, _ in pairs} == brute == {(1, 4)}
    assert red == pytest.approx(2 / 7)


def _survey(outline):
    return Survey("t", sections=[Section(title, level) for level, title in outline])


def test_tree_similarity_closed_form():
    e = TableEmbedder({"A": [1, 0], "B": [0, 1], "C": [1, 1]})
    same = _survey([(1, "A"), (2, "B")])
    assert tree_similarity(same, same, e) == pytest.approx(1.0)
    other = _survey([(1, "A"), (1, "C")])
    # c(B, C) = 1/sqrt2 at depth diff 1 -> w = 0.8; c(B, A) = 0 ; rows: A->1, B->max(0, 0.8/sqrt2)
    row = (1 + 0.8 / math.sqrt(2)) / 2
    # columns: A->1 (from A), C->max(1/sqrt2 (A, same depth), 0.8/sqrt2 (B))
    col = (1 + 1 / math.sqrt(2)) / 2
    assert tree_similarity(same, other, e) == pytest.approx((row + col) / 2)


def test_machine_generation_indicators_by_hand():
    text = "We delve into the intricate tapestry of methods. Short one here. " * 3
    words = text.lower().replace(".", "").split()
    ind = machine_generation_indicators(text, window=5)
    assert ind["words"] == len(words)
    assert ind["marker_rate"] == pytest.approx(
        1000 * sum(w in LLM_MARKERS for w in words) / len(words)
    )
    mattr = np.mean([len(set(words[i : i + 5])) / 5 for i in range(len(words) - 4)])
    assert ind["mattr"] == pytest.approx(mattr)
    lens = np.array([8, 3] * 3, dtype=float)
    assert ind["burstiness"] == pytest.approx(lens.std() / lens.mean())
    tri = list(zip(words, words[1:], words[2:], strict=False))
    assert ind["repeated_trigram_rate"] == pytest.approx(
        sum(tri.count(t) > 1 for t in tri) / len(tri)
    )


def test_recency_and_coverage():
    prof = recency_profile(2024, [2024, 2023, 2020, 2010])
    assert (
        prof["median_age"] == 2.5
        and prof["share_recent_2y"] == 0.5
        and prof["mean_age"] == pytest.approx((0 + 1 + 4 + 14) / 4)
    )
    assert coverage({"a", "c"}, [("a", 9, ""), ("b", 5, ""), ("c", 1, ""), ("d", 0, "")]) == 0.5
    assert math.isnan(coverage({"a"}, []))
