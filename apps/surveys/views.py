"""Pages of Dynamic Live Surveys (mounted at /surveys/). Survey pages are public read-only for
public surveys; reviewing and uploading need a login."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.catalog.api_common import django_errors
from apps.surveys import selectors, services

SCORECARD = [
    (
        "reference_validity",
        "Reference validity",
        "share of references found in the index (DOI, arXiv id or fuzzy)",
    ),
    (
        "suspected_hallucinations",
        "Suspected hallucinations",
        "references nothing in the index matches",
    ),
    (
        "max_citation_jaccard",
        "Citation overlap",
        "largest Jaccard of reference lists with another survey",
    ),
    (
        "max_semantic_similarity",
        "Semantic similarity",
        "largest cosine of MiniLM embeddings with another survey",
    ),
    ("redundancy", "Redundancy", "share of paragraphs with a near-duplicate in the same survey"),
    (
        "taxonomy_originality",
        "Taxonomy originality",
        "1 - section-tree similarity to the closest prior survey",
    ),
    ("citations_per_1k_words", "Citation density", "in-text citations per 1,000 words"),
    (
        "topk_coverage",
        "Coverage of key works",
        "share of the topic's most-cited works that are cited",
    ),
    ("median_age", "Median reference age", "years between the survey and its references"),
    ("marker_rate", "LLM-marker words / 1k", "indicator only: see the caveat"),
    ("burstiness", "Sentence-length burstiness", "indicator only: low = uniform sentence lengths"),
]


def _scorecard(audit: dict) -> list[dict]:
    card = audit.get("scorecard") or {}
    return [
        {"key": k, "label": label, "help": help_, "value": card.get(k)}
        for k, label, help_ in SCORECARD
        if k in card
    ]


def survey_list(request):
    return render(
        request, "surveys/list.html", {"surveys": selectors.surveys_visible(request.user)}
    )


def survey_detail(request, slug):
    survey = get_object_or_404(selectors.surveys_visible(request.user), slug=slug)
    version = selectors.survey_latest_version(survey)
    return _version_page(request, survey, version)


def version_detail(request, slug, number):
    survey = get_object_or_404(selectors.surveys_visible(request.user), slug=slug)
    return _version_page(request, survey, get_object_or_404(survey.versions, number=number))


def _version_page(request, survey, version):
    previous = survey.versions.filter(number__lt=version.number).order_by("-number").first()
    return render(
        request,
        "surveys/detail.html",
        {
            "survey": survey,
            "version": version,
            "previous": previous,
            "diff": selectors.version_diff(survey, previous, version) if previous else "",
            "scorecard": _scorecard(version.audit),
            "flags": (version.audit or {}).get("flags", []),
            "caveat": ((version.audit or {}).get("caveats") or {}).get("machine_generation", ""),
            "versions": survey.versions.select_related("author").order_by("-number"),
            "can_maintain": selectors.survey_can_maintain(request.user, survey),
            "open_proposals": survey.proposals.filter(status="open").select_related(
                "paper", "author"
            ),
        },
    )


@login_required
@require_POST
def proposal_review(request, slug, pk, action):
    survey = get_object_or_404(selectors.surveys_visible(request.user), slug=slug)
    proposal = get_object_or_404(survey.proposals, pk=pk)
    try:
        if action == "accept":
            v = services.proposal_accept(
                proposal=proposal, user=request.user, note=request.POST.get("note", "")
            )
            messages.success(request, f"Accepted: version {v.number} created and audited.")
        else:
            services.proposal_reject(
                proposal=proposal, user=request.user, note=request.POST.get("note", "")
            )
            messages.success(request, "Rejected.")
    except ValidationError as exc:
        messages.error(
            request, "; ".join(f"{k}: {', '.join(v)}" for k, v in django_errors(exc).items())
        )
    return redirect("survey-detail", slug=slug)


@login_required
@require_POST
def proposals_generate(request, slug):
    survey = get_object_or_404(selectors.surveys_visible(request.user), slug=slug)
    try:
        found = services.proposals_generate(
            survey=survey,
            user=request.user,
            min_similarity=float(request.POST.get("min_similarity", 0.4)),
        )
        messages.success(request, f"{len(found)} new update proposal(s).")
    except (ValidationError, ValueError) as exc:
        messages.error(request, str(exc))
    return redirect("survey-detail", slug=slug)


@login_required
def audit_report(request, run_id):
    """The report page of a `survey_audit` run: score card, flagged items with evidence, plots."""
    from django.http import Http404

    found = selectors.audit_run_report(request.user, run_id)
    if found is None:
        raise Http404("no visible survey_audit run with this id")
    run, report, plots = found
    return render(
        request,
        "surveys/audit_report.html",
        {
            "run": run,
            "report": report,
            "scorecard": _scorecard(report),
            "flags": report.get("flags", []),
            "caveat": (report.get("caveats") or {}).get("machine_generation", ""),
            "plots": plots,
            "ground_truth": (report.get("details") or {}).get("ground_truth_fabricated"),
        },
    )


@login_required
def audit_upload(request):
    errors = {}
    if request.method == "POST":
        try:
            run = services.audit_submit(
                user=request.user,
                files=request.FILES,
                method=request.POST.get("method", "survey_auditor"),
                data_dir=Path(settings.CRUCIBLE_DATA_DIR),
                audit_corpus=request.POST.get("audit_corpus") == "on",
                topic=request.POST.get("topic", ""),
            )
            return redirect("survey-audit-report", run_id=run.pk)
        except ValidationError as exc:
            errors = django_errors(exc)
    return render(
        request, "surveys/audit_upload.html", {"errors": errors}, status=400 if errors else 200
    )


@login_required
def audit_leaderboard(request):
    board = services.audit_leaderboard(user=request.user, topic=request.GET.get("topic"))
    return render(request, "surveys/leaderboard.html", {"board": board})
