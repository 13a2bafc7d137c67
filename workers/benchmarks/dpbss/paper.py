"""Paper metadata for differentially private best-subset selection."""

from workers.core import Paper

DPBSS_PAPER = Paper(
    key="dp-bss-mip",
    title="Differentially Private High-dimensional Variable Selection via Integer Programming",
    authors=("Petros Prastakos", "Kayhan Behdin", "Rahul Mazumder"),
    venue="NeurIPS",
    year=2025,
    abstract=(
        "Two pure differentially private estimators for sparse variable selection that use mixed "
        "integer programming to explore the non-convex best-subset-selection landscape: a top-R "
        "sampler and a mistakes sampler approximating the exponential mechanism, with support "
        "recovery guarantees, for least-squares and hinge losses."
    ),
    headline_claim=(
        "The MIP-based top-R and mistakes samplers achieve better support recovery than competing "
        "pure/approximate DP methods (MCMC exponential mechanism, DP Lasso subsampling)."
    ),
    code_url="https://github.com/petrosprastakos/DP-variable-selection",
    url="https://arxiv.org/abs/2510.22062",
    claim_benchmark="dpbss-support-recovery",
    claim_method="dpbss-top-r",
    claim_baseline="dpbss-mcmc",
    claim_metric="exact_recovery",
    tags=("differential-privacy", "variable-selection", "mixed-integer-programming"),
)
