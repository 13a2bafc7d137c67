"""The Meta-RFFT paper record (shared by the benchmark and the methods)."""

from workers.core import Paper

META_RFFT = Paper(
    key="meta-rfft",
    title="Training Large Language Models to be Better Rule Followers",
    authors=("Yi Hu", "Shijia Kang", "Haotong Yang", "Haotian Xu", "Muhan Zhang"),
    venue="arXiv:2502.11525",
    year=2025,
    abstract=(
        "Meta Rule-Following Fine-Tuning (Meta-RFFT) trains a model to follow explicit rules "
        "(code shown in the input, with the step-by-step execution as the target) on a large set "
        "of length-generalisation tasks, so that rule following transfers across tasks: an unseen "
        "task is learnt from a few fine-tuning examples or one in-context example and solved at "
        "lengths far beyond those trained."
    ),
    headline_claim=(
        "Meta-RFFT pre-training gives much higher length-generalisation accuracy on unseen "
        "tasks than direct-answer training, after fine-tuning on a few examples or with one "
        "in-context example."
    ),
    code_url="https://github.com/AheadOFpotato/meta-rfft",
    url="https://arxiv.org/abs/2502.11525",
    claim_benchmark="metarfft_lengthgen",
    claim_method="metarfft",
    claim_baseline="metarfft_direct",
    claim_metric="heldout_acc_long",
    tags=("length generalization", "llm", "rule following"),
)
