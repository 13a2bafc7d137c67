"""Property-based fuzzing of every API operation from the OpenAPI schema (Schemathesis):
no server errors, and documented responses match the schema."""

from __future__ import annotations

import pytest
import schemathesis
from crucible.wsgi import application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


@pytest.fixture
def token(user, synced):
    from apps.accounts.services import api_token_create
    from apps.pools.models import WorkerPool

    WorkerPool.objects.filter(name="default").update(
        paused=True
    )  # submitted runs stay queued, no broker
    _, raw = api_token_create(user=user, scopes=["read", "submit"])
    return raw


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_api_operation(case, token):
    case.call_and_validate(
        headers={"Authorization": f"Bearer {token}"},
        checks=[not_a_server_error, response_schema_conformance, content_type_conformance],
    )
