"""Quotas (concurrent, daily, storage; cancelled and platform-failed runs don't count),
per-token throttling, CSRF on forms, and the services profile's secure headers."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.accounts.models import Team
from apps.runs.models import Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def paused(synced):
    from apps.pools.models import WorkerPool

    WorkerPool.objects.filter(name="default").update(paused=True)


def _team(user) -> Team:
    return Team.objects.get(name=f"user-{user.pk}")


def test_concurrent_quota_and_what_does_not_count(api, paused):
    team = _team(api.user)
    team.max_concurrent_runs = 2
    team.max_runs_per_day = 3
    team.save()
    body = {"benchmark": "probe", "method": "probe_fast"}
    first, second = (api.post("/api/runs/", body, format="json").json()["id"] for _ in range(2))
    refused = api.post("/api/runs/", body, format="json")
    assert (
        refused.status_code == 400
        and "may have 2 queued or running" in refused.json()["errors"]["quota"][0]
    )
    api.post(f"/api/runs/{first}/cancel/")
    assert api.post("/api/runs/", body, format="json").status_code == 201, (
        "a cancelled run frees its slot"
    )
    # Daily: cancelled and platform-failed runs are not counted against the 3 a day.
    Run.objects.filter(pk=second).update(status="failed", failed_by_platform=True)
    assert api.post("/api/runs/", body, format="json").status_code == 201
    Run.objects.filter(owner=api.user, status="queued").update(status="succeeded")
    assert api.post("/api/runs/", body, format="json").status_code == 201
    daily = api.post("/api/runs/", body, format="json")
    assert daily.status_code == 400 and "a day" in daily.json()["errors"]["quota"][0]


def test_storage_quota_refuses_uploads_and_keeps_data(api, paused):
    team = _team(api.user)
    team.max_storage_bytes = 100
    team.save()
    ok = api.post(
        "/api/datasets/",
        {"name": "small", "file": SimpleUploadedFile("a.csv", b"x" * 60)},
        format="multipart",
    )
    assert ok.status_code == 201
    big = api.post(
        "/api/datasets/",
        {"name": "small", "file": SimpleUploadedFile("b.csv", b"y" * 60)},
        format="multipart",
    )
    assert big.status_code == 400 and "storage quota" in big.json()["errors"]["file"][0]
    versions = api.get("/api/datasets/small/").json()["versions"]
    assert len(versions) == 1 and versions[0]["size_bytes"] == 60, "the stored version is untouched"


def test_per_token_throttle(api, monkeypatch, paused):
    from django.core.cache import cache

    from apps.accounts.throttles import TokenRateThrottle

    # monkeypatch restores the class attribute afterwards, so no other test is throttled.
    monkeypatch.setattr(
        TokenRateThrottle, "THROTTLE_RATES", {**TokenRateThrottle.THROTTLE_RATES, "token": "5/min"}
    )
    cache.clear()
    try:
        codes = [api.get("/api/benchmarks/").status_code for _ in range(7)]
    finally:
        cache.clear()
    assert codes[:5] == [200] * 5 and codes[5:] == [429, 429]


def test_forms_need_csrf(user, synced):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    response = browser.post(
        "/launch/", {"benchmark": "probe", "method": "probe_fast", "seeds": "0"}
    )
    assert response.status_code == 403 and Run.objects.count() == 0


def test_security_headers(user, synced):
    browser = Client()
    browser.force_login(user)
    response = browser.get("/")
    assert response["X-Content-Type-Options"] == "nosniff" and response["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize(
    ("env", "secure"),
    [
        ({}, "False"),
        (
            {"DATABASE_URL": "postgres://x@127.0.0.1/db", "REDIS_URL": "redis://127.0.0.1:6379/0"},
            "True",
        ),
    ],
)
def test_secure_cookies_in_the_services_profile(env, secure, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG")
    }
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import crucible.settings as s; print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.PROFILE)",
        ],
        env={
            **clean,
            **env,
            "CRUCIBLE_VAR_DIR": str(tmp_path),
            "PYTHONPATH": f"{root / 'platform'}:{root}",
        },
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out[:2] == [secure, secure] and out[2] == ("services" if env else "embedded")
