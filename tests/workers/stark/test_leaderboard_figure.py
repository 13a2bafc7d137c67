"""The STARK benchmark page's comparison figure, drawn from a leaderboard with every column."""

from __future__ import annotations

import pytest

from workers.benchmarks.stark.plugin import StarkBenchmark


def _row(method: str, model: str | None, success_spatial: float, nerr: float) -> dict:
    metrics = {
        "success_rate": {"mean": 0.5, "ci95": 0.1, "n": 3},
        "success__spatial": {"mean": success_spatial, "ci95": 0.05, "n": 3},
        "nerr__localization_range_low": {"mean": nerr, "ci95": 0.01, "n": 3},
    }
    return {"method": method, "model": model, "config_hash": "abc123", "metrics": metrics}


def test_failure_rate_per_family_for_each_method_and_model():
    board = {
        "rows": [
            _row("stark_classical", None, 0.98, 0.05),
            _row("stark_llm_text", "tiny", 0.40, 0.9),
        ]
    }
    fig = StarkBenchmark.leaderboard_figure(board)
    bars = [t for t in fig.data if t.type == "bar" and list(t.x) == ["spatial"]]
    assert [t.name for t in bars] == ["stark_classical / -", "stark_llm_text / tiny"]
    assert [pytest.approx(t.y[0]) for t in bars] == [0.02, 0.60]  # failure = 1 - success
    assert [list(t.error_y.array) for t in bars] == [[0.05], [0.05]]


def test_a_board_without_rows_has_nothing_to_compare():
    with pytest.raises(ValueError, match="nothing to compare"):
        StarkBenchmark.leaderboard_figure({"rows": []})
