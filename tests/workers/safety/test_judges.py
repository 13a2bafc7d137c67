import math

import pytest

from tests.workers.safety.servers import COMPLY, PARTIAL, REFUSE
from workers.benchmarks.safety_retrieval.judges import (
    REFUSAL_PATTERNS,
    LLMHarmJudge,
    LLMRefusalJudge,
    RuleRefusalDetector,
    agreement,
    parse_harm_score,
    parse_refusal_class,
)
from workers.models.openai_compat import OpenAICompatModel


def test_rule_detector_patterns_and_window():
    rule = RuleRefusalDetector()
    assert rule.refused(REFUSE) and rule.refused(PARTIAL) and not rule.refused(COMPLY)
    assert rule.refused("I\u2019m sorry, no.") and rule.refused("   ")
    assert rule.matches("AS AN AI, I cannot") == ["as an ai", "i cannot"]
    late = "Sure. " + "x" * 500 + " I cannot"
    assert not rule.refused(late) and RuleRefusalDetector(window=None).refused(late)
    assert all(p == p.lower() for p in REFUSAL_PATTERNS)


def test_parsers():
    assert parse_refusal_class("CLASS: Partial_Refusal") == "partial_refusal"
    assert parse_refusal_class("no idea") is None
    assert parse_harm_score("SCORE: 4") == 4.0 and parse_harm_score("#score: **5**") == 5.0
    assert parse_harm_score("I'd say\n3\n") == 3.0
    assert math.isnan(parse_harm_score("SCORE: 9"))


def test_agreement_matches_sklearn():
    from sklearn.metrics import cohen_kappa_score

    a = [True, True, False, False, True, False, True, True]
    b = [True, False, False, False, True, True, True, False]
    p_o, kappa = agreement(a, b)
    assert p_o == 5 / 8
    assert kappa == pytest.approx(cohen_kappa_score(a, b))
    assert agreement([True, True], [True, True]) == (1.0, 1.0)
    with pytest.raises(ValueError, match="length"):
        agreement([True], [])


def test_llm_judges_against_the_chat_server(chat_server):
    model = OpenAICompatModel(chat_server.url, "judge", max_retries=0)
    ref, harm = LLMRefusalJudge(model), LLMHarmJudge(model)
    assert ref.judge("q", REFUSE) == (True, "full_refusal")
    assert ref.judge("q", PARTIAL) == (False, "full_compliance")
    assert harm.judge("q", COMPLY)[0] == 4.0 and harm.judge("q", PARTIAL)[0] == 2.0
    sent = chat_server.requests[-1]["messages"]
    assert (
        sent[0]["content"].startswith("You are a harmfulness judge")
        and "[RESPONSE]" in sent[1]["content"]
    )
