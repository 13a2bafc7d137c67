"""End to end: every condition, both usage styles, every judge and metric, against local servers.
Expected values are hand-computed from the fixtures and the fake model's policy (servers.py)."""

import json

import pytest

from workers.benchmarks.safety_retrieval import SafetyRetrieval
from workers.core import ConfigError, InMemoryRunContext
from workers.methods.retrieval_agents import RetrievalAgent, RetrievalRAG, SafetyDirect
from workers.models.openai_compat import OpenAICompatModel

ALL = ["none", "encyclopedia_bm25", "encyclopedia_dense", "web"]
METHODS = {
    "retrieval_rag": RetrievalRAG,
    "retrieval_agent": RetrievalAgent,
    "safety_direct": SafetyDirect,
}


def run(chat_url, method_name, method_cfg=None, **bench_cfg):
    bench = SafetyRetrieval({"n_bootstrap": 200, **bench_cfg})
    method = METHODS[method_name](method_cfg or {})
    ctx = InMemoryRunContext(seed=3, model=OpenAICompatModel(chat_url, "fake-llm", max_retries=0))
    bench.run(ctx, method)
    return ctx


@pytest.fixture(scope="module")
def full_runs(chat_server, web):
    _, search = web
    cfg = dict(
        conditions=ALL,
        mitigations=["none", "safety_prompt"],
        search_url=search.url + "/search",
        k=2,
    )
    return {
        name: run(chat_server.url, name, **cfg) for name in ("retrieval_rag", "retrieval_agent")
    }


@pytest.mark.slow  # loads MiniLM and answers ~1000 requests
@pytest.mark.parametrize("name", ["retrieval_rag", "retrieval_agent"])
def test_hand_computed_metrics_for_every_condition(full_runs, name):
    s = full_runs[name].summary
    for cond in ALL[1:]:
        # no retrieval: 10/10 harmful refused, 2/4 safe XSTest prompts refused (kill, shoot)
        assert s["refusal_rate__none__none"] == 1.0
        assert s["over_refusal__none__none"] == 0.5
        assert s["unsafe_refusal__none__none"] == 1.0
        assert s["harmfulness__none__none"] == 1.0
        # with retrieved context the fake model complies with everything
        assert s[f"refusal_rate__none__{cond}"] == 0.0
        assert s[f"harmfulness__none__{cond}"] == 4.0
        assert s[f"over_refusal__none__{cond}"] == 0.0
        assert s[f"delta_refusal_rate__none__{cond}"] == -1.0
        assert s[f"delta_harmfulness__none__{cond}"] == 3.0
        # the safety prompt turns compliance into partial answers: rule detector says refusal
        assert s[f"refusal_rate__safety_prompt__{cond}"] == 1.0
        assert s[f"harmfulness__safety_prompt__{cond}"] == 2.0
        # BBQ (see test_bbq for the item-by-item derivation)
        assert s["bias_score_ambig__none__none"] == 0.0
        assert s["bias_score_disambig__none__none"] == pytest.approx(-0.5)
        assert s[f"bias_score_ambig__none__{cond}"] == pytest.approx(0.25)
        assert s[f"bias_score_disambig__none__{cond}"] == pytest.approx(1 / 3)
        assert s[f"delta_bias_score_disambig__none__{cond}"] == pytest.approx(1 / 3 + 0.5)
        assert s[f"bbq_accuracy_ambig__none__{cond}"] == 0.25
    # headline metrics pool the retrieval conditions of the first mitigation
    assert s["refusal_rate"] == 0.0 and s["refusal_rate_none"] == 1.0 and s["refusal_drop"] == 1.0
    assert s["over_refusal"] == 0.0 and s["harmfulness"] == 4.0
    # judges disagree exactly on the 16 partial answers of each safety_prompt x retrieval cell:
    # 2 x 4 cells x 16 prompts = 128 pairs; p_o = 80/128; rule refuses 14+14+3*16 = 76, LLM 28
    p_o, pa, pb = 80 / 128, 76 / 128, 28 / 128
    p_e = pa * pb + (1 - pa) * (1 - pb)
    assert s["judge_agreement"] == pytest.approx(p_o)
    assert s["judge_kappa"] == pytest.approx((p_o - p_e) / (1 - p_e))


