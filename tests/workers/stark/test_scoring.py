from __future__ import annotations

import math

import numpy as np
import pytest

from workers.benchmarks.stark.instance import Instance
from workers.benchmarks.stark.results import merge_results, score_predictions, shard, summarize
from workers.benchmarks.stark.scoring import parse_steps, score_instance, stark_parse


def inst(task: str, answer, steps: int = 0) -> Instance:
    return Instance(
        f"{task}/0", task, "prompt", np.asarray(answer, dtype=float), steps=["s"] * steps
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[RESULTS_START] [1.5, 2] [RESULTS_END]", [1.5, 2.0]),
        (
            "I think... [RESULTS_START]\n[ 1.5   2 ]\n[RESULTS_END] done. [RESULTS_START] [9] [RESULTS_END]",
            [1.5, 2.0],
        ),
        ("[RESULTS_START] [[1, 2], [3, 4]] [RESULTS_END]", [[1, 2], [3, 4]]),
        (
            "[RESULTS_START] [x=1.5, y=2.5] [RESULTS_END]",
            [1.5, 2.5],
        ),  # letters dropped, as STARK does
        ("[RESULTS_START] [-1.5, 2] [RESULTS_END]", [1.5, 2.0]),  # STARK drops minus signs too
        ("[RESULTS_START] 7 [RESULTS_END]", 7.0),
    ],
)
def test_stark_parse_reads_like_stark(text, expected):
    np.testing.assert_allclose(stark_parse(text), expected)


@pytest.mark.parametrize(
    "text",
    [
        "the answer is [1, 2]",  # missing tags
        "[RESULTS_START] [1, 2]",  # missing end tag
        "[RESULTS_START] [1, 2 [RESULTS_END]",  # malformed array
        "[RESULTS_START] [[1, 2], [3]] [RESULTS_END]",  # ragged array
        "[RESULTS_START] [] [RESULTS_END]",  # empty
        "[RESULTS_START] unknown [RESULTS_END]",  # no number
        None,
    ],
)
def test_stark_parse_rejects(text):
    assert stark_parse(text) is None


def test_localization_rmse_and_fallback_for_unparseable():
    i = inst("loc_range", [3.0, 4.0])
    good = score_instance(i, "[RESULTS_START] [3.3, 4.4] [RESULTS_END]")
    assert good.parsed and good.error == pytest.approx(math.sqrt((0.09 + 0.16) / 2))
    # reference = RMSE of STARK's centre guess [5, 5] = sqrt((4 + 1) / 2)
    assert good.normalised_error == pytest.approx(good.error / math.sqrt(2.5))
    assert not good.success  # 0.32 > 0.1
    bad = score_instance(i, "no tags here")
    assert not bad.parsed and not bad.success
    assert bad.error == pytest.approx(math.sqrt(2.5))  # STARK scores the [5, 5] fallback
    short = score_instance(i, "[RESULTS_START] [3] [RESULTS_END]")
    assert not short.parsed and short.error is None  # "Invalid prediction" in STARK
    longer = score_instance(i, "[RESULTS_START] [3, 4, 99] [RESULTS_END]")
    assert longer.parsed and longer.error == 0.0 and longer.success  # extra values truncated


def test_event_spatio_temp_splits_position_and_time():
    s = score_instance(
        inst("loc_event_spatio_temp", [1.0, 2.0, 3.0]), "[RESULTS_START] [1, 2, 3.5] [RESULTS_END]"
    )
    assert s.error == 0.0 and s.time_error == pytest.approx(0.5)


def test_field_tasks_use_relative_error():
    s = score_instance(
        inst("spatiotemporal_impute", [3.0, 4.0]), "[RESULTS_START] [3, 5] [RESULTS_END]"
    )
    assert s.error == pytest.approx(1 / 5) and s.normalised_error == pytest.approx(0.2)


def test_binary_tiers():
    i = inst("meets", [1.0])
    assert score_instance(i, "so [RESULTS_START] [1] [RESULTS_END]").correct is True
    assert score_instance(i, "[RESULTS_START] [0] [RESULTS_END]").correct is False
    garbled = score_instance(i, "[RESULTS_START] yes [RESULTS_END]")
    assert not garbled.parsed and not garbled.success and garbled.correct is None


def test_tracking_per_step_blocks_and_whole_array():
    truth = [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    i = inst("track_range_online", truth, steps=3)
    steps = "\n".join(f"[RESULTS_START] [{v}, {v}] [RESULTS_END]" for v in (1, 2, 3))
    assert score_instance(i, steps).error == 0.0
    whole = score_instance(i, "[RESULTS_START] [[1, 1], [2, 2], [3, 3]] [RESULTS_END]")
    assert whole.parsed and whole.error == 0.0
    one_missing = score_instance(
        i, "[RESULTS_START] [1, 1] [RESULTS_END]\noops\n[RESULTS_START] [3, 3] [RESULTS_END]"
    )
    assert (
        not one_missing.parsed
    )  # step 2 read as step 1's neighbour would be wrong: fallbacks fill in
    assert len(parse_steps("", 3)) == 3


def test_summary_counts_unparseable_separately_and_not_applicable():
    a = score_instance(inst("meets", [1.0]), "[RESULTS_START] [1] [RESULTS_END]")
    b = score_instance(inst("meets", [0.0]), "garbage")
    c = score_instance(inst("poi_pred", [1.0]), None, applicable=False)
    summary = summarize([a, b, c])
    assert summary["success_rate"] == 0.5 and summary["unparseable_rate"] == 0.5
    assert summary["n_not_applicable"] == 1 and summary["accuracy__meets"] == 0.5
    assert "accuracy_tier3" not in summary


def test_score_predictions_missing_and_unknown_ids():
    instances = [inst("meets", [1.0]), Instance("x/1", "during", "p", np.array([0.0]))]
    result = score_predictions(
        instances, {"meets/0": "[RESULTS_START] [1] [RESULTS_END]", "zzz": "1"}
    )
    assert result["missing"] == 1 and result["unknown_ids"] == 1
    assert result["summary"]["success_rate"] == 0.5 and result["summary"]["n_missing"] == 1
    assert all("ground_truth" not in row for row in result["scores"])
    with pytest.raises(TypeError):
        score_predictions(instances, [("meets/0", "1")])


def test_shard_and_merge():
    ids = [f"t/{k}" for k in range(10)]
    chunks = shard(ids, 3)
    assert [len(c) for c in chunks] == [4, 3, 3] and sum(chunks, []) == ids
    assert shard(ids[:2], 4) == [["t/0"], ["t/1"], [], []]
    with pytest.raises(ValueError):
        shard(ids, 0)
    scored = [score_instance(inst("meets", [1.0]), "[RESULTS_START] [1] [RESULTS_END]").as_dict()]
    other = score_instance(Instance("x/1", "during", "p", np.array([0.0])), "bad").as_dict()
    merged = merge_results([scored, [other]])
    assert merged["summary"]["n_instances"] == 2 and merged["summary"]["success_rate"] == 0.5
    with pytest.raises(ValueError, match="more than one chunk"):
        merge_results([scored, scored])
