"""Browser pages render, the launch form is generated from the schema with errors next to fields."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.runs.models import Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user, synced):
    c = Client()
    c.force_login(user)
    return c


def test_login_required(synced):
    response = Client().get("/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_login_page_and_login(user, synced):
    c = Client()
    assert c.get("/accounts/login/").status_code == 200
    response = c.post("/accounts/login/", {"username": "alice", "password": "alice-password-1"})
    assert response.status_code == 302
    assert c.get("/").status_code == 200


def test_home_lists_benchmarks(browser):
    html = browser.get("/").content.decode()
    assert "/benchmarks/cash/" in html and "/benchmarks/probe/" in html


def test_launch_form_is_generated_from_schema(browser):
    html = browser.get("/launch/?benchmark=probe&method=probe_fast").content.decode()
    assert 'name="benchmark_config.steps"' in html and 'min="1"' in html and 'max="100000"' in html
    assert "number of steps" in html  # help text from the pydantic description
    assert 'name="method_config.rate"' in html and 'value="1.0"' in html


def test_launch_form_shows_errors_next_to_fields(browser):
    response = browser.post(
        "/launch/",
        {
            "benchmark": "probe",
            "method": "probe_fast",
            "benchmark_config.steps": "0",
            "method_config.rate": "abc",
            "seeds": "0",
        },
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert (
        html.count("field-error") >= 2
        and "greater than or equal to 1" in html
        and "not a valid number" in html
    )
    assert Run.objects.count() == 0


def test_launch_submits_run_and_sweep(browser, eager):
    with eager(execute=True):
        response = browser.post(
            "/launch/",
            {
                "benchmark": "probe",
                "method": "probe_fast",
                "benchmark_config.steps": "3",
                "method_config.rate": "2",
                "seeds": "4",
            },
        )
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/"
    assert run.seed == 4 and run.method_config["rate"] == 2.0 and run.status == "succeeded"
    with eager(execute=True):
        response = browser.post(
            "/launch/",
            {
                "benchmark": "probe",
                "method": "probe_fast",
                "seeds": "0,1",
                "grid": '{"benchmark.steps": [2, 3]}',
            },
        )
    assert response.status_code == 302 and Run.objects.count() == 5
    assert "/sweeps/" in response["Location"]
    sweep_html = browser.get(response["Location"]).content.decode()
    assert all(f'data-run="{r.pk}"' in sweep_html for r in Run.objects.filter(sweep__isnull=False))


def test_run_page_compare_and_leaderboard_render(browser, eager):
    with eager(execute=True):
        for seed in (0, 1):
            browser.post(
                "/launch/", {"benchmark": "probe", "method": "probe_fast", "seeds": str(seed)}
            )
    a, b = Run.objects.order_by("id")
    html = browser.get(f"/runs/{a.pk}/").content.decode()
    assert "progress-bar" in html and "/vendor/plotly.min.js" in html and "run.js" in html
    csv_link = f"/api/runs/{a.pk}/metrics/?export=csv"
    assert csv_link in html  # the page's "download CSV" of the curves works with its session
    assert b"".join(browser.get(csv_link).streaming_content).startswith(b"key,step,value\n")
    html = browser.get(f"/runs/compare/?ids={a.pk}&ids={b.pk}").content.decode()
    assert "differs" in html and "seed" in html
    html = browser.get("/benchmarks/probe/").content.decode()
    assert "leaderboard.js" in html and "probe_fast" in html
    assert browser.get("/benchmarks/probe/?export=csv")["Content-Type"] == "text/csv"
    assert browser.get("/vendor/plotly.min.js").status_code == 200


def test_papers_page_lists_seed_papers(browser):
    html = browser.get("/papers/").content.decode()
    assert "Put CASH on Bandits" in html and "Headline claim" in html


def test_pools_page_is_staff_only(browser, staff):
    assert browser.get("/pools/").status_code == 302
    c = Client()
    c.force_login(staff)
    html = c.get("/pools/").content.decode()
    assert "pool.default" in html
    c.post("/pools/default/pause/")
    from apps.pools.models import WorkerPool

    assert WorkerPool.objects.get(name="default").paused


def test_api_schema_and_docs_served_locally(browser):
    schema = browser.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/runs/" in schema.content
    docs = browser.get("/api/docs/").content.decode()
    assert "cdn" not in docs.lower() and "swagger" in docs.lower()


def test_dataset_upload_url_and_generator(api, tmp_path, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.CELERY_TASK_ALWAYS_EAGER = True
    up = api.post(
        "/api/datasets/",
        {"name": "my-csv", "file": SimpleUploadedFile("a.csv", b"x,y\n1,2\n")},
        format="multipart",
    )
    assert (
        up.status_code == 201 and up.json()["version"] == 1 and len(up.json()["content_hash"]) == 64
    )
    again = api.post(
        "/api/datasets/",
        {"name": "my-csv", "file": SimpleUploadedFile("a.csv", b"x,y\n1,2\n")},
        format="multipart",
    )
    assert again.json()["id"] == up.json()["id"], "identical content reuses the version"
    bad = api.post(
        "/api/datasets/", {"name": "u", "url": "ftp://x", "sha256": "0" * 64}, format="json"
    )
    assert bad.status_code == 400 and "url" in bad.json()["errors"]
    neither = api.post("/api/datasets/", {"name": "n"}, format="json")
    assert neither.status_code == 400 and "source" in neither.json()["errors"]
    gen = api.post(
        "/api/datasets/",
        {"name": "gen", "benchmark": "probe", "params": {"seed": 1}},
        format="json",
    )
    assert gen.status_code == 201 and gen.json()["source"] == "generator"


def test_run_list_page_queries_do_not_grow_with_runs(browser, user, django_assert_max_num_queries):
    """The table loads only the columns it shows (selectors.RUN_TABLE_FIELDS): a deferred
    column read by the template would cost one query per row."""
    from apps.runs.services import run_submit

    for seed in range(12):
        run_submit(user=user, benchmark="probe", method="probe_fast", seed=seed)
    with django_assert_max_num_queries(8):
        html = browser.get("/runs/").content.decode()
    assert html.count('name="ids"') == 12 and "probe_fast" in html and "queued" in html
    with django_assert_max_num_queries(12):
        assert browser.get("/").status_code == 200
