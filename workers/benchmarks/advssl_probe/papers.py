"""Paper metadata for the Adv-SSL benchmark."""

from workers.core import Paper

ADVSSL_PAPER = Paper(
    key="adv-ssl",
    title="Unbiased Adversarial Self-Supervised Representation Learning (Adv-SSL)",
    authors=("Chenguang Duan", "Yuling Jiao", "Huazhen Lin", "Wensen Ma", "Jerry Zhijian Yang"),
    venue="NeurIPS",
    year=2024,
    abstract=(
        "Covariance-regularised self-supervised objectives penalise ||C - I||_F^2, whose "
        "mini-batch estimate is biased. Writing the penalty as max_G 2<G, C - I> - ||G||_F^2 "
        "and alternating the closed-form G update with encoder steps gives an unbiased "
        "stochastic objective with end-to-end guarantees for downstream few-shot accuracy."
    ),
    headline_claim=(
        "The unbiased adversarial objective gives better linear-probe accuracy than Barlow "
        "Twins / VICReg-style objectives at the same budget, especially at small batch sizes."
    ),
    code_url="",
    claim_benchmark="advssl-probe",
    claim_method="advssl",
    claim_baseline="advssl-barlow-twins",
    claim_metric="probe_accuracy",
    tags=("self-supervised", "representation-learning"),
)
