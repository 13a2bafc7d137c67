"""Pages of Dynamic Live Surveys (mounted at /surveys/)."""

from django.urls import path

from apps.surveys import views

urlpatterns = [
    path("", views.survey_list, name="survey-list"),
    path("audit/", views.audit_upload, name="survey-audit-upload"),
    path("audit/<int:run_id>/", views.audit_report, name="survey-audit-report"),
    path("audits/leaderboard/", views.audit_leaderboard, name="survey-audit-leaderboard"),
    path("<slug:slug>/", views.survey_detail, name="survey-detail"),
    path("<slug:slug>/v<int:number>/", views.version_detail, name="survey-version"),
    path("<slug:slug>/proposals/generate/", views.proposals_generate, name="survey-generate"),
    path(
        "<slug:slug>/proposals/<int:pk>/<slug:action>/", views.proposal_review, name="survey-review"
    ),
]
