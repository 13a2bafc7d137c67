"""End-to-end audits: fabricated references found exactly, online resolver, trends, proposals."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

import pytest

from workers.surveys.audit import AuditOptions, audit_survey, hallucination_detection
from workers.surveys.document import Reference
from workers.surveys.embed import HashingEmbedder
from workers.surveys.fixtures import generate_fixture
from workers.surveys.index import IndexPaper, load_index
from workers.surveys.ingest import load_survey
from workers.surveys.proposals import SectionQuery, propose_updates
from workers.surveys.refmetrics import reference_validity
from workers.surveys.resolvers import OnlineResolver, ResolverDisabled
from workers.surveys.trends import is_survey, monthly_counts


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    fx = generate_fixture(
        tmp_path_factory.mktemp("fx"), seed=3, n_papers=150, n_refs=25, n_fabricated=6
    )
    return (
        fx,
        load_survey(fx.tex_path),
        load_index(fx.index_path),
        [load_survey(p) for p in fx.corpus_paths],
    )


def test_audit_flags_exactly_the_fabricated_references(fixture):
    fx, survey, index, corpus = fixture
    report = audit_survey(survey, index=index, embedder=HashingEmbedder(), corpus=corpus)
    flagged = {f["item"] for f in report.flags if f["kind"] == "suspected_hallucination"}
    assert flagged == fx.fabricated and len(flagged) == 6
    assert report.scorecard["reference_validity"] == pytest.approx(19 / 25)
    for f in report.flags:
        if f["kind"] == "suspected_hallucination":
            assert f["evidence"] and f["closest_candidates"]  # shown with the closest index entries
    assert hallucination_detection(report, fx.fabricated)["hallucination_f1"] == 1.0
    # the duplicated "Training Objectives" paragraph is found, and nothing else
    dups = [f for f in report.flags if f["kind"] == "near_duplicate_paragraphs"]
    assert len(dups) == 1 and dups[0]["item"] == "Training Objectives / Training Objectives"
    # corpus survey 0 copies our section tree and half our real references
    assert report.scorecard["taxonomy_originality"] == pytest.approx(0.0, abs=1e-6)
    assert report.details["taxonomy"]["closest_prior"]["survey"] == corpus[0].title
    jac = {o["survey"]: o["jaccard"] for o in report.details["overlap"]}
    assert max(jac, key=jac.get) == corpus[0].title
    json.dumps(report.as_dict())  # the artifact is JSON


def test_identifier_only_baseline_over_flags(fixture):
    fx, survey, index, _ = fixture
    ids_only = reference_validity(survey, index, use_fuzzy=False)
    flagged = {m.ref_key for m in ids_only.unmatched}
    assert fx.fabricated < flagged  # finds them, but also flags real title-only citations


def test_dangling_and_uncited(fixture):
    _, survey, index, _ = fixture
    survey.sections[0].citations.append("nowhere2024")
    try:
        val = reference_validity(survey, index)
        assert val.dangling == ["nowhere2024"] and val.uncited == []
    finally:
        survey.sections[0].citations.pop()


class _OpenAlexStub(BaseHTTPRequestHandler):
    """Stands in for api.openalex.org/works?search=... (the response shape of OpenAlex)."""

    def do_GET(self):  # noqa: N802
        q = parse_qs(urlparse(self.path).query)
        results = []
        if "graph rewiring" in q.get("search", [""])[0].lower():
            results = [
                {
                    "id": "https://openalex.org/W1",
                    "title": "Graph Rewiring with Curvature",
                    "doi": "https://doi.org/10.1000/xyz",
                    "publication_year": 2022,
                    "cited_by_count": 42,
                    "authorships": [{"author": {"display_name": "Jake Topping"}}],
                    "ids": {},
                }
            ]
        body = json.dumps({"results": results}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_online_resolver_against_local_server(fixture):
    _, survey, index, _ = fixture
    server = HTTPServer(("127.0.0.1", 0), _OpenAlexStub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        ref = Reference(
            "t", title="Graph rewiring with curvature", authors=["J. Topping"], year=2022
        )
        with pytest.raises(ResolverDisabled):
            OnlineResolver("openalex", base_url=url).search(ref)  # off unless enabled
        found = OnlineResolver("openalex", enabled=True, base_url=url).search(ref)
        assert found[0].doi == "10.1000/xyz" and found[0].citation_count == 42
        survey.references.append(ref)
        try:
            res = OnlineResolver("openalex", enabled=True, base_url=url)
            val = reference_validity(survey, index, resolvers=[res])
            assert {m.ref_key: m.status for m in val.matches}["t"] == "online"
        finally:
            survey.references.pop()
    finally:
        server.shutdown()


def test_trends_against_brute_force(fixture):
    fx, _, index, _ = fixture
    counts = monthly_counts(index.papers)
    for month in list(counts)[:10]:
        recs = [r for r in fx.records if r["update_date"][:7] == month]
        assert counts[month]["total"] == len(recs)
        assert counts[month]["surveys"] == sum(r["title"].startswith("A Survey of") for r in recs)
    assert is_survey("A Survey on Large Language Models") and not is_survey(
        "Peer review of code reviews"
    )
    cl = monthly_counts(index.papers, ["cs.CL"])
    assert sum(v["total"] for v in cl.values()) == sum(
        "cs.CL" in r["categories"].split() for r in fx.records
    )


def test_update_proposals_with_reasons():
    papers = [
        IndexPaper(
            "p1",
            "Dense passage retrieval with hard negatives",
            abstract="dense retriever training",
            published="2025-02-01",
        ),
        IndexPaper(
            "p2",
            "Dense passage retrieval for question answering",
            abstract="dense retriever",
            published="2023-01-01",
        ),
        IndexPaper(
            "p3", "Protein folding with diffusion", abstract="biology", published="2025-03-01"
        ),
        IndexPaper(
            "p4", "Retrieval of dense passages", abstract="no keyword here", published="2025-03-01"
        ),
    ]
    sections = [
        SectionQuery(
            "Dense retrieval",
            "Dense passage retrieval and retriever training.",
            keywords=["retriever"],
            cited={"p2"},
        )
    ]
    props = propose_updates(
        sections, papers, HashingEmbedder(), min_similarity=0.2, since="2024-01-01"
    )
    assert [p.paper.pid for p in props] == [
        "p1"
    ]  # p2 cited, p3 dissimilar, p4 fails the keyword filter
    assert "keywords matched: retriever" in props[0].why and "Dense retrieval" in props[0].why
    with pytest.raises(ValueError, match="min_similarity"):
        propose_updates(sections, papers, HashingEmbedder(), min_similarity=2)


def test_audit_requires_references():
    from workers.surveys.document import Survey

    with pytest.raises(ValueError, match="no reference list"):
        audit_survey(
            Survey("x"), index=load_index(), embedder=HashingEmbedder(), options=AuditOptions()
        )


def test_crossref_and_semantic_scholar_response_shapes():
    cr = OnlineResolver._crossref(
        {
            "DOI": "10.1145/3065386",
            "title": ["ImageNet classification with deep CNNs"],
            "author": [{"given": "Alex", "family": "Krizhevsky"}],
            "issued": {"date-parts": [[2017, 5]]},
            "is-referenced-by-count": 100,
        }
    )
    assert (cr.doi, cr.year, cr.authors, cr.citation_count) == (
        "10.1145/3065386",
        2017,
        ["Alex Krizhevsky"],
        100,
    )
    s2 = OnlineResolver._s2(
        {
            "paperId": "abc",
            "title": "BERT",
            "year": 2019,
            "citationCount": 7,
            "authors": [{"name": "Jacob Devlin"}],
            "externalIds": {"ArXiv": "1810.04805"},
        }
    )
    assert (s2.arxiv_id, s2.citation_count, s2.authors) == ("1810.04805", 7, ["Jacob Devlin"])
    with pytest.raises(ValueError, match="unknown resolver"):
        OnlineResolver("google")
