"""Paper metadata for the probit/normCDF predictive benchmark."""

from workers.core import Paper

PROBIT_PAPER = Paper(
    key="probit-normcdf-predictives",
    title="Rethinking Approximate Gaussian Inference in Classification",
    authors=("Bálint Mucsányi", "Nathaël Da Costa", "Philipp Hennig"),
    venue="arXiv",
    year=2025,
    abstract=(
        "Gaussian approximate inference yields Gaussian logits, whose softmax predictive needs "
        "Monte Carlo sampling. Replacing softmax by normalised element-wise links (normCDF or "
        "sigmoid) gives closed-form or accurate analytic predictives, matching training losses, "
        "second moments and a Dirichlet moment match, so the predictive needs no samples."
    ),
    headline_claim=(
        "Sampling-free normCDF/sigmoid predictives match softmax + Monte Carlo in accuracy and "
        "calibration at a fraction of the cost, without sampling error."
    ),
    code_url="https://github.com/bmucsanyi/probit",
    claim_benchmark="probit-predictives",
    claim_method="probit-normcdf",
    claim_baseline="probit-softmax-mc",
    claim_metric="nll",
    tags=("uncertainty", "laplace", "calibration"),
)
