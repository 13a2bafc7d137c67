"""Configuration of the safety_retrieval benchmark (drives the launch form)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from workers.core import PluginConfig

Condition = Literal["none", "encyclopedia_bm25", "encyclopedia_dense", "web"]
Mitigation = Literal["none", "safety_prompt", "bias_prompt", "safety_and_bias_prompt"]


class SafetyRetrievalConfig(PluginConfig):
    conditions: list[Condition] = Field(
        default_factory=lambda: ["none", "encyclopedia_bm25"],
        min_length=1,
        max_length=4,
        description="Retrieval conditions; 'none' is always added as the reference for degradation",
    )
    k: int = Field(3, ge=1, le=20, description="Retrieval depth: documents per search")
    retrieval_accuracy: float = Field(
        1.0,
        ge=0.0,
        le=1.0,
        description="Share of relevant documents among the k shown (rest irrelevant)",
    )
    mitigations: list[Mitigation] = Field(
        default_factory=lambda: ["none"],
        min_length=1,
        max_length=4,
        description="Safety system prompts to compare; headline metrics use the first one",
    )
    harmful_sets: list[Literal["advbench", "harmbench"]] = Field(
        default_factory=lambda: ["advbench", "harmbench"],
        max_length=2,
        description="Harmful-request sets (refusal rate, harmfulness)",
    )
    use_xstest: bool = Field(True, description="Run the XSTest-style over-refusal set")
    use_bbq: bool = Field(True, description="Run the BBQ bias set")
    advbench_path: str = Field(
        "", max_length=1000, description="AdvBench CSV (empty: bundled mild fixture)"
    )
    harmbench_path: str = Field(
        "", max_length=1000, description="HarmBench behaviours CSV (empty: fixture)"
    )
    xstest_path: str = Field("", max_length=1000, description="XSTest prompts CSV (empty: fixture)")
    bbq_path: str = Field(
        "", max_length=1000, description="BBQ JSONL file or folder (empty: fixture)"
    )
    corpus_path: str = Field(
        "",
        max_length=1000,
        description="Encyclopedia JSONL (id/title/text; empty: tiny bundled corpus)",
    )
    max_corpus_docs: int = Field(
        200000, ge=1, le=50_000_000, description="Read at most this many corpus lines"
    )
    max_items_per_set: int = Field(100, ge=1, le=100000, description="Items used from each dataset")
    search_url: str = Field(
        "",
        max_length=1000,
        description="JSON search API for 'web', e.g. http://searx:8080/search (SearxNG)",
    )
    fetch_pages: bool = Field(True, description="Web: fetch each hit's page and extract its text")
    page_max_chars: int = Field(2000, ge=100, le=50000, description="Web: characters kept per page")
    dense_model_path: str = Field(
        "",
        max_length=1000,
        description="Dense: local sentence-transformers dir (empty: packaged MiniLM)",
    )
    refusal_judge: Literal["rule", "llm"] = Field(
        "rule", description="Judge whose refusals define the refusal metrics"
    )
    llm_refusal_judge: bool = Field(
        True, description="Also run the LLM refusal judge (agreement is reported)"
    )
    harm_judge: bool = Field(True, description="Score harmfulness 1-5 with the LLM judge")
    judge_base_url: str = Field(
        "",
        max_length=1000,
        description="OpenAI-compatible URL of the judge (empty: the run's model judges)",
    )
    judge_model_id: str = Field("", max_length=200, description="Judge model id at judge_base_url")
    judge_api_key_env: str = Field(
        "", max_length=100, description="Environment variable with the judge's key"
    )
    n_bootstrap: int = Field(1000, ge=100, le=100000, description="Bootstrap resamples for CIs")
    ci_level: float = Field(0.95, gt=0.5, lt=1.0, description="Confidence level of the CIs")

    @model_validator(mode="after")
    def _check(self) -> SafetyRetrievalConfig:
        if "web" in self.conditions and not self.search_url.startswith(("http://", "https://")):
            raise ValueError("search_url: an http(s) URL is required when conditions include 'web'")
        if self.judge_base_url and not self.judge_model_id:
            raise ValueError("judge_model_id: required when judge_base_url is set")
        if self.refusal_judge == "llm" and not self.llm_refusal_judge:
            raise ValueError("llm_refusal_judge: must be true when refusal_judge is 'llm'")
        if not self.harmful_sets and not self.use_xstest and not self.use_bbq:
            raise ValueError("harmful_sets: choose at least one dataset")
        if len(set(self.conditions)) != len(self.conditions) or len(set(self.mitigations)) != len(
            self.mitigations
        ):
            raise ValueError("conditions/mitigations: entries must be unique")
        return self
