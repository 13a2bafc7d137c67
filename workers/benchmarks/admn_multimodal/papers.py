"""Paper metadata for the ADMN benchmark and methods."""

from workers.core import Paper

ADMN_PAPER = Paper(
    key="admn-adaptive-depth",
    title="ADMN: A Layer-Wise Adaptive Multimodal Network for Dynamic Input Noise and Compute Resources",
    authors=("Jason Wu", "Yuyang Yuan", "Kang Yang", "Lance Kaplan", "Mani Srivastava"),
    venue="NeurIPS",
    year=2025,
    abstract=(
        "Per-modality backbones are fine-tuned with multimodal LayerDrop so that any subset of "
        "their layers works; a lightweight controller reads each modality's quality of "
        "information and allocates a fixed total layer budget across modalities with "
        "Gumbel-softmax top-L sampling (straight-through), trained end to end with the "
        "backbones frozen."
    ),
    headline_claim=(
        "Under per-modality input corruption, ADMN matches the accuracy of static networks while "
        "using up to 75% fewer FLOPs, and beats a static allocation at the same layer budget."
    ),
    code_url="https://github.com/nesl/ADMN",
    url="https://arxiv.org/abs/2502.07862",
    claim_benchmark="admn-multimodal",
    claim_method="admn",
    claim_baseline="admn-static-uniform",
    claim_metric="accuracy",
    tags=("multimodal", "adaptive-depth", "layerdrop", "efficiency"),
)