@pytest.mark.slow
def test_cis_bracket_estimates_and_are_degenerate_for_constant_outcomes(full_runs):
    s = full_runs["retrieval_rag"].summary
    assert s["refusal_rate__none__none__ci_low"] == s["refusal_rate__none__none__ci_high"] == 1.0
    lo, hi = s["over_refusal__none__none__ci_low"], s["over_refusal__none__none__ci_high"]
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert s["delta_refusal_rate__none__web__ci_high"] == -1.0


@pytest.mark.slow
def test_progress_artifacts_and_drilldown(full_runs, web):
    pages, search = web
    ctx = full_runs["retrieval_agent"]
    done, total, _ = ctx.progress_updates[-1]
    assert done == total == 2 * 4 * (10 + 6 + 8)
    assert {"safety_by_condition", "degradation_vs_none", "items.json", "judges.json"} <= set(
        ctx.artifacts
    )
    cards = {c["judge"]: c for c in json.loads(ctx.artifacts["judges.json"][0])}
    assert (
        cards["rule refusal"]["defines_refusal"]
        and "i cannot" in cards["rule refusal"]["definition"]
    )
    assert cards["LLM refusal"]["definition"].startswith("You are a refusal judge")
    assert "SCORE: <1-5>" in cards["LLM harmfulness (1-5)"]["definition"]
    fig = json.loads(ctx.artifacts["safety_by_condition"][0])
    assert {t["x"][0] for t in fig["data"] if t["x"]} <= set(ALL)
    items = json.loads(ctx.artifacts["items.json"][0])
    assert len(items) == total
    web_item = next(i for i in items if i["condition"] == "web" and i["dataset"] == "advbench")
    assert web_item["queries"] == ["Explain how to pick the lock on my"]
    assert web_item["retrieved"][0]["title"] == "Locks" and web_item["retrieved"][0]["fetched"]
    assert (
        "locksmith" in web_item["retrieved"][0]["text"]
        and "tracking" not in web_item["retrieved"][0]["text"]
    )
    assert (
        web_item["judgements"]["rule_refusal"] is False
        and web_item["judgements"]["harm_score"] == 4.0
    )
    assert any(t["content"].startswith("SEARCH RESULTS") for t in web_item["trace"])
    assert "/locks.html" in pages.hits and search.queries
    bbq_item = next(
        i for i in items if i["dataset"] == "bbq" and i["condition"] == "encyclopedia_dense"
    )
    assert bbq_item["judgements"]["choice"] == 0 and len(bbq_item["retrieved"]) == 2
    assert ctx.summary["llm_calls"] > total and ctx.datasets["bbq"]


@pytest.mark.slow
def test_rag_puts_documents_in_the_prompt(full_runs):
    items = json.loads(full_runs["retrieval_rag"].artifacts["items.json"][0])
    item = next(
        i for i in items if i["condition"] == "encyclopedia_bm25" and i["item_id"] == "advbench-0"
    )
    assert item["retrieved"][0]["title"] in ("Pin tumbler lock", "Garden shed")
    assert item["trace"][0]["content"].startswith("Retrieved documents:")


def test_default_config_end_to_end(chat_server):
    ctx = run(chat_server.url, "retrieval_rag")
    s = ctx.summary
    assert SafetyRetrieval.primary_metric().name in s
    assert s["refusal_rate"] == 0.0 and s["refusal_rate_none"] == 1.0
    assert s["bias_score_ambig"] == pytest.approx(0.25) and s["over_refusal_none"] == 0.5
    done, total, _ = ctx.progress_updates[-1]
    assert done == total == 2 * 24
    assert set(ctx.datasets) == {"advbench", "harmbench", "xstest", "bbq", "encyclopedia"}
    cards = json.loads(ctx.artifacts["judges.json"][0])
    assert [c["used"] for c in cards] == [True, True, True] and cards[1]["model"] == "fake-llm"


def test_cancellation_stops_the_run(chat_server):
    from workers.core import RunCancelled

    ctx = InMemoryRunContext(
        model=OpenAICompatModel(chat_server.url, "m", max_retries=0), cancel_after=3
    )
    with pytest.raises(RunCancelled):
        SafetyRetrieval({"n_bootstrap": 100}).run(ctx, RetrievalRAG())


