"""ADMN, the layer-wise adaptive-depth multimodal network (library + platform glue)."""

from workers.methods.admn import plugin  # noqa: F401  (registers the methods)
from workers.methods.admn.network import (
    ADMN,
    ModalityBackbone,
    QoIController,
    flops_per_sample,
    image_qoi,
)
from workers.methods.admn.topl import gumbel_top_l, hard_top_l, uniform_split
from workers.methods.admn.training import predict, train_backbones, train_controller

__all__ = [
    "ADMN",
    "ModalityBackbone",
    "QoIController",
    "flops_per_sample",
    "gumbel_top_l",
    "hard_top_l",
    "image_qoi",
    "predict",
    "train_backbones",
    "train_controller",
    "uniform_split",
]
