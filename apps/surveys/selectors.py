"""Reads for Dynamic Live Surveys, with visibility in one place (the runs app's rule)."""

from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery

from apps.runs.selectors import visible_q
from apps.surveys.models import LiveSurvey, SurveyVersion
from workers.surveys import livedoc


def surveys_visible(user) -> QuerySet[LiveSurvey]:
    return LiveSurvey.objects.filter(visible_q(user)).select_related("owner")


def survey_can_maintain(user, survey: LiveSurvey) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or survey.maintainers.filter(pk=user.pk).exists()


def survey_latest_version(survey: LiveSurvey) -> SurveyVersion:
    return survey.versions.order_by("-number").first()


def latest_versions() -> QuerySet[SurveyVersion]:
    newest = (
        SurveyVersion.objects.filter(survey=OuterRef("survey")).order_by("-number").values("pk")[:1]
    )
    return SurveyVersion.objects.filter(pk=Subquery(newest)).select_related("survey")


def version_diff(survey: LiveSurvey, old: SurveyVersion, new: SurveyVersion) -> str:
    return livedoc.diff(survey.title, old.content, new.content, f"v{old.number}", f"v{new.number}")


def export_markdown(version: SurveyVersion) -> str:
    return livedoc.to_markdown(version.survey.title, version.content, version.number)


def export_bibtex(version: SurveyVersion) -> str:
    return livedoc.to_bibtex(version.content)


def audit_run_report(user, run_id: int) -> tuple | None:
    """(run, report dict, {plot name: figure JSON}) of a visible `survey_audit` run, or None."""
    import json

    from apps.runs.selectors import runs_visible

    run = runs_visible(user).filter(pk=run_id, benchmark__name="survey_audit").first()
    if run is None:
        return None
    report, plots = {}, {}
    for art in run.artifacts.filter(private=False):
        try:
            with art.file.open("rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            continue
        if art.name == "audit_report.json":
            report = json.loads(data)
        elif art.content_type == "application/vnd.plotly+json":
            plots[art.name] = json.loads(data)
    return run, report, plots
