from __future__ import annotations

import json

import pytest

from workers.benchmarks.stark.plugin import StarkBenchmark
from workers.core import InMemoryRunContext
from workers.core.config import ConfigError
from workers.methods.stark_classical.plugin import StarkClassical


def run(bench_cfg: dict, method_cfg: dict | None = None, **ctx_kw):
    # the classes directly: the registry would import every other plugin of the platform
    ctx = InMemoryRunContext(seed=0, **ctx_kw)
    StarkBenchmark(bench_cfg).run(ctx, StarkClassical(method_cfg or {}))
    return ctx


def test_default_run_on_the_sample(sample_dir):
    ctx = run({})
    s = ctx.summary
    assert "success_rate" in s and s["n_instances"] == 146 and s["n_not_applicable"] == 7  # tier 3
    assert s["accuracy_tier2"] >= 0.97 and s["unparseable_rate"] == 0.0
    assert ctx.progress_updates[-1][:2] == (146, 146)
    rows = json.loads(ctx.artifacts["instances.json"][0])["instances"]
    row = next(r for r in rows if r["id"] == "tier2_v2_temporal/meets/0")
    assert {"prompt", "response", "ground_truth", "correct"} <= set(row)
    assert next(r for r in rows if r["tier"] == 3)["applicable"] is False
    assert ctx.artifacts["error_by_family"][1] == "application/vnd.plotly+json"
    assert "stark-sample" in ctx.datasets and "stark/tier2_v2_temporal/meets" in ctx.datasets


def test_hidden_split_and_chunks(sample_dir):
    ctx = run(
        {
            "split": "test",
            "families": "temporal",
            "limit_per_task": 4,
            "n_chunks": 2,
            "chunk_index": 1,
        }
    )
    rows = json.loads(ctx.artifacts["instances.json"][0])["instances"]
    assert rows and all("ground_truth" not in r and "correct" not in r for r in rows)
    assert ctx.progress_updates[-1][2] == "chunk 2/2"


def test_generator_source_runs_end_to_end():
    ctx = run(
        {
            "source": "generator",
            "tasks": "loc_range,track_bearing_online,during,Point_Polygon_touches",
            "gen_per_task": 2,
            "limit_per_task": 2,
        }
    )
    assert ctx.summary["n_instances"] == 8 and ctx.summary["accuracy_tier2"] == 1.0


def test_bad_configs_fail_with_the_field_name():
    with pytest.raises(ConfigError, match="limit_per_task"):
        StarkBenchmark({"limit_per_task": 0})
    # names and chunk bounds are checked by pydantic, before any data is read
    with pytest.raises(ConfigError, match="families") as err:
        StarkBenchmark({"families": "localization, astrology"})
    assert "unknown family ['astrology']" in str(err.value)
    with pytest.raises(ConfigError, match="tasks"):
        StarkBenchmark({"tasks": "loc_range,loc_telepathy"})
    with pytest.raises(ConfigError, match="chunk_index"):
        StarkBenchmark({"n_chunks": 2, "chunk_index": 2})
    StarkBenchmark({"families": "tracking", "tasks": "meets", "n_chunks": 3, "chunk_index": 2})


def test_registered_under_the_agreed_slugs():
    from workers.core.registry import _BENCHMARKS, _METHODS

    assert _BENCHMARKS["stark"] is StarkBenchmark and _METHODS["stark_classical"] is StarkClassical
    assert StarkBenchmark.primary_metric().name == "success_rate"


def test_comparison_figure_puts_methods_side_by_side_per_family():
    from workers.benchmarks.stark.figures import compare_by_family, entries_from_leaderboard

    board = {
        "rows": [
            {"method": "stark_classical", "model": None, "config_hash": "aaaaaaaa",
             "metrics": {"success__spatial": {"mean": 1.0, "ci95": 0.0},
                         "success__tracking": {"mean": 0.25, "ci95": 0.1},
                         "nerr__loc_range": {"mean": 0.01, "ci95": 0.002}}},
            {"method": "stark_llm_text", "model": "m1", "config_hash": "bbbbbbbb",
             "metrics": {"success__spatial": {"mean": 0.6, "ci95": 0.05}}},
            {"method": "stark_llm_text", "model": "m1", "config_hash": "cccccccc",
             "metrics": {"success__spatial": {"mean": 0.7, "ci95": 0.05}}},
        ]
    }  # fmt: skip
    entries = entries_from_leaderboard(board)
    assert list(entries)[0] == "stark_classical / -" and len(entries) == 3  # no row hidden
    fig = compare_by_family(entries).to_plotly_json()
    bars = [t for t in fig["data"] if t["xaxis"] == "x"]
    assert [t["name"] for t in bars] == list(entries)
    assert list(bars[0]["x"]) == ["tracking", "spatial"]  # catalogue order, families present only
    assert list(bars[0]["y"]) == pytest.approx([0.75, 0.0])  # failure = 1 - success
    assert bars[1]["y"][0] is None and bars[1]["y"][1] == pytest.approx(0.4)
    assert list(bars[0]["error_y"]["array"]) == [0.1, 0.0]
    with pytest.raises(ValueError, match="entries"):
        compare_by_family({})
