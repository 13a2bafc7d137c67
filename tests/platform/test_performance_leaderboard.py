"""Pre-aggregated leaderboards (apps/leaderboards/aggregates.py): the same numbers as
aggregating the visible runs' summary rows directly, paging, staleness, bounded queries."""

from __future__ import annotations

from collections import defaultdict

import pytest

from apps.leaderboards.stats import ci95_from_moments

pytestmark = pytest.mark.django_db


def reference_board(user) -> dict[tuple, dict[str, dict]]:
    """What the board must say: every visible, succeeded, non-chunk run's summary rows,
    grouped by (method, model, config) and metric, aggregated here in Python."""
    from apps.runs.models import SummaryMetric
    from apps.runs.selectors import runs_visible

    runs = {
        r.pk: r
        for r in runs_visible(user).filter(
            status="succeeded", is_chunk=False, benchmark__name="probe"
        )
    }
    cells: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for sm in SummaryMetric.objects.filter(run_id__in=runs):
        run = runs[sm.run_id]
        cells[(run.method.name, run.model.name if run.model else None, run.config_hash)][
            sm.key
        ].append(sm.value)
    out = {}
    for group, by_key in cells.items():
        out[group] = {}
        for key, values in by_key.items():
            present = [v for v in values if v is not None]
            mean = sum(present) / len(present) if present else None
            mean_sq = sum(v * v for v in present) / len(present) if present else None
            out[group][key] = {
                "mean": mean,
                "ci95": ci95_from_moments(mean, mean_sq, len(values)),
                "n": len(values),
            }
    return out


def board_as_dict(board: dict) -> dict[tuple, dict[str, dict]]:
    return {(r["method"], r["model"], r["config_hash"]): r["metrics"] for r in board["rows"]}


def assert_same(board: dict, reference: dict) -> None:
    got = board_as_dict(board)
    assert got.keys() == reference.keys()
    for group, metrics in reference.items():
        assert got[group].keys() == metrics.keys()
        for key, want in metrics.items():
            have = got[group][key]
            assert have["n"] == want["n"]
            assert (
                have["mean"] == pytest.approx(want["mean"])
                if want["mean"] is not None
                else have["mean"] is None
            )
            assert (
                have["ci95"] == pytest.approx(want["ci95"])
                if want["ci95"] is not None
                else have["ci95"] is None
            )


@pytest.fixture
def mixed(api, eager, user):
    """Two methods, three configurations, several seeds, a NaN summary (stored as null), and a
    team-only run of another user that alice must not see."""
    from apps.accounts.services import user_create
    from apps.runs.services import run_submit

    bob = user_create(username="bob", password="bob-password-1")
    with eager(execute=True):
        api.post(
            "/api/sweeps/",
            {
                "benchmark": "probe",
                "method": "probe_fast",
                "seeds": [0, 1, 2],
                "grid": {"method.rate": [1.0, 2.0]},
                "benchmark_config": {"steps": 3},
            },
            format="json",
        )
        api.post(
            "/api/sweeps/",
            {
                "benchmark": "probe",
                "method": "probe_slow",
                "seeds": [0, 1],
                "benchmark_config": {"steps": 3, "nan_metric": True},
            },
            format="json",
        )
        run_submit(
            user=bob,
            benchmark="probe",
            method="probe_slow",
            benchmark_config={"steps": 3},
            seed=5,
            visibility="team",
        )
    return user, bob


def test_board_matches_direct_aggregation_per_viewer(mixed):
    from apps.catalog.models import Benchmark
    from apps.leaderboards.selectors import leaderboard

    alice, bob = mixed
    bench = Benchmark.objects.get(name="probe")
    for viewer in (alice, bob, None):
        board = leaderboard(benchmark=bench, user=viewer, all_columns=True)
        assert_same(board, reference_board(viewer))
    assert (
        len(board_as_dict(leaderboard(benchmark=bench, user=bob)))
        == len(board_as_dict(leaderboard(benchmark=bench, user=alice))) + 1
    )


def test_rebuild_after_delete_and_after_a_fresh_start(mixed):
    from apps.catalog.models import Benchmark
    from apps.leaderboards.aggregates import aggregates_rebuild
    from apps.leaderboards.models import BoardCell, BoardState
    from apps.leaderboards.selectors import leaderboard
    from apps.runs.models import Run

    alice, _ = mixed
    bench = Benchmark.objects.get(name="probe")
    before = {
        (c.method_id, c.config_hash, c.key, c.team_pk): (c.n, c.total)
        for c in BoardCell.objects.all()
    }
    aggregates_rebuild(bench.pk)  # incremental cells == cells rebuilt from scratch
    after = {
        (c.method_id, c.config_hash, c.key, c.team_pk): (c.n, c.total)
        for c in BoardCell.objects.all()
    }
    assert before.keys() == after.keys()
    assert all(
        before[k][0] == after[k][0] and before[k][1] == pytest.approx(after[k][1]) for k in before
    )

    Run.objects.filter(method__name="probe_fast", status="succeeded").first().delete()
    assert BoardState.objects.get(benchmark=bench).stale
    assert_same(leaderboard(benchmark=bench, user=alice, all_columns=True), reference_board(alice))
    assert not BoardState.objects.get(benchmark=bench).stale

    BoardState.objects.all().delete()
    BoardCell.objects.all().delete()  # an existing deployment before the cells existed
    assert_same(leaderboard(benchmark=bench, user=alice, all_columns=True), reference_board(alice))


