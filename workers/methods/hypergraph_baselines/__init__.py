"""Trained baselines for hypergraph node classification (HGNN, MLP)."""

from workers.methods.hypergraph_baselines import plugin  # noqa: F401  (registers the methods)
from workers.methods.hypergraph_baselines.models import (
    HGNN,
    MLP,
    TrainedNodeClassifier,
    hgnn_operator,
)

__all__ = ["HGNN", "MLP", "TrainedNodeClassifier", "hgnn_operator"]
