"""Platform methods for the `nbl_linearize` benchmark: NBL and its two baselines.

The benchmark computes per-layer scores (CCA bound, MSE bound, LLM-Drop cosine) and asks the
method `select(scores, k, seed)` which k attention blocks to replace, and `replacement` how:
"linear" (NBL's h + W h + b) or "drop" (h unchanged).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from workers.core import Method, Paper, PluginConfig, register_method
from workers.methods.nbl.calibrate import select_layers

NBL_PAPER = Paper(
    key="nbl",
    title="Efficient Large Language Model Inference with Neural Block Linearization",
    authors=("Mete Erdogan", "Francesco Tonin", "Volkan Cevher"),
    venue="arXiv 2505.21077",
    year=2025,
    abstract=(
        "Neural Block Linearization (NBL) replaces self-attention layers of a trained transformer by "
        "linear maps fitted in closed form (linear minimum mean squared error estimators) on calibration "
        "data, choosing the layers with the lowest error bound from canonical correlation analysis; it "
        "needs no fine-tuning and removes those layers' KV cache."
    ),
    headline_claim=(
        "Linearising 12 attention layers of DeepSeek-R1-Distill-Llama-8B gives a 32% inference "
        "speed-up with less than 1% accuracy loss; NBL beats dropping the same number of "
        "attention layers (LLM-Drop)."
    ),
    code_url="https://github.com/LIONS-EPFL/NBL",
    url="https://arxiv.org/abs/2505.21077",
    claim_benchmark="nbl_linearize",
    claim_method="nbl",
    claim_baseline="nbl_llm_drop",
    claim_metric="ppl_at_k",
    tags=("efficiency", "llm", "compression"),
)

LLM_DROP_PAPER = Paper(
    key="llm-drop",
    title="What Matters in Transformers? Not All Attention is Needed",
    authors=("Shwai He", "Guoheng Sun", "Zheyu Shen", "Ang Li"),
    venue="arXiv 2406.15786",
    year=2024,
    abstract=(
        "Drops whole attention layers whose output changes the residual stream least, measured by the "
        "cosine similarity between a block's input and output."
    ),
    headline_claim="Many attention layers can be dropped with little loss in quality.",
    code_url="https://github.com/CASE-Lab-UMD/LLM-Drop",
    url="https://arxiv.org/abs/2406.15786",
)


class _NBLMethod(Method):
    benchmarks: ClassVar[tuple[str, ...]] = ("nbl_linearize",)
    replacement: ClassVar[str] = "linear"

    def criterion(self) -> str:
        return self.config.criterion

    def select(self, scores: dict[int, dict], k: int, seed: int = 0) -> list[int]:
        return select_layers(scores, k, self.criterion(), seed=seed)


@register_method
class NBL(_NBLMethod):
    name = "nbl"
    title = "NBL: linearise the attention blocks with the lowest CCA bound"
    paper = NBL_PAPER

    class Config(PluginConfig):
        criterion: Literal["cca_bound", "mse_bound"] = Field(
            "cca_bound",
            description="cca_bound: sum(1 - rho^2) as the official code ranks; mse_bound: scaled by tr(C)",
        )


@register_method
class NBLRandom(_NBLMethod):
    name = "nbl_random"
    title = "Random layer choice, linearised with NBL's LMMSE fit"
    paper = NBL_PAPER
    is_baseline = True

    class Config(PluginConfig):
        seed_offset: int = Field(
            0, ge=0, le=10_000, description="Added to the run seed to draw the layer subset"
        )

    def criterion(self) -> str:
        return "random"

    def select(self, scores: dict[int, dict], k: int, seed: int = 0) -> list[int]:
        return select_layers(scores, k, "random", seed=seed + self.config.seed_offset)


@register_method
class LLMDrop(_NBLMethod):
    name = "nbl_llm_drop"
    title = "LLM-Drop: remove attention blocks (baseline)"
    paper = LLM_DROP_PAPER
    is_baseline = True
    replacement = "drop"

    class Config(PluginConfig):
        criterion: Literal["cosine", "cca_bound"] = Field(
            "cosine",
            description="cosine: LLM-Drop's own choice (highest cos(X, X+Y)); cca_bound: NBL's layers",
        )
