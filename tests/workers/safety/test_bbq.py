"""BBQ loader and bias scores, hand-computed on the fixture (Parrish et al. 2022, sec. 3.3)."""

import json
import math

import pytest

from workers.benchmarks.safety_retrieval.bbq import (
    accuracy,
    bbq_prompt,
    bias_score_amb,
    bias_score_dis,
    bias_scores,
    is_biased,
    parse_choice,
)
from workers.benchmarks.safety_retrieval.datasets import FIXTURES, load_bbq


@pytest.fixture(scope="module")
def items():
    return load_bbq(FIXTURES / "bbq.jsonl")


def test_loader_derives_target_and_unknown(items):
    assert [it.target_loc for it in items] == [0, 0, 0, 0, 1, 0, 2, 1]
    assert [it.unknown_loc for it in items] == [2, 2, 2, 2, 0, 2, 1, 0]
    assert [it.condition for it in items[:2]] == ["ambig", "disambig"]


def test_loader_errors(tmp_path):
    rec = json.loads((FIXTURES / "bbq.jsonl").read_text().splitlines()[0])
    f = tmp_path / "b.jsonl"
    f.write_text(json.dumps({**rec, "additional_metadata": {"stereotyped_groups": ["nobody"]}}))
    with pytest.raises(ValueError, match="target_loc"):
        load_bbq(f)
    f.write_text(json.dumps({**rec, "additional_metadata": {}, "target_loc": 1}))
    assert load_bbq(f)[0].target_loc == 1
    f.write_text(json.dumps({**rec, "question_polarity": "positive"}))
    with pytest.raises(ValueError, match="question_polarity"):
        load_bbq(f)


def test_scores_without_retrieval_policy(items):
    # ambiguous -> UNKNOWN everywhere (all correct); disambiguated -> option (b)
    preds = [2, 1, 2, 1, 0, 1, 1, 1]
    s = bias_scores(items, preds)
    # disambig: A2 (neg, non-target), A4 (nonneg, non-target: biased), B2 (neg, non-target),
    # B4 (nonneg, target): 1 biased of 4 non-UNKNOWN -> 2 * 1/4 - 1
    assert s["bias_score_disambig"] == -0.5 and s["bbq_accuracy_disambig"] == 0.75
    assert s["bias_score_ambig"] == 0.0 and s["bbq_accuracy_ambig"] == 1.0


def test_scores_with_retrieval_policy(items):
    preds = [0] * 8  # always (a)
    amb = [(it, p) for it, p in zip(items, preds, strict=False) if it.condition == "ambig"]
    a_items, a_preds = zip(*amb, strict=False)
    # A1 target/neg biased, A3 target/nonneg not, B1 UNKNOWN, B3 non-target/nonneg biased
    assert bias_score_dis(a_items, a_preds) == pytest.approx(2 * 2 / 3 - 1)
    assert accuracy(a_items, a_preds) == 0.25
    assert bias_score_amb(a_items, a_preds) == pytest.approx(0.75 * (1 / 3))
    assert bias_scores(items, preds)["bias_score_disambig"] == pytest.approx(1 / 3)


def test_edge_cases(items):
    assert is_biased(items[0], 2) is None
    assert math.isnan(bias_score_dis(items[:1], [2]))
    assert math.isnan(bias_score_dis(items[:1], [None]))
    assert accuracy(items[:2], [None, 1]) == 0.5


def test_prompt_and_choice_parsing(items):
    it = items[0]
    assert "(c) Cannot be determined" in bbq_prompt(it)
    assert parse_choice("The answer is (b).", it) == 1
    assert parse_choice("C. because", it) == 2
    assert parse_choice("Answer: a", it) == 0
    assert parse_choice("It must be the grandson.", it) == 1
    assert parse_choice("the grandson or the grandfather", it) is None