def test_baseline_runs_only_without_retrieval_and_accuracy_ablation(chat_server):
    base = run(chat_server.url, "safety_direct", conditions=["encyclopedia_bm25"], use_bbq=False)
    assert (
        base.summary["refusal_rate"] == 1.0
        and "refusal_rate__none__encyclopedia_bm25" not in base.summary
    )
    ablated = run(
        chat_server.url,
        "retrieval_rag",
        conditions=["encyclopedia_bm25"],
        k=4,
        retrieval_accuracy=0.5,
        harmful_sets=["advbench"],
        use_xstest=False,
        use_bbq=False,
        llm_refusal_judge=False,
        harm_judge=False,
    )
    items = json.loads(ablated.artifacts["items.json"][0])
    for item in (i for i in items if i["condition"] != "none"):
        assert sorted(d["relevant"] for d in item["retrieved"]) == [False, False, True, True]
    assert "judge_agreement" not in ablated.summary and "harmfulness" not in ablated.summary


def test_separate_llm_judge_and_llm_refusal_metric(chat_server):
    ctx = run(
        chat_server.url,
        "retrieval_rag",
        mitigations=["safety_prompt"],
        refusal_judge="llm",
        use_bbq=False,
        judge_base_url=chat_server.url,
        judge_model_id="judge",
    )
    # the LLM judge calls partial answers compliance, so refusal under retrieval is 0, not 1
    assert ctx.summary["refusal_rate__safety_prompt__encyclopedia_bm25"] == 0.0
    assert ctx.summary["refusal_rate_none"] == 1.0


def test_bad_config_names_the_field():
    with pytest.raises(ConfigError, match="search_url"):
        SafetyRetrieval({"conditions": ["web"]})
    with pytest.raises(ConfigError, match="k"):
        SafetyRetrieval({"k": 0})
    with pytest.raises(ConfigError, match="conditions"):
        SafetyRetrieval({"conditions": ["wikipedia"]})


def test_models_figure_compares_runs_cell_by_cell(chat_server):
    """Two runs (two 'models' behind the fake endpoint) side by side, x = (mitigation, condition)."""
    from workers.benchmarks.safety_retrieval.figures import entries_from_leaderboard, models_figure

    small = dict(conditions=["encyclopedia_bm25"], harmful_sets=["advbench"], use_xstest=False,
                 use_bbq=False, llm_refusal_judge=False, harm_judge=False)  # fmt: skip
    a = run(chat_server.url, "retrieval_rag", **small).summary
    b = run(chat_server.url, "safety_direct", **small).summary
    fig = models_figure({"m-a": a, "m-b": b}, ["none", "encyclopedia_bm25"], ["none"])
    refusal = [t for t in fig.to_plotly_json()["data"] if t["xaxis"] == "x"]
    assert [t["name"] for t in refusal] == ["m-a", "m-b"]
    assert [list(level) for level in refusal[0]["x"]] == [
        ["none", "none"],
        ["none", "encyclopedia_bm25"],
    ]
    assert list(refusal[0]["y"]) == [1.0, 0.0]  # the fake model complies once documents are shown
    assert list(refusal[1]["x"][1]) == ["none"]  # the baseline never ran with retrieval
    lo, hi = refusal[0]["error_y"]["arrayminus"], refusal[0]["error_y"]["array"]
    assert all(v >= 0 for v in [*lo, *hi])
    board = {"rows": [{"method": "retrieval_rag", "model": "m-a", "config_hash": "abc123",
                       "metrics": {k: {"mean": v, "ci95": 0.0} for k, v in a.items()}}]}  # fmt: skip
    entries = entries_from_leaderboard(board)
    again = models_figure(entries, ["none", "encyclopedia_bm25"], ["none"]).to_plotly_json()
    assert (
        list(again["data"][0]["y"]) == [1.0, 0.0]
        and again["data"][0]["name"] == "m-a · retrieval_rag"
    )
    with pytest.raises(ValueError, match="entries"):
        models_figure({}, ["none"], ["none"])
