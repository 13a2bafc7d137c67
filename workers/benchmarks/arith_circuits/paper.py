"""Paper metadata shared by the Arith-DAS benchmark and methods."""

from workers.core import Paper

ARITH_DAS_PAPER = Paper(
    key="arith-das",
    title="High-Performance Arithmetic Circuit Optimization via Differentiable Architecture Search",
    authors=("Xia et al.",),
    venue="NeurIPS",
    year=2025,
    abstract=(
        "Arith-DAS formulates interconnect optimisation in arithmetic circuits (which compressor-tree "
        "signal drives which compressor pin) as differentiable edge prediction over a multi-relational "
        "DAG, relaxing the discrete edge choice with softmax soft labels, and reports up to 27.05% "
        "hypervolume gain of the area-delay Pareto front over L2O and conventional methods on "
        "multipliers and multiply-accumulate units."
    ),
    headline_claim="Up to 27.05% higher hypervolume of the area-delay Pareto front than prior methods.",
    url="https://openreview.net/forum?id=dtsYpcJr1R",
    claim_benchmark="arith-multiplier",
    claim_method="arith-das",
    claim_baseline="arith-default-wiring",
    claim_metric="hypervolume",
    tags=("eda", "arithmetic-circuits", "differentiable-architecture-search"),
)
