"""Paper metadata shared by the ZEN benchmark and its methods."""

from workers.core import Paper

ZEN_PAPER = Paper(
    key="zen-hypergraph",
    title="Parameter-Free Hypergraph Neural Network for Few-Shot Node Classification",
    authors=("Chaewoon Bae", "Doyun Choi", "Jaehyun Lee", "Jaemin Yoo"),
    venue="arXiv",
    year=2025,
    abstract=(
        "ZEN is a fully linear, parameter-free hypergraph model: a closed-form prediction "
        "built from degree-normalised, redundancy-aware propagation (removing the residual "
        "self-information of first and second order) and class prototypes of the few "
        "labelled nodes, with only three mixing weights chosen on a simplex grid by "
        "validation accuracy. It needs no training."
    ),
    headline_claim=(
        "In few-shot node classification ZEN matches or beats trained hypergraph "
        "neural networks while being much faster, since nothing is trained."
    ),
    code_url="https://github.com/chaewoonbae/ZEN",
    claim_benchmark="zen-fewshot",
    claim_method="zen",
    claim_baseline="hypergraph-hgnn",
    claim_metric="accuracy",
    tags=("hypergraph", "few-shot", "training-free"),
)

HGNN_PAPER = Paper(
    key="hgnn",
    title="Hypergraph Neural Networks",
    authors=("Yifan Feng", "Haoxuan You", "Zizhao Zhang", "Rongrong Ji", "Yue Gao"),
    venue="AAAI",
    year=2019,
    abstract="Spectral hypergraph convolution G = Dv^-1/2 H W De^-1 H^T Dv^-1/2 stacked in a network.",
    headline_claim="Hypergraph convolution outperforms graph convolution on hypergraph-structured data.",
    code_url="https://github.com/iMoonLab/HGNN",
    tags=("hypergraph", "baseline"),
)
