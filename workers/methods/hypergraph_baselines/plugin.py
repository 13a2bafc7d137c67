"""Platform glue for the trained baselines of the ZEN benchmark: HGNN and MLP."""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.zen_fewshot.papers import HGNN_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.hypergraph_baselines.models import TrainedNodeClassifier


class TrainedConfig(PluginConfig):
    hidden: int = Field(64, ge=1, le=4096, description="Hidden units")
    epochs: int = Field(
        200, ge=1, le=5000, description="Full-batch training epochs (best validation epoch kept)"
    )
    lr: float = Field(0.01, gt=0, le=1, description="Adam learning rate")
    weight_decay: float = Field(5e-4, ge=0, le=1, description="Adam weight decay")
    dropout: float = Field(0.5, ge=0, lt=1, description="Dropout probability")


@register_method
class HgnnMethod(Method):
    name = "hypergraph-hgnn"
    title = "HGNN (trained)"
    description = "Two-layer hypergraph convolutional network trained on the few labelled nodes."
    benchmarks = ("zen-fewshot",)
    is_baseline = True
    paper = HGNN_PAPER
    Config = TrainedConfig
    architecture = "hgnn"

    def make_estimator(self, seed: int) -> TrainedNodeClassifier:
        c = self.config
        return TrainedNodeClassifier(
            self.architecture, c.hidden, c.epochs, c.lr, c.weight_decay, c.dropout, seed
        )


@register_method
class HypergraphMlpMethod(HgnnMethod):
    name = "hypergraph-mlp"
    title = "MLP (trained, ignores the hypergraph)"
    description = "Two-layer MLP on node features only."
    paper = None
    architecture = "mlp"
