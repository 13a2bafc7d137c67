"""Automated update proposals for a live survey: new papers from the index that match a
section by embedding similarity AND its keyword filter, each with the reasons it matched."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from workers.surveys.embed import Embedder, cosine_matrix
from workers.surveys.index import IndexPaper


@dataclass
class SectionQuery:
    title: str
    text: str = ""
    keywords: list[str] = field(default_factory=list)  # empty = no keyword filter
    cited: set[str] = field(default_factory=set)  # index ids already in the section


@dataclass
class UpdateProposal:
    section: str
    paper: IndexPaper
    similarity: float
    keywords_matched: list[str]
    why: str


def propose_updates(
    sections: list[SectionQuery],
    papers: list[IndexPaper],
    embedder: Embedder,
    *,
    min_similarity: float = 0.4,
    max_per_section: int = 5,
    since: str = "",
) -> list[UpdateProposal]:
    """For each paper not yet cited anywhere (and published on/after `since`, ISO date), take the
    section with the highest cosine between embed(title + text of the section) and
    embed(title + abstract of the paper); propose it when cos >= min_similarity and the paper
    contains at least one of that section's keywords (whole words, case-insensitive)."""
    if not 0.0 <= min_similarity <= 1.0:
        raise ValueError("min_similarity: must be in [0, 1]")
    cited = set().union(*(s.cited for s in sections)) if sections else set()
    pool = [p for p in papers if p.pid not in cited and (not since or (p.published or "") >= since)]
    if not sections or not pool:
        return []
    S = embedder.encode([f"{s.title}. {s.text}"[:2000] for s in sections])
    P = embedder.encode([f"{p.title}. {p.abstract}" for p in pool])
    sim = cosine_matrix(P, S)  # papers x sections
    out: dict[str, list[UpdateProposal]] = {s.title: [] for s in sections}
    for i, paper in enumerate(pool):
        text = f"{paper.title} {paper.abstract}".lower()
        for j in sim[i].argsort()[::-1]:  # best section whose keyword filter passes
            sec, c = sections[j], float(sim[i, j])
            if c < min_similarity:
                break
            hits = [k for k in sec.keywords if re.search(rf"\b{re.escape(k.lower())}\b", text)]
            if sec.keywords and not hits:
                continue
            why = f"cosine {c:.2f} with section '{sec.title}' (threshold {min_similarity:.2f})"
            why += (
                f"; keywords matched: {', '.join(hits)}"
                if hits
                else "; no keyword filter on this section"
            )
            if paper.published:
                why += f"; first version {paper.published}"
            out[sec.title].append(UpdateProposal(sec.title, paper, c, hits, why))
            break
    result = []
    for props in out.values():
        result += sorted(props, key=lambda p: -p.similarity)[:max_per_section]
    return sorted(result, key=lambda p: -p.similarity)
