"""Paper metadata for the oblique-tree benchmarks and methods."""

from workers.core import Paper

RADDT_PAPER = Paper(
    key="raddt-reluargmin",
    title='Differentiable Decision Tree via "ReLU+Argmin" Reformulation',
    authors=("Qiangqiang Mao", "Yankai Cao"),
    venue="NeurIPS",
    year=2025,
    abstract=(
        "An exact unconstrained reformulation of a hard oblique decision tree: each leaf's "
        "violation is a sum of ReLUs of its ancestors' split margins and the tree predicts with "
        "the leaf of minimum violation. Replacing argmin by a scaled softmin, annealing the scale "
        "with warm starts, optimises the whole tree by (GPU-batched) gradient descent."
    ),
    headline_claim=(
        "Whole-tree gradient training of oblique trees via ReLU+Argmin gives higher test "
        "accuracy than CART and soft trees, scaling to depth 12 and 10^6 samples."
    ),
    code_url="https://github.com/maoqiangqiang/RADDT",
    claim_benchmark="oblique-classification",
    claim_method="oblique-reluargmin",
    claim_baseline="oblique-cart",
    claim_metric="accuracy",
    tags=("decision-trees", "differentiable", "interpretability"),
)
