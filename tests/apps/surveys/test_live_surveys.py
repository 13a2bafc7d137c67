"""Dynamic Live Surveys through the REST API: create, index, propose, accept, diff, export."""

from __future__ import annotations

import io
import json

import pytest

CONTENT = {
    "abstract": "A living review of retrieval-augmented generation.",
    "sections": [
        {
            "title": "Dense Retrieval",
            "level": 1,
            "keywords": ["retriever", "retrievers", "dense"],
            "text": "Dense retrievers encode questions and passages into vectors.\n\nHard negatives matter.",
            "references": [
                {
                    "key": "karpukhin2020",
                    "title": "Dense Passage Retrieval for Open-Domain Question Answering",
                    "authors": ["Vladimir Karpukhin"],
                    "year": 2020,
                    "arxiv_id": "2004.04906",
                }
            ],
        },
        {
            "title": "Generation",
            "level": 1,
            "keywords": ["generation", "decoding"],
            "text": "Generators condition on retrieved passages.",
            "references": [
                {
                    "key": "lewis2020",
                    "title": "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
                    "authors": ["Patrick Lewis"],
                    "year": 2020,
                    "arxiv_id": "2005.11401",
                },
                {
                    "key": "fake2024",
                    "title": "Quantum Retrieval Heads for Galactic Question Answering",
                    "authors": ["No Body"],
                    "year": 2024,
                    "doi": "10.9999/fake.1",
                },
            ],
        },
    ],
}

INDEX = [
    {
        "id": "2004.04906",
        "title": "Dense Passage Retrieval for Open-Domain Question Answering",
        "authors": "Vladimir Karpukhin, Barlas Oguz",
        "categories": "cs.CL",
        "abstract": "Dense retrievers.",
        "versions": [{"version": "v1", "created": "Fri, 10 Apr 2020 17:59:09 GMT"}],
    },
    {
        "id": "2005.11401",
        "title": "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
        "authors": "Patrick Lewis, Ethan Perez",
        "categories": "cs.CL",
        "abstract": "Generation with retrieval.",
        "versions": [{"version": "v1", "created": "Fri, 22 May 2020 21:34:34 GMT"}],
    },
    {
        "id": "2501.00001",
        "title": "Dense retrievers with hard negatives for open-domain question answering",
        "authors": "Ana Novak",
        "categories": "cs.IR",
        "abstract": "We train a dense retriever with mined negatives.",
        "versions": [{"version": "v1", "created": "Wed, 1 Jan 2025 10:00:00 GMT"}],
    },
    {
        "id": "2501.00002",
        "title": "Protein folding with equivariant diffusion",
        "authors": "Li Wei",
        "categories": "q-bio.BM",
        "abstract": "Structures of proteins.",
        "versions": [{"version": "v1", "created": "Thu, 2 Jan 2025 10:00:00 GMT"}],
    },
]


@pytest.fixture(autouse=True)
def _hashing(settings):
    settings.SURVEYS_EMBEDDER = "hashing"  # the MiniLM path is covered by the library's slow test


def _import_index(api, records=INDEX):
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    return api.post(
        "/api/surveys/index/", {"file": _named(data, "arxiv.jsonl")}, format="multipart"
    )


def _named(data: bytes, name: str):
    f = io.BytesIO(data)
    f.name = name
    return f


