"""Tokens: hashed at rest, scoped, expiring, revocable; anonymous access refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import ApiToken
from apps.accounts.services import api_token_create, api_token_revoke

pytestmark = pytest.mark.django_db


def client_with(raw: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return c


def test_token_is_hashed_and_shown_once(user):
    token, raw = api_token_create(user=user)
    assert (
        raw.startswith("cru_")
        and raw not in token.key_hash
        and token.key_hash == ApiToken.hash_key(raw)
    )
    listing = client_with(raw).get("/api/tokens/").json()
    assert all("token" not in t and raw not in str(t) for t in listing)


def test_anonymous_is_refused(synced):
    assert APIClient().get("/api/runs/").status_code in (401, 403)
    assert APIClient().get("/api/benchmarks/").status_code in (401, 403)


def test_read_scope_cannot_submit(user, synced):
    _, raw = api_token_create(user=user, scopes=["read"])
    c = client_with(raw)
    assert c.get("/api/benchmarks/").status_code == 200
    response = c.post("/api/runs/", {"benchmark": "probe", "method": "probe_fast"}, format="json")
    assert response.status_code == 403 and "submit" in response.json()["detail"]


def test_revoked_and_expired_tokens_are_rejected(user, synced):
    token, raw = api_token_create(user=user)
    assert client_with(raw).get("/api/benchmarks/").status_code == 200
    api_token_revoke(token=token)
    assert client_with(raw).get("/api/benchmarks/").status_code == 401
    token2, raw2 = api_token_create(user=user)
    ApiToken.objects.filter(pk=token2.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert client_with(raw2).get("/api/benchmarks/").status_code == 401
    assert client_with("cru_not-a-token").get("/api/benchmarks/").status_code == 401


def test_admin_scope_needs_staff(user, staff, synced):
    with pytest.raises(Exception, match="staff"):
        api_token_create(user=user, scopes=["admin"])
    _, raw = api_token_create(user=user, scopes=["read", "submit"])
    assert client_with(raw).post("/api/pools/default/pause/").status_code == 403
    _, raw_admin = api_token_create(user=staff, scopes=["read", "admin"])
    response = client_with(raw_admin).post("/api/pools/default/pause/")
    assert response.status_code == 200 and response.json()["paused"] is True


def test_team_runs_are_private(api, synced, settings):
    from apps.accounts.services import user_create
    from apps.pools.models import WorkerPool

    WorkerPool.objects.filter(name="default").update(paused=True)
    run_id = api.post(
        "/api/runs/",
        {"benchmark": "probe", "method": "probe_fast", "visibility": "team"},
        format="json",
    ).json()["id"]
    other = user_create(username="bob", password="bob-password-123")
    _, raw = api_token_create(user=other)
    c = client_with(raw)
    assert c.get(f"/api/runs/{run_id}/").status_code == 404
    assert c.post(f"/api/runs/{run_id}/cancel/").status_code == 404
    assert run_id not in [r["id"] for r in c.get("/api/runs/").json()["results"]]


def test_model_api_key_is_encrypted_and_never_returned(api):
    response = api.post(
        "/api/models/",
        {
            "name": "gpt-local",
            "kind": "openai",
            "base_url": "http://127.0.0.1:9/v1",
            "model_id": "m",
            "api_key": "sk-secret-123",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert "sk-secret-123" not in response.content.decode()
    from apps.catalog.crypto import decrypt_secret
    from apps.catalog.models import ModelEntry

    entry = ModelEntry.objects.get(name="gpt-local")
    assert b"sk-secret-123" not in bytes(entry.api_key_encrypted)
    assert decrypt_secret(entry.api_key_encrypted) == "sk-secret-123"
    assert "sk-secret-123" not in api.get("/api/models/gpt-local/").content.decode()
    bad = api.post("/api/models/", {"name": "x", "kind": "openai"}, format="json")
    assert bad.status_code == 400 and {"base_url", "model_id"} <= bad.json()["errors"].keys()


def test_team_roles_decide_who_may_cancel(api, synced):
    """Members of a team see its runs; only maintainers/admins (and the owner) may cancel them."""
    from apps.accounts.models import Membership, Team
    from apps.accounts.services import user_create
    from apps.pools.models import WorkerPool
    from apps.runs.models import Run

    WorkerPool.objects.filter(name="default").update(paused=True)
    team = Team.objects.create(name="lab")
    Membership.objects.create(user=api.user, team=team, role="member")
    member = user_create(username="mia", password="mia-password-123")
    maintainer = user_create(username="max", password="max-password-123")
    Membership.objects.create(user=member, team=team, role="member")
    Membership.objects.create(user=maintainer, team=team, role="maintainer")
    run_id = api.post(
        "/api/runs/",
        {"benchmark": "probe", "method": "probe_fast", "visibility": "team"},
        format="json",
    ).json()["id"]
    Run.objects.filter(pk=run_id).update(team=team)
    member_client = client_with(api_token_create(user=member)[1])
    assert member_client.get(f"/api/runs/{run_id}/").status_code == 200
    assert member_client.post(f"/api/runs/{run_id}/cancel/").status_code == 403
    assert Run.objects.get(pk=run_id).status == "queued"
    maintainer_client = client_with(api_token_create(user=maintainer)[1])
    assert maintainer_client.post(f"/api/runs/{run_id}/cancel/").json()["status"] == "cancelled"


def test_private_datasets_and_models_are_team_only(api, synced):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.accounts.services import user_create

    up = api.post(
        "/api/datasets/",
        {"name": "secret-set", "visibility": "team", "file": SimpleUploadedFile("s.csv", b"a,b\n")},
        format="multipart",
    )
    assert up.status_code == 201
    assert (
        api.post(
            "/api/models/",
            {"name": "secret-model", "kind": "hf_local", "path": "/models/x", "visibility": "team"},
            format="json",
        ).status_code
        == 201
    )
    outsider = client_with(
        api_token_create(user=user_create(username="eve", password="eve-password-123"))[1]
    )
    assert outsider.get("/api/datasets/secret-set/").status_code == 404
    assert outsider.get("/api/models/secret-model/").status_code == 404
    assert "secret-set" not in str(outsider.get("/api/datasets/").json())
    assert api.get("/api/datasets/secret-set/").status_code == 200
