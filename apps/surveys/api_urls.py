"""REST API of Dynamic Live Surveys (mounted at /api/surveys/)."""

from django.urls import path

from apps.surveys import api

urlpatterns = [
    path("", api.SurveyListView.as_view(), name="api-survey-list"),
    path("index/", api.IndexImportView.as_view(), name="api-survey-index"),
    path("audits/", api.AuditUploadView.as_view(), name="api-survey-audit"),
    path(
        "audits/leaderboard/",
        api.AuditLeaderboardView.as_view(),
        name="api-survey-audit-leaderboard",
    ),
    path("<slug:slug>/", api.SurveyDetailView.as_view(), name="api-survey-detail"),
    path("<slug:slug>/maintainers/", api.MaintainerView.as_view(), name="api-survey-maintainers"),
    path("<slug:slug>/versions/", api.VersionListView.as_view(), name="api-survey-versions"),
    path(
        "<slug:slug>/versions/<int:number>/",
        api.VersionDetailView.as_view(),
        name="api-survey-version",
    ),
    path(
        "<slug:slug>/versions/<int:number>/diff/",
        api.VersionDiffView.as_view(),
        name="api-survey-diff",
    ),
    path("<slug:slug>/export.<str:fmt>", api.ExportView.as_view(), name="api-survey-export"),
    path("<slug:slug>/proposals/", api.ProposalListView.as_view(), name="api-survey-proposals"),
    path(
        "<slug:slug>/proposals/generate/",
        api.ProposalGenerateView.as_view(),
        name="api-survey-generate",
    ),
    path(
        "<slug:slug>/proposals/<int:pk>/<str:action>/",
        api.ProposalReviewView.as_view(),
        name="api-survey-review",
    ),
]
