"""Paper metadata for counting linear regions of ReLU networks."""

from workers.core import Paper

LINREGIONS_PAPER = Paper(
    key="counting-linear-regions",
    title="The Computational Complexity of Counting Linear Regions in ReLU Neural Networks",
    authors=("Moritz Stargalla", "Christoph Hertrich", "Daniel Reichman"),
    venue="NeurIPS",
    year=2025,
    abstract=(
        "There are many non-equivalent definitions of a linear region of a ReLU network. The paper "
        "catalogues which papers use which definition, relates them, and shows that counting regions "
        "is NP- and #P-hard already for one hidden layer, hard to approximate for two or more, and "
        "possible in polynomial space for some common definitions."
    ),
    headline_claim=(
        "The definitions of a linear region are non-equivalent (small networks separate them) and exact "
        "counting is intractable in general, so exact counts are only available for small networks; "
        "sampling-based counts are not exact."
    ),
    url="https://arxiv.org/abs/2505.16716",
    claim_benchmark="linregions-counting",
    claim_method="linregions-incremental",
    claim_baseline="linregions-grid",
    claim_metric="rel_error",
    tags=("relu", "linear-regions", "complexity"),
)
