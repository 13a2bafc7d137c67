"""One audit of one survey against an index and a corpus of other surveys: a score card,
flagged items with evidence, and the per-metric details the report page and plots need."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from workers.surveys.document import Survey
from workers.surveys.embed import Embedder, cosine_matrix
from workers.surveys.index import BibIndex, IndexPaper
from workers.surveys.refmetrics import (
    canonical_ids,
    citation_density,
    coverage,
    jaccard,
    recency_profile,
    reference_validity,
    top_cited,
)
from workers.surveys.textmetrics import (
    MGT_CAVEATS,
    machine_generation_indicators,
    near_duplicate_paragraphs,
    survey_embedding,
    tree_similarity,
)

DEFAULT_TAU = {"minilm": 0.9, "hashing": 0.7}


@dataclass
class AuditOptions:
    match_threshold: float = 0.85  # fuzzy score needed to accept a title+author+year match
    use_fuzzy: bool = True  # False = identifiers only (the baseline auditor)
    # Cosine at which two paragraphs count as near-duplicates; None = the embedder's default
    # (DEFAULT_TAU: measured on the fixture, a 2-word edit scores 0.997 with MiniLM, 0.86 hashing).
    redundancy_tau: float | None = None
    top_k: int = 10  # size of the topic's most-cited list for coverage
    marker_rate_warn: float = 3.0  # LLM-marker words per 1k words above which a flag is raised
    overlap_warn: float = 0.5  # citation Jaccard above which a flag is raised
    resolvers: list = field(default_factory=list)  # enabled OnlineResolver objects, if any


@dataclass
class AuditReport:
    title: str
    scorecard: dict[str, float]
    flags: list[dict[str, Any]]
    details: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """Strict JSON (NaN -> null: databases and browsers reject NaN)."""
        return _json_safe(
            {
                "title": self.title,
                "scorecard": self.scorecard,
                "flags": self.flags,
                "details": self.details,
                "caveats": {"machine_generation": MGT_CAVEATS},
            }
        )


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _paper_brief(p: IndexPaper) -> dict:
    return {
        "id": p.pid,
        "title": p.title,
        "authors": p.authors[:4],
        "year": p.year,
        "doi": p.doi,
        "arxiv_id": p.arxiv_id,
    }


def audit_survey(
    survey: Survey,
    *,
    index: BibIndex,
    embedder: Embedder,
    corpus: list[Survey] = (),
    topic_papers: list[IndexPaper] | None = None,
    survey_year: int | None = None,
    options: AuditOptions | None = None,
) -> AuditReport:
    """Run every metric of docs/surveys.md on `survey`. `corpus` holds the other surveys on the
    topic (the survey itself is skipped by title); only those not newer count as prior work for
    taxonomy originality."""
    opt = options or AuditOptions()
    year = (
        survey_year
        or survey.year
        or max((r.year or 0 for r in survey.references), default=0)
        or None
    )
    flags: list[dict[str, Any]] = []
    card: dict[str, float] = {}
    details: dict[str, Any] = {}

    # 1. reference validity
    val = reference_validity(
        survey,
        index,
        threshold=opt.match_threshold,
        use_fuzzy=opt.use_fuzzy,
        resolvers=opt.resolvers,
    )
    refs = {r.key: r for r in survey.references}
    card["reference_validity"] = val.validity
    card["suspected_hallucinations"] = float(len(val.unmatched))
    card["n_references"] = float(len(survey.references))
    card["dangling_citations"] = float(len(val.dangling))
    card["uncited_references"] = float(len(val.uncited))
    details["matches"] = {
        m.ref_key: {
            "status": m.status,
            "score": round(m.score, 4),
            "paper": _paper_brief(m.paper) if m.paper else None,
        }
        for m in val.matches
    }
    for m in val.unmatched:
        flags.append(
            {
                "kind": "suspected_hallucination",
                "item": m.ref_key,
                "reference": refs[m.ref_key].as_dict(),
                "evidence": m.reason,
                "closest_candidates": [
                    {"score": round(s, 3), **_paper_brief(p)} for s, p in m.candidates[:3]
                ],
            }
        )
    for key in val.dangling:
        flags.append(
            {
                "kind": "dangling_citation",
                "item": key,
                "evidence": f"\\cite{{{key}}} has no reference entry",
            }
        )

    # 2. citation overlap and 3. semantic similarity with the other surveys
    others = [s for s in corpus if s.title != survey.title]
    own_ids = canonical_ids(survey, val.matches)
    overlaps = []
    for other in others:
        other_matches = [
            index.match(r, threshold=opt.match_threshold, use_fuzzy=opt.use_fuzzy)
            for r in other.references
        ]
        overlaps.append((jaccard(own_ids, canonical_ids(other, other_matches)), other))
    card["max_citation_jaccard"] = max((j for j, _ in overlaps), default=float("nan"))
    sims = []
    if others:
        e = survey_embedding(survey, embedder)
        for other in others:
            sims.append((float(cosine_matrix(e, survey_embedding(other, embedder))[0, 0]), other))
    card["max_semantic_similarity"] = max((s for s, _ in sims), default=float("nan"))
    details["overlap"] = [
        {
            "survey": o.title,
            "jaccard": round(j, 4),
            "semantic": round(next(s for s, x in sims if x is o), 4) if sims else None,
        }
        for j, o in overlaps
    ]
    for j, other in overlaps:
        if j >= opt.overlap_warn:
            flags.append(
                {
                    "kind": "high_citation_overlap",
                    "item": other.title,
                    "evidence": f"Jaccard {j:.2f} >= {opt.overlap_warn} with '{other.title}'",
                }
            )

    # 4. within-survey redundancy
    paras = survey.paragraphs()
    tau = (
        opt.redundancy_tau
        if opt.redundancy_tau is not None
        else DEFAULT_TAU.get(embedder.name, 0.9)
    )
    red, pairs = near_duplicate_paragraphs([p for _, p in paras], embedder, tau)
    card["redundancy"] = red
    for i, j, c in pairs[:20]:
        flags.append(
            {
                "kind": "near_duplicate_paragraphs",
                "item": f"{paras[i][0]} / {paras[j][0]}",
                "evidence": f"cosine {c:.3f} >= {tau}",
                "paragraphs": [paras[i][1][:400], paras[j][1][:400]],
            }
        )

    # 5. taxonomy originality against prior surveys
    prior = [s for s in others if year is None or s.year is None or s.year <= year]
    tsims = [(tree_similarity(survey, s, embedder), s) for s in prior]
    best = max(tsims, key=lambda t: t[0], default=None)
    card["taxonomy_originality"] = 1.0 - best[0] if best else float("nan")
    details["taxonomy"] = {
        "outline": survey.outline(),
        "closest_prior": {"survey": best[1].title, "similarity": round(best[0], 4)}
        if best
        else None,
    }

    # 6. citation density and coverage of the topic's most-cited works
    card.update(citation_density(survey))
    top = top_cited(
        topic_papers if topic_papers is not None else index.papers,
        [canonical_ids(s) for s in others] if others else [],
        opt.top_k,
    )
    card["topk_coverage"] = coverage(own_ids, top)
    missing = [t for t in top if t[0] not in own_ids]
    details["top_cited"] = [
        {"id": pid, "count": n, "title": t, "cited": pid in own_ids} for pid, n, t in top
    ]
    if top and missing:
        flags.append(
            {
                "kind": "missing_key_works",
                "item": f"{len(missing)} of top {len(top)}",
                "evidence": "; ".join(t for _, _, t in missing[:5]),
            }
        )

    # 7. recency profile
    ref_years = [
        m.paper.year if m.paper and m.paper.year else refs[m.ref_key].year for m in val.matches
    ]
    if year:
        card.update(recency_profile(year, [y for y in ref_years if y]))
    details["reference_years"] = [y for y in ref_years if y]

    # 8. machine-generation indicators (with caveats)
    mgt = machine_generation_indicators(survey.text())
    card.update({k: v for k, v in mgt.items() if k != "words"})
    card["words"] = mgt["words"]
    if not math.isnan(mgt["marker_rate"]) and mgt["marker_rate"] >= opt.marker_rate_warn:
        flags.append(
            {
                "kind": "machine_generation_indicator",
                "item": "marker words",
                "evidence": f"{mgt['marker_rate']:.1f} LLM-marker words per 1k words",
                "caveat": MGT_CAVEATS,
            }
        )
    return AuditReport(survey.title, card, flags, details)


def hallucination_detection(report: AuditReport, fabricated: set[str]) -> dict[str, float]:
    """Precision / recall / F1 of the suspected-hallucination flags against known fabrications."""
    flagged = {f["item"] for f in report.flags if f["kind"] == "suspected_hallucination"}
    tp = len(flagged & fabricated)
    precision = tp / len(flagged) if flagged else (1.0 if not fabricated else 0.0)
    recall = tp / len(fabricated) if fabricated else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "hallucination_precision": precision,
        "hallucination_recall": recall,
        "hallucination_f1": f1,
    }
