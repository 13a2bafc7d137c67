"""The seed paper of the `mellow_aqa` benchmark and the `mellow` method."""

from workers.core import Paper

MELLOW_PAPER = Paper(
    key="mellow-reasonaqa",
    title="Mellow: a small audio language model for reasoning",
    authors=("Soham Deshmukh", "Satvik Dixit", "Rita Singh", "Bhiksha Raj"),
    venue="arXiv 2503.08540",
    year=2025,
    abstract=(
        "Multimodal Audio-Language Models (ALMs) can understand and reason over both audio and "
        "text. Typically, reasoning performance correlates with model size, with the best results "
        "achieved by models exceeding 8 billion parameters. We introduce Mellow, a small "
        "Audio-Language Model specifically designed for reasoning. Mellow scores 52.11 on MMAU, "
        "comparable to SoTA Qwen2 Audio (52.5) while using 50 times fewer parameters and being "
        "trained on 60 times less data. To train Mellow, we introduce ReasonAQA, a mixture of "
        "existing datasets (30%) and synthetically generated data (70%) derived from audio "
        "captioning datasets, where LLMs generate detailed and multiple-choice questions about "
        "audio events, objects, acoustic scenes, signal properties, semantics, and listener "
        "emotions. Ablations study the projection layer, synthetic data generation and LLM "
        "pre-training."
    ),
    headline_claim=(
        "A small audio-language model (167M parameters) trained on ReasonAQA reasons about audio "
        "nearly as well as models 50x larger (52.11 vs 52.5 on MMAU), and better than text LLMs "
        "that read audio captions instead of the audio."
    ),
    code_url="https://github.com/soham97/mellow",
    url="https://arxiv.org/abs/2503.08540",
    claim_benchmark="mellow_aqa",
    claim_method="mellow",
    claim_baseline="caption_only_lm",
    claim_metric="accuracy",
    tags=("audio", "audio-language-model", "reasoning", "question-answering"),
)
