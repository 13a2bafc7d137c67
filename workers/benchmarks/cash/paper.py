"""The seed paper of the `cash` benchmark and the `maxucb` method."""

from workers.core import Paper

CASH_PAPER = Paper(
    key="maxucb-cash",
    title="Put CASH on Bandits: A Max K-Armed Problem for Automated Machine Learning",
    authors=("Amir Rezaei Balef", "Claire Vernade", "Katharina Eggensperger"),
    venue="NeurIPS 2025",
    year=2025,
    abstract=(
        "The Combined Algorithm Selection and Hyperparameter optimization (CASH) is a challenging "
        "resource allocation problem in the field of AutoML. We propose MaxUCB, a max k-armed bandit "
        "method to trade off exploring different model classes and conducting hyperparameter "
        "optimization. MaxUCB is specifically designed for the light-tailed and bounded reward "
        "distributions arising in this setting and, thus, provides an efficient alternative compared "
        "to classic max k-armed bandit methods assuming heavy-tailed reward distributions. We "
        "theoretically and empirically evaluate our method on four standard AutoML benchmarks "
        "demonstrating superior performance over prior approaches."
    ),
    headline_claim=(
        "MaxUCB, designed for bounded light-tailed rewards, finds better configurations (lower "
        "normalised regret) than classic max k-armed bandits that assume heavy tails, such as QoMax-ETC."
    ),
    code_url="https://github.com/amirbalef/CASH_with_Bandits",
    url="https://arxiv.org/abs/2505.05226",
    claim_benchmark="cash",
    claim_method="maxucb",
    claim_baseline="qomax_etc",
    claim_metric="regret",
    tags=("automl", "bandits", "hpo"),
)
