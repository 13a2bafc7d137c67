"""Paper metadata shared by the FastSVERL benchmark and methods."""

from workers.core import Paper

FASTSVERL_PAPER = Paper(
    key="fastsverl",
    title="Approximating Shapley Explanations in Reinforcement Learning",
    authors=("Daniel Beechey", "Özgür Şimşek"),
    venue="NeurIPS",
    year=2025,
    abstract=(
        "FastSVERL approximates Shapley explanations of reinforcement-learning agents (their behaviour, "
        "predictions and outcomes) with two learned models: a characteristic model that predicts the "
        "explained quantity from partially observed states, and a Shapley model trained with the Shapley "
        "kernel's coalition distribution, with off-policy variants, avoiding exponential enumeration."
    ),
    headline_claim=(
        "Learned Shapley models approximate exact SVERL explanations closely while their cost "
        "does not grow exponentially with the state dimension."
    ),
    code_url="https://github.com/djeb20/fastsverl",
    claim_benchmark="sverl-explain",
    claim_method="sverl-fastsverl",
    claim_baseline="sverl-sampling",
    claim_metric="shapley_mse",
    tags=("explainability", "reinforcement-learning", "shapley-values"),
)
