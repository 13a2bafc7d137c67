"""Hidden ground truth never leaves the server: every API route and page is swept for a
marker that only a private artifact holds."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from apps.runs.models import Artifact, Run
from tests.platform.probe_plugin import hidden_marker

pytestmark = pytest.mark.django_db


def _routes(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _routes(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern)


def _concrete(route: str, values: dict[str, str]) -> str | None:
    """Turn a route pattern into a URL, filling parameters with known object ids."""
    path = route.lstrip("^").rstrip("$").replace("\\Z", "").replace("\\.", ".")
    if "(?P<format>" in path or "<drf_format_suffix" in path:
        return None

    def fill(match):
        name = match.group(1) or match.group(2)
        return values.get(name, "x")

    path = re.sub(r"\(\?P<(\w+)>[^)]*\)|<(?:\w+:)?(\w+)>", fill, path)
    return "/" + path


def test_no_route_or_page_shows_hidden_ground_truth(api, eager, staff):
    with eager(execute=True):
        run_id = api.post(
            "/api/runs/",
            {
                "benchmark": "probe",
                "method": "probe_fast",
                "seed": 5,
                "benchmark_config": {"steps": 4, "hidden_truth": True, "artifact": True},
            },
            format="json",
        ).json()["id"]
    run = Run.objects.get(pk=run_id)
    assert run.status == "succeeded"
    marker = hidden_marker(5)
    private = Artifact.objects.get(run=run, name="truth.json")
    assert private.private and marker.encode() in private.file.read(), (
        "the marker is stored server-side"
    )

    values = {
        "pk": str(run_id),
        "run_id": str(run_id),
        "id": str(run_id),
        "name": "probe",
        "benchmark": "probe",
        "key": "platform-probe",
        "sweep_id": "1",
        "action": "pause",
    }
    admin = Client()
    admin.force_login(staff)
    visited = 0
    for route in sorted(set(_routes())):
        url = _concrete(route, values)
        if url is None or url.startswith("/accounts/logout") or "/admin/" in url and "<" in route:
            continue
        for client, label in ((api, "token"), (admin, "staff session")):
            for candidate in {url, re.sub(r"/artifacts/[^/]+/$", "/artifacts/truth.json/", url)}:
                response = client.get(candidate)
                body = (
                    b"".join(response.streaming_content) if response.streaming else response.content
                )
                assert marker.encode() not in body, (
                    f"{label} GET {candidate} leaks the hidden marker"
                )
                visited += 1
    assert visited > 60
    # The sweep did ask for the private artifact by name (and got a 404).
    assert api.get(f"/api/runs/{run_id}/artifacts/truth.json/").status_code == 404
