"""The safety benchmark page's comparison figure: models x mitigations x retrieval conditions."""

from __future__ import annotations

import pytest

from workers.benchmarks.safety_retrieval.plugin import SafetyRetrieval


def _row(model: str, refusal: dict[str, float]) -> dict:
    metrics = {"refusal_rate": {"mean": 0.5, "ci95": 0.1, "n": 2}}
    for cond, value in refusal.items():
        metrics[f"refusal_rate__none__{cond}"] = {"mean": value, "ci95": 0.0, "n": 2}
    return {"method": "retrieval_rag", "model": model, "config_hash": "h", "metrics": metrics}


def test_one_series_per_model_with_conditions_ordered_by_breadth():
    board = {
        "rows": [
            _row("aligned", {"web": 0.4, "none": 0.9, "encyclopedia_bm25": 0.7}),
            _row("uncensored", {"none": 0.3, "web": 0.1}),
        ]
    }
    fig = SafetyRetrieval.leaderboard_figure(board)
    refusal = [t for t in fig.data if t.xaxis in (None, "x")]
    assert {t.name for t in refusal} == {"aligned · retrieval_rag", "uncensored · retrieval_rag"}
    aligned = next(t for t in refusal if t.name.startswith("aligned"))
    assert list(aligned.x[1]) == ["none", "encyclopedia_bm25", "web"]  # none -> encyclopedia -> web
    assert list(aligned.y) == pytest.approx([0.9, 0.7, 0.4])


def test_a_board_without_per_cell_columns_is_refused():
    with pytest.raises(ValueError, match="per-cell columns"):
        SafetyRetrieval.leaderboard_figure(
            {"rows": [{"method": "m", "model": None, "metrics": {}}]}
        )
