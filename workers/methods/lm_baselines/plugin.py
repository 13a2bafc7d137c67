"""Adam and SGD baselines for `lm_pretrain` (the SinkGD paper's comparison points)."""

from __future__ import annotations

from typing import ClassVar

import torch
from pydantic import Field

from workers.core import Method, PluginConfig, register_method
from workers.methods.sinkgd.plugin import SINKGD_PAPER


@register_method
class AdamBaseline(Method):
    name = "lm_adam"
    title = "Adam (AdamW, decoupled weight decay) on every parameter"
    paper = SINKGD_PAPER
    is_baseline = True
    benchmarks: ClassVar[tuple[str, ...]] = ("lm_pretrain",)

    class Config(PluginConfig):
        lr: float = Field(3e-3, gt=0, le=1.0, description="Peak learning rate")
        beta2: float = Field(0.95, gt=0, lt=1, description="Second-moment decay")
        weight_decay: float = Field(0.1, ge=0, le=1.0, description="Decoupled weight decay")

    def build_optimizer(self, model):
        c = self.config
        return torch.optim.AdamW(
            model.parameters(), lr=c.lr, betas=(0.9, c.beta2), weight_decay=c.weight_decay
        )


@register_method
class SGDBaseline(Method):
    name = "lm_sgd"
    title = "SGD with momentum on every parameter"
    paper = SINKGD_PAPER
    is_baseline = True
    benchmarks: ClassVar[tuple[str, ...]] = ("lm_pretrain",)

    class Config(PluginConfig):
        lr: float = Field(0.3, gt=0, le=100.0, description="Peak learning rate")
        momentum: float = Field(
            0.9, ge=0, lt=1, description="Heavy-ball momentum (0 = plain SGD, stateless)"
        )

    def build_optimizer(self, model):
        c = self.config
        return torch.optim.SGD(model.parameters(), lr=c.lr, momentum=c.momentum)
