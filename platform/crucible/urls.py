from __future__ import annotations

from functools import lru_cache

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import FileResponse, JsonResponse
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from apps.accounts import api as accounts_api
from apps.accounts import views as accounts_views
from apps.catalog import api as catalog_api
from apps.catalog import views as catalog_views
from apps.leaderboards import api as leaderboards_api
from apps.leaderboards import views as leaderboards_views
from apps.pools import api as pools_api
from apps.pools import views as pools_views
from apps.runs import api as runs_api
from apps.runs import views as runs_views

router = DefaultRouter()
# Artifact names like "curve.json" must not be read as a format suffix.
router.include_format_suffixes = False
router.register("benchmarks", catalog_api.BenchmarkViewSet, basename="benchmark")
router.register("methods", catalog_api.MethodViewSet, basename="method")
router.register("papers", catalog_api.PaperViewSet, basename="paper")
router.register("datasets", catalog_api.DatasetViewSet, basename="dataset")
router.register("models", catalog_api.ModelViewSet, basename="model")
router.register("runs", runs_api.RunViewSet, basename="run")
router.register("sweeps", runs_api.SweepViewSet, basename="sweep")


@lru_cache(maxsize=1)
def _plotly_path() -> str:
    from pathlib import Path

    import plotly

    return str(Path(plotly.__file__).parent / "package_data" / "plotly.min.js")


def plotly_js(request):
    """Plotly's JS from the installed Python package: never from a CDN."""
    response = FileResponse(open(_plotly_path(), "rb"), content_type="application/javascript")
    response["Cache-Control"] = "public, max-age=86400"
    return response


def healthz(request):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})


api_patterns = [
    path("", include(router.urls)),
    path(
        "leaderboards/<slug:name>/",
        leaderboards_api.LeaderboardView.as_view(),
        name="api-leaderboard",
    ),
    path("pools/", pools_api.PoolListView.as_view(), name="api-pools"),
    path(
        "pools/<slug:name>/<slug:action>/",
        pools_api.PoolActionView.as_view(),
        name="api-pool-action",
    ),
    path("tokens/", accounts_api.TokenListView.as_view(), name="api-tokens"),
    path(
        "tokens/<int:pk>/revoke/", accounts_api.TokenRevokeView.as_view(), name="api-token-revoke"
    ),
    path("surveys/", include("apps.surveys.api_urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
]

urlpatterns = [
    path("", runs_views.home, name="home"),
    path("launch/", runs_views.launch, name="launch"),
    path("runs/", runs_views.run_list, name="run-list"),
    path("runs/compare/", runs_views.compare, name="run-compare"),
    path("runs/<int:run_id>/", runs_views.run_detail, name="run-detail"),
    path("runs/<int:run_id>/cancel/", runs_views.run_cancel_view, name="run-cancel"),
    path("runs/<int:run_id>/retry/", runs_views.run_retry_view, name="run-retry"),
    path("sweeps/<int:sweep_id>/", runs_views.sweep_detail, name="sweep-detail"),
    path("benchmarks/<slug:name>/", leaderboards_views.benchmark_detail, name="benchmark-detail"),
    path(
        "benchmarks/<slug:name>/predictions/",
        leaderboards_views.predictions_upload,
        name="predictions-upload",
    ),
    path("papers/", catalog_views.papers, name="papers"),
    path("datasets/", catalog_views.datasets, name="datasets"),
    path("models/", catalog_views.models, name="models"),
    path("pools/", pools_views.pools_page, name="pools"),
    path("pools/<slug:name>/<slug:action>/", pools_views.pool_action, name="pool-action"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/tokens/", accounts_views.tokens, name="tokens"),
    path("accounts/tokens/<int:pk>/revoke/", accounts_views.token_revoke, name="token-revoke"),
    path("vendor/plotly.min.js", plotly_js, name="plotly-js"),
    path("healthz", healthz),
    path("surveys/", include("apps.surveys.urls")),
    path("admin/", admin.site.urls),
    path("api/", include(api_patterns)),
]