def test_paging_ranks_and_totals(api, mixed):
    full = api.get("/api/leaderboards/probe/").json()
    assert full["total_rows"] == len(full["rows"]) == 3 and [r["rank"] for r in full["rows"]] == [
        1,
        2,
        3,
    ]
    losses = [r["metrics"]["loss"]["mean"] for r in full["rows"]]
    assert losses == sorted(losses)  # loss: lower is better
    page = api.get("/api/leaderboards/probe/?limit=1&offset=1").json()
    assert page["total_rows"] == 3 and [r["rank"] for r in page["rows"]] == [2]
    assert page["rows"][0]["config_hash"] == full["rows"][1]["config_hash"]
    past = api.get("/api/leaderboards/probe/?offset=10").json()  # past the end: still counted
    assert past["rows"] == [] and past["total_rows"] == 3
    assert api.get("/api/leaderboards/probe/?limit=0").status_code == 400
    assert api.get("/api/leaderboards/probe/?offset=x").status_code == 400
    csv_lines = (
        api.get("/api/leaderboards/probe/?export=csv&limit=1").content.decode().strip().splitlines()
    )
    assert len(csv_lines) == 1 + 3  # exports carry every row whatever the page size


def test_query_count_bounded_by_page_not_by_runs(api, eager, django_assert_max_num_queries):
    with eager(execute=True):
        api.post(
            "/api/sweeps/",
            {
                "benchmark": "probe",
                "method": "probe_fast",
                "seeds": [0, 1],
                "grid": {"method.rate": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]},
                "benchmark_config": {"steps": 2},
            },
            format="json",
        )
    with django_assert_max_num_queries(8):
        board = api.get("/api/leaderboards/probe/?limit=4").json()
    assert board["total_rows"] == 6 and len(board["rows"]) == 4 and board["rows"][0]["seeds"] == 2


def test_default_board_carries_only_the_declared_columns_and_the_page_builds_it_once(mixed):
    """The page derives its table from the all-columns board it needs for the comparison
    figure: the cut-down board must equal the declared-columns board exactly."""
    from apps.catalog.models import Benchmark
    from apps.leaderboards.selectors import board_declared_only, leaderboard

    alice, _ = mixed
    bench = Benchmark.objects.get(name="probe")
    declared = leaderboard(benchmark=bench, user=alice)
    full = leaderboard(benchmark=bench, user=alice, all_columns=True)
    names = {m["name"] for m in bench.metrics}
    assert all(set(r["metrics"]) <= names for r in declared["rows"])
    assert any("odd" in r["metrics"] for r in full["rows"])  # the NaN-only key of probe_slow
    assert board_declared_only(full, bench.metrics) == declared


def test_logged_keys_are_those_of_cells_the_viewer_may_see(api, eager, user):
    """A key only a colleague's team-only run logged is not a column of alice's board."""
    check_logged_keys(eager, user)


@pytest.mark.services
def test_logged_keys_loose_index_scan_on_postgresql(api, eager, user):
    """The recursive CTE again, on PostgreSQL (the services profile's database)."""
    check_logged_keys(eager, user)


def check_logged_keys(eager, user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.accounts.services import user_create
    from apps.catalog.models import Benchmark, Method
    from apps.leaderboards.models import BoardCell
    from apps.leaderboards.selectors import cells_visible_q, leaderboard, logged_keys
    from apps.runs.services import run_submit

    bob = user_create(username="bob", password="bob-password-1")
    with eager(execute=True):
        run_submit(user=user, benchmark="probe", method="probe_fast", benchmark_config={"steps": 2})
        run_submit(
            user=bob,
            benchmark="probe",
            method="probe_slow",
            benchmark_config={"steps": 2, "nan_metric": True},
            visibility="team",
        )
    bench = Benchmark.objects.get(name="probe")
    cells = lambda viewer: BoardCell.objects.filter(cells_visible_q(viewer), benchmark=bench)  # noqa: E731
    with CaptureQueriesContext(connection) as queries:
        assert logged_keys(cells(user)) == ["loss", "score"]
    assert "WITH RECURSIVE" in queries.captured_queries[-1]["sql"]  # the index scan, not DISTINCT
    assert logged_keys(cells(bob)) == ["loss", "odd", "score"]
    fast = Method.objects.filter(name="probe_fast").values("pk")
    assert logged_keys(cells(bob).filter(method_id__in=fast)) == ["loss", "score"]
    assert logged_keys(cells(bob).filter(method__name="probe_slow")) == ["loss", "odd", "score"]
    alice_columns = [
        m["name"] for m in leaderboard(benchmark=bench, user=user, all_columns=True)["metrics"]
    ]
    assert "odd" not in alice_columns
    assert "odd" in [
        m["name"] for m in leaderboard(benchmark=bench, user=bob, all_columns=True)["metrics"]
    ]
