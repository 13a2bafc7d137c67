"""Reference-list metrics: validity, overlap with other surveys, density, coverage, recency.

Formulas are in docs/surveys.md; names follow it (V, J, D, C_K, age).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from workers.surveys.document import Survey
from workers.surveys.index import BibIndex, Match, normalize_title


@dataclass
class ValidityResult:
    validity: float  # V = |matched| / |R|
    matches: list[Match]
    dangling: list[str]  # cited in the text but absent from the reference list
    uncited: list[str]  # in the reference list but never cited

    @property
    def unmatched(self) -> list[Match]:
        return [m for m in self.matches if m.status == "unmatched"]


def reference_validity(
    survey: Survey,
    index: BibIndex,
    *,
    threshold: float = 0.85,
    use_fuzzy: bool = True,
    resolvers: list | None = None,
) -> ValidityResult:
    """Match every reference; a reference that no index entry (nor an enabled resolver) matches
    is a suspected hallucination, reported with its closest candidates."""
    if not survey.references:
        raise ValueError("survey: has no reference list to validate")
    matches = []
    for ref in survey.references:
        m = index.match(ref, threshold=threshold, use_fuzzy=use_fuzzy)
        if m.status == "unmatched" and resolvers:
            for resolver in resolvers:
                from workers.surveys.index import fuzzy_score

                found = sorted(
                    ((fuzzy_score(ref, p), p) for p in resolver.search(ref)), key=lambda t: -t[0]
                )
                if found and found[0][0] >= threshold:
                    m = Match(
                        ref.key,
                        "online",
                        found[0][1],
                        found[0][0],
                        found,
                        reason=f"{resolver.service}: score {found[0][0]:.2f}",
                    )
                    break
                m.candidates = sorted(m.candidates + found, key=lambda t: -t[0])[:3]
        matches.append(m)
    keys = {r.key for r in survey.references}
    cited = survey.citations()
    cited_set = set(cited)
    dangling = sorted({c for c in cited if c not in keys})
    uncited = [r.key for r in survey.references if r.key not in cited_set]
    valid = sum(m.status != "unmatched" for m in matches)
    return ValidityResult(valid / len(matches), matches, dangling, uncited)


def canonical_ids(survey: Survey, matches: list[Match] | None = None) -> set[str]:
    """A survey's references as comparable ids: the index id when matched, else DOI, arXiv id,
    or the normalised title (so two surveys citing the same unindexed paper still overlap)."""
    by_key = {m.ref_key: m for m in matches or []}
    out = set()
    for r in survey.references:
        m = by_key.get(r.key)
        if m is not None and m.paper is not None:
            out.add(m.paper.pid)
        elif r.doi:
            out.add(r.doi)
        elif r.arxiv_id:
            out.add(f"arXiv:{r.arxiv_id}")
        elif r.title:
            out.add("title:" + normalize_title(r.title))
    return out


def jaccard(a: set, b: set) -> float:
    """J(A, B) = |A ∩ B| / |A ∪ B| (0 for two empty sets)."""
    return len(a & b) / len(a | b) if a | b else 0.0


def citation_density(survey: Survey) -> dict[str, float]:
    """In-text citations per 1,000 words and distinct references cited per section."""
    words = max(survey.word_count(), 1)
    sections = [s for s in survey.walk() if s.paragraphs]
    cites = survey.citations()
    return {
        "citations_per_1k_words": 1000.0 * len(cites) / words,
        "distinct_cited_per_section": len(set(cites)) / max(len(sections), 1),
        "uncited_sections": float(sum(1 for s in sections if not s.citations)),
    }


def top_cited(index_papers, corpus_ids: list[set[str]], k: int) -> list[tuple[str, float, str]]:
    """The topic's K most-cited works: by `citation_count` when the index has counts, otherwise
    by how many corpus surveys cite them. Returns (id, count, title)."""
    with_counts = [p for p in index_papers if p.citation_count is not None]
    if with_counts:
        ranked = sorted(with_counts, key=lambda p: -p.citation_count)[:k]
        return [(p.pid, float(p.citation_count), p.title) for p in ranked]
    freq = Counter(pid for ids in corpus_ids for pid in ids)
    titles = {p.pid: p.title for p in index_papers}
    return [(pid, float(n), titles.get(pid, pid)) for pid, n in freq.most_common(k)]


def coverage(cited_ids: set[str], top: list[tuple[str, float, str]]) -> float:
    """C_K = |top-K ∩ cited| / K."""
    return sum(pid in cited_ids for pid, _, _ in top) / len(top) if top else float("nan")


def recency_profile(survey_year: int, ref_years: list[int]) -> dict[str, float]:
    """Age of references in years (survey year - reference year): median, mean, share <= 2 y."""
    ages = np.array([survey_year - y for y in ref_years if y is not None], dtype=float)
    if ages.size == 0:
        return {
            "median_age": float("nan"),
            "mean_age": float("nan"),
            "share_recent_2y": float("nan"),
        }
    return {
        "median_age": float(np.median(ages)),
        "mean_age": float(ages.mean()),
        "share_recent_2y": float((ages <= 2).mean()),
    }
