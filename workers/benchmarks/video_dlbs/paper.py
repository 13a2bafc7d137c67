"""Paper metadata shared by the video DLBS benchmark and its samplers."""

from workers.core import Paper

DLBS_PAPER = Paper(
    key="dlbs-video",
    title="Inference-Time Text-to-Video Alignment with Diffusion Latent Beam Search",
    authors=("Yuta Oshima", "Masahiro Suzuki", "Yutaka Matsuo", "Hiroki Furuta"),
    venue="arXiv 2501.19252",
    year=2025,
    abstract=(
        "Diffusion latent beam search (DLBS) keeps B beams during reverse diffusion, draws K "
        "candidate next latents per beam from the stochastic sampler, scores each by a lookahead "
        "estimate of its clean video (a few deterministic DDIM steps, decoded and scored by a "
        "reward) and keeps the best B. The reward is a weighted sum of video metrics (subject "
        "consistency, motion smoothness, dynamic degree, aesthetic quality, text consistency) "
        "calibrated to human or VLM judgements."
    ),
    headline_claim=(
        "DLBS with lookahead reaches a higher calibrated reward than best-of-N and greedy search at "
        "the same compute, and inference compute is better spent on lookahead and search than on "
        "more denoising steps."
    ),
    code_url="https://github.com/shim0114/T2V-Diffusion-Search",
    url="https://arxiv.org/abs/2501.19252",
    claim_benchmark="video-dlbs",
    claim_method="dlbs-lookahead",
    claim_baseline="dlbs-best-of-n",
    claim_metric="calibrated_reward",
    tags=("diffusion", "video-generation", "inference-time-search", "reward-alignment"),
)
