"""Leaderboard aggregation: mean over seeds, 95% t-interval, direction-aware ranking, exports."""

from __future__ import annotations

import csv
import io
import math

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(api, eager):
    with eager(execute=True):
        for method in ("probe_fast", "probe_slow"):
            api.post(
                "/api/sweeps/",
                {
                    "benchmark": "probe",
                    "method": method,
                    "seeds": [0, 1, 2, 3],
                    "benchmark_config": {"steps": 5},
                },
                format="json",
            )


def test_seed_aggregation_and_ranking(api, finished):
    board = api.get("/api/leaderboards/probe/").json()
    assert board["sort"] == "loss" and board["descending"] is False  # loss: lower is better
    assert [r["method"] for r in board["rows"]] == ["probe_fast", "probe_slow"]
    fast = board["rows"][0]["metrics"]["loss"]
    losses = [1 / 6 + 0.01 * s for s in range(4)]
    mean = sum(losses) / 4
    sd = math.sqrt(sum((x - mean) ** 2 for x in losses) / 3)
    assert fast["n"] == 4 and fast["mean"] == pytest.approx(mean)
    assert fast["ci95"] == pytest.approx(3.182446305284263 * sd / 2, rel=1e-6)  # t_{0.975,3}
    by_score = api.get("/api/leaderboards/probe/?sort=score&order=asc").json()
    assert by_score["sort"] == "score" and by_score["descending"] is False


def test_filters_and_exports(api, finished):
    only = api.get("/api/leaderboards/probe/?method=probe_slow").json()
    assert [r["method"] for r in only["rows"]] == ["probe_slow"]
    response = api.get("/api/leaderboards/probe/?export=csv")
    assert response["Content-Type"] == "text/csv"
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:5] == ["rank", "method", "model", "config_hash", "seeds"] and len(rows) == 3
    assert api.get("/api/leaderboards/probe/?sort=nope").status_code == 400
    assert api.get("/api/leaderboards/probe/?order=sideways").status_code == 400
    assert api.get("/api/leaderboards/missing/").status_code == 404


def test_leaderboard_query_count_does_not_grow(api, eager, django_assert_max_num_queries):
    with eager(execute=True):
        api.post(
            "/api/sweeps/",
            {
                "benchmark": "probe",
                "method": "probe_fast",
                "seeds": list(range(8)),
                "grid": {"method.rate": [1.0, 2.0, 3.0]},
                "benchmark_config": {"steps": 2},
            },
            format="json",
        )
    with django_assert_max_num_queries(8):
        board = api.get("/api/leaderboards/probe/").json()
    assert len(board["rows"]) == 3


def test_reproduction_report(api, finished, tmp_path):
    from django.core.management import call_command

    out = tmp_path / "REPRODUCTION.md"
    call_command("crucible_reproduction", output=str(out))
    text = out.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| Platform probe"))
    assert "`probe_fast`" in row and "(n=4)" in row and row.rstrip().endswith("| yes |")
    assert "Put CASH on Bandits" in text  # MaxUCB's row exists even before it has runs


def test_benchmark_page_draws_the_plugins_comparison_figure(api, finished, client, user):
    client.force_login(user)
    page = client.get("/benchmarks/probe/?method=probe_fast")
    assert page.status_code == 200
    figure = page.context["comparison_figure"]
    assert figure["data"][0]["x"] == ["probe_fast"], "drawn from the filtered leaderboard"
    assert b'id="comparison-figure"' in page.content and b'id="comparison-plot"' in page.content


def test_benchmark_without_a_comparison_figure_has_none(api, eager, client, user):
    client.force_login(user)
    page = client.get("/benchmarks/cash/")
    assert page.status_code == 200 and page.context["comparison_figure"] is None
    assert b'id="comparison-plot"' not in page.content


def test_reproduction_report_marks_overlapping_intervals_as_noise():
    from apps.catalog.reproduction import _intervals_separated

    assert _intervals_separated({"mean": 1.0, "ci95": 0.1}, {"mean": 2.0, "ci95": 0.5})
    assert not _intervals_separated({"mean": 0.94, "ci95": 0.55}, {"mean": 0.85, "ci95": 0.92})
    assert not _intervals_separated({"mean": 1.0, "ci95": None}, {"mean": 5.0, "ci95": 0.1})