def test_proposal_flow_to_accepted_version_and_diff(api, client):
    assert _import_index(api).json() == {"imported": 4}
    r = api.post(
        "/api/surveys/",
        {"slug": "rag", "title": "Living RAG Survey", "topic": "rag", "content": CONTENT},
        format="json",
    )
    assert r.status_code == 201, r.content
    v1 = api.get("/api/surveys/rag/versions/1/").json()
    card = v1["audit"]["scorecard"]
    assert card["reference_validity"] == pytest.approx(2 / 3)  # the fabricated reference is flagged
    flagged = [f["item"] for f in v1["audit"]["flags"] if f["kind"] == "suspected_hallucination"]
    assert flagged == ["fake2024"]

    r = api.post(
        "/api/surveys/rag/proposals/generate/",
        {"min_similarity": 0.2, "since": "2024-06-01"},
        format="json",
    )
    assert r.status_code == 201, r.content
    props = r.json()
    assert [(p["paper"]["arxiv_id"], p["section_title"]) for p in props] == [
        ("2501.00001", "Dense Retrieval")
    ]
    assert "keywords matched" in props[0]["why"] and "cosine" in props[0]["why"]
    # generating again proposes nothing new (already proposed)
    assert (
        api.post(
            "/api/surveys/rag/proposals/generate/", {"min_similarity": 0.2}, format="json"
        ).json()
        == []
    )

    r = api.post(
        f"/api/surveys/rag/proposals/{props[0]['id']}/accept/", {"note": "good"}, format="json"
    )
    assert r.status_code == 201, r.content
    assert r.json()["number"] == 2 and r.json()["audit"]["scorecard"]["n_references"] == 4.0
    diff = api.get("/api/surveys/rag/versions/2/diff/").json()["diff"]
    added = [ln for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert any("Dense retrievers with hard negatives" in ln for ln in added)
    removed = [ln for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    assert removed == [
        "-References: [@karpukhin2020]"
    ]  # the section's reference line gained an entry
    again = api.post(f"/api/surveys/rag/proposals/{props[0]['id']}/reject/", {}, format="json")
    assert again.status_code == 400 and "status" in again.json()["errors"]

    # public read-only access: anonymous API and page
    assert client.get("/api/surveys/rag/").json()["latest"]["number"] == 2
    page = client.get("/surveys/rag/")
    assert page.status_code == 200 and b"Living RAG Survey" in page.content
    md = client.get("/api/surveys/rag/export.md").content.decode()
    assert md.startswith("# Living RAG Survey") and "[@fake2024]" in md
    bib = client.get("/api/surveys/rag/export.bib").content.decode()
    assert bib.count("@") == 4 and "eprint = {2501.00001}" in bib

    # every version is audited against the other live surveys (their latest versions)
    api.post(
        "/api/surveys/", {"slug": "copy", "title": "A Copy", "content": CONTENT}, format="json"
    )
    audit = api.get("/api/surveys/copy/").json()["latest"]["audit"]
    assert audit["details"]["overlap"] == [
        {
            "survey": "Living RAG Survey",
            "jaccard": 0.75,
            "semantic": audit["details"]["overlap"][0]["semantic"],
        }
    ]
    assert audit["scorecard"]["taxonomy_originality"] == pytest.approx(0.0, abs=1e-6)


def test_contributor_edit_proposal_reviewed_by_maintainer(api, db):
    from rest_framework.test import APIClient

    from apps.accounts.services import user_create

    api.post(
        "/api/surveys/", {"slug": "s2", "title": "Survey Two", "content": CONTENT}, format="json"
    )
    bob = user_create(username="bob", password="bob-password-1")
    contributor = APIClient()
    contributor.force_authenticate(bob)
    edited = json.loads(json.dumps(CONTENT))
    edited["sections"][1]["text"] += "\n\nA new paragraph on decoding."
    r = contributor.post(
        "/api/surveys/s2/proposals/", {"content": edited, "message": "decoding"}, format="json"
    )
    assert r.status_code == 201, r.content
    pid = r.json()["id"]
    denied = contributor.post(f"/api/surveys/s2/proposals/{pid}/accept/", {}, format="json")
    assert denied.status_code == 400 and "user" in denied.json()["errors"]
    assert (
        api.post(f"/api/surveys/s2/proposals/{pid}/accept/", {}, format="json").status_code == 201
    )
    # a maintainer can make bob a maintainer; then bob may review
    assert (
        api.post("/api/surveys/s2/maintainers/", {"username": "nobody"}, format="json").status_code
        == 400
    )
    assert (
        api.post("/api/surveys/s2/maintainers/", {"username": "bob"}, format="json").status_code
        == 201
    )
    survey = api.get("/api/surveys/s2/").json()
    assert survey["contributors"] == ["bob"] and survey["latest"]["author"] == "bob"
    assert sorted(survey["maintainers"]) == ["alice", "bob"]
    assert (
        "+A new paragraph on decoding."
        in api.get("/api/surveys/s2/versions/2/diff/?against=1").json()["diff"]
    )


def test_validation_errors_name_the_field(api):
    bad = {
        "sections": [
            {"title": "A", "references": [{"key": "k", "title": "", "year": "2020"}]},
            {"title": "A"},
        ]
    }
    r = api.post("/api/surveys/", {"slug": "bad", "title": "Bad", "content": bad}, format="json")
    assert r.status_code == 400
    errors = r.json()["errors"]
    assert set(errors) == {
        "content.sections[0].references[0].title",
        "content.sections[0].references[0].year",
        "content.sections[1].title",
    }
    r = api.post("/api/surveys/index/", {"file": _named(b"{oops\n", "x.jsonl")}, format="multipart")
    assert r.status_code == 400 and "x.jsonl:1" in r.json()["errors"]["file"][0]


def test_audit_upload_submits_a_run(api, tmp_path, settings):
    from apps.runs.models import Run
    from workers.surveys.fixtures import generate_fixture

    settings.CRUCIBLE_DATA_DIR = tmp_path
    fx = generate_fixture(
        tmp_path / "gen", seed=2, n_papers=60, n_refs=8, n_fabricated=2, n_other_surveys=1
    )
    files = {
        "survey": _named(fx.tex_path.read_bytes(), "survey.tex"),
        "bib": _named(fx.bib_path.read_bytes(), "survey.bib"),
        "index": [_named(fx.index_path.read_bytes(), "arxiv.jsonl")],
    }
    r = api.post("/api/surveys/audits/", files, format="multipart")
    assert r.status_code == 201, r.content
    run = Run.objects.get(pk=r.json()["id"])
    assert run.benchmark.name == "survey_audit" and run.benchmark_config["source"] == "files"
    assert (tmp_path / "surveys" / run.benchmark_config["survey_path"]).is_file()
    r = api.post("/api/surveys/audits/", {"survey": _named(b"x", "s.docx")}, format="multipart")
    assert r.status_code == 400 and "survey" in r.json()["errors"]


def test_uploaded_audit_runs_on_the_platform(api, tmp_path, settings, eager):
    """The upload becomes a survey_audit run that a worker executes: summary and report stored."""
    from apps.runs.models import Run
    from workers.surveys.fixtures import generate_fixture

    settings.CRUCIBLE_DATA_DIR = tmp_path
    fx = generate_fixture(
        tmp_path / "gen", seed=4, n_papers=60, n_refs=8, n_fabricated=2, n_other_surveys=1
    )
    files = {
        "survey": _named(fx.tex_path.read_bytes(), "survey.tex"),
        "bib": _named(fx.bib_path.read_bytes(), "survey.bib"),
        "index": [_named(fx.index_path.read_bytes(), "arxiv.jsonl")],
        "corpus": [
            _named(fx.corpus_paths[0].read_bytes(), "c.tex"),
            _named(fx.corpus_paths[0].with_suffix(".bib").read_bytes(), "c.bib"),
        ],
    }
    with eager(execute=True):
        r = api.post(
            "/api/surveys/audits/", {**files, "method": "survey_auditor_idonly"}, format="multipart"
        )
    assert r.status_code == 201, r.content
    run = Run.objects.get(pk=r.json()["id"])
    assert run.status == "succeeded", run.error
    assert run.summary["suspected_hallucinations"] >= 2 and "reference_validity" in run.summary
    names = set(run.artifacts.values_list("name", flat=True))
    assert {"audit_report.json", "reference_status", "corpus_overlap"} <= names
    from django.test import Client  # the report page is a browser page: log in with a session

    browser = Client()
    browser.force_login(api.user)
    page = browser.get(f"/surveys/audit/{run.pk}/").content.decode()
    assert (
        "suspected_hallucination" in page
        and "Reference validity" in page
        and 'id="plot-data"' in page
    )
    assert browser.get("/surveys/audit/999999/").status_code == 404


def test_pages_for_maintainer(api, client, user):
    api.post(
        "/api/surveys/index/",
        {"file": _named("".join(json.dumps(r) + "\n" for r in INDEX).encode(), "a.jsonl")},
        format="multipart",
    )
    api.post(
        "/api/surveys/", {"slug": "p", "title": "Page Survey", "content": CONTENT}, format="json"
    )
    client.force_login(user)
    r = client.post("/surveys/p/proposals/generate/", {"min_similarity": "0.2"})
    assert r.status_code == 302
    page = client.get("/surveys/p/").content.decode()
    assert (
        "Dense retrievers with hard negatives" in page
        and "Accept" in page
        and "suspected_hallucination" in page
    )
    from apps.surveys.models import Proposal

    pk = Proposal.objects.get(survey__slug="p").pk
    assert client.post(f"/surveys/p/proposals/{pk}/accept/").status_code == 302
    assert "v2" in client.get("/surveys/p/").content.decode()
    assert client.get("/surveys/p/v1/").status_code == 200
    assert (
        client.get("/surveys/").status_code == 200
        and client.get("/surveys/audit/").status_code == 200
    )
    assert client.post("/surveys/audit/", {}).status_code == 400


def test_audit_leaderboard_ranks_surveys_of_a_topic(api, eager, settings):
    """Two fixture audits of one topic (one with more fabricated references) and one of another
    topic: the topic's leaderboard lists its two, the cleaner survey first."""
    from django.test import Client

    settings.SURVEYS_EMBEDDER = "hashing"
    common = {"benchmark": "survey_audit", "method": "survey_auditor"}
    with eager(execute=True):
        for fabricated, topic in ((1, "rag"), (8, "rag"), (2, "agents")):
            response = api.post(
                "/api/runs/",
                {
                    **common,
                    "benchmark_config": {
                        "topic": topic,
                        "fixture_fabricated": fabricated,
                        "trends": False,
                        "fixture_papers": 60,
                        "fixture_refs": 20,
                        "fixture_other_surveys": 1,
                    },
                },
                format="json",
            )
            assert response.status_code == 201, response.json()
    board = api.get("/api/surveys/audits/leaderboard/?topic=rag").json()
    assert board["topics"] == ["agents", "rag"]
    validity = [row["metrics"]["reference_validity"] for row in board["rows"]]
    assert len(validity) == 2 and validity[0] > validity[1]
    page = Client()
    page.force_login(api.user)
    html = page.get("/surveys/audits/leaderboard/?topic=rag").content.decode()
    assert html.count("/surveys/audit/") >= 2 and "reference_validity" in html
