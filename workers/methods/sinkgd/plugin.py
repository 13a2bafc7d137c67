"""Platform methods for `lm_pretrain`: SinkGD and SWAN (each with Adam on embeddings/norms/head)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from workers.core import Method, Paper, PluginConfig, register_method
from workers.methods.sinkgd.optim import SWAN, SinkGD, matrix_param_groups

SINKGD_PAPER = Paper(
    key="sinkgd",
    title="Gradient Multi-Normalization for Stateless and Scalable LLM Training",
    authors=("Meyer Scetbon", "Chao Ma", "Wenbo Gong", "Edward Meeds"),
    venue="arXiv 2502.06742 (NeurIPS 2025)",
    year=2025,
    abstract=(
        "Stateless optimizers that normalise each instantaneous gradient matrix with respect to several "
        "norms by alternating normalisations. SWAN is a special case; SinkGD alternates row- and "
        "column-wise l2 normalisation (a Sinkhorn-like iteration), costing O(mn) per matrix and keeping "
        "SGD's memory footprint."
    ),
    headline_claim=(
        "Pre-training LLaMA models (60M-1.3B), SinkGD reaches Adam's evaluation perplexity with about "
        "40% of the training tokens, with no optimizer state for the matrix parameters."
    ),
    code_url="",
    url="https://arxiv.org/abs/2502.06742",
    claim_benchmark="lm_pretrain",
    claim_method="sinkgd",
    claim_baseline="lm_adam",
    claim_metric="val_ppl",
    tags=("optimizer", "llm", "memory"),
)

SWAN_PAPER = Paper(
    key="swan",
    title="SWAN: SGD with Normalization and Whitening Enables Stateless LLM Training",
    authors=("Chao Ma", "Wenbo Gong", "Meyer Scetbon", "Edward Meeds"),
    venue="arXiv 2412.13148 (ICML 2025)",
    year=2024,
    abstract="Pre-processes each gradient matrix with row-wise normalisation (GradNorm) and whitening (GradWhitening).",
    headline_claim="SWAN matches Adam's perplexity with half the tokens and no optimizer state.",
    url="https://arxiv.org/abs/2412.13148",
)


class _MatrixOptConfig(PluginConfig):
    lr: float = Field(1e-3, gt=0, le=1.0, description="Step size for the normalised matrix updates")
    adam_lr: float = Field(
        3e-3, gt=0, le=1.0, description="Adam learning rate for embeddings, norms and head"
    )
    weight_decay: float = Field(
        0.0, ge=0, le=1.0, description="Decoupled weight decay on the matrices"
    )


@register_method
class SinkGDMethod(Method):
    name = "sinkgd"
    title = "SinkGD (L alternating row/column normalisations), Adam on embeddings/norms/head"
    paper = SINKGD_PAPER
    benchmarks: ClassVar[tuple[str, ...]] = ("lm_pretrain",)

    class Config(_MatrixOptConfig):
        num_iters: int = Field(5, ge=1, le=100, description="L: alternating normalisation rounds")

    def build_optimizer(self, model):
        c = self.config
        return SinkGD(
            matrix_param_groups(model, c.lr, c.adam_lr, weight_decay=c.weight_decay),
            c.lr,
            num_iters=c.num_iters,
        )


@register_method
class SWANMethod(Method):
    name = "sinkgd_swan"
    title = "SWAN (GradNorm + GradWhitening) as the L = 1 multi-normalisation"
    paper = SWAN_PAPER
    benchmarks: ClassVar[tuple[str, ...]] = ("lm_pretrain",)
    Config = _MatrixOptConfig

    def build_optimizer(self, model):
        c = self.config
        return SWAN(matrix_param_groups(model, c.lr, c.adam_lr, weight_decay=c.weight_decay), c.lr)
