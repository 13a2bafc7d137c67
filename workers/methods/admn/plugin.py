"""Platform glue: ADMN and its static baselines on the admn-multimodal benchmark.

Interface the benchmark calls: `fit(views, y, corruption, n_classes=, layers=, budget=, d=,
hidden=, seed=, callback=) -> ADMN` and `masks(net, views) -> (N, sum L_m) tensor or None`
(None: the net's own controller allocates the layers).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from pydantic import Field

from workers.benchmarks.admn_multimodal.papers import ADMN_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.admn.network import ADMN, full_mask, static_mask
from workers.methods.admn.topl import spread_layers, uniform_split
from workers.methods.admn.training import train_backbones, train_controller


class StaticConfig(PluginConfig):
    epochs: int = Field(30, ge=1, le=1000, description="Backbone training epochs")
    lr: float = Field(3e-3, gt=0, le=1, description="AdamW learning rate")
    batch_size: int = Field(64, ge=8, le=8192, description="Mini-batch size")


class LayerDropConfig(StaticConfig):
    layerdrop_p: float = Field(
        0.5,
        ge=0.0,
        lt=1.0,
        description="Probability of dropping each backbone layer per sample (stage 1)",
    )


class ADMNConfig(LayerDropConfig):
    controller_epochs: int = Field(
        30, ge=1, le=1000, description="Controller training epochs (stage 2)"
    )
    controller_hidden: int = Field(16, ge=2, le=512, description="Controller width")
    tau: float = Field(1.0, gt=0, le=100, description="Gumbel-softmax temperature")
    aux_weight: float = Field(
        1.0, ge=0, le=100, description="Weight of the corruption-level regression loss (0 = off)"
    )


class _ADMNFamily(Method):
    benchmarks = ("admn-multimodal",)
    paper = ADMN_PAPER
    layerdrop = True

    def _net(self, views, n_classes, layers, budget, d, hidden) -> ADMN:
        c = self.config
        return ADMN(
            [v.shape[1] for v in views],
            n_classes,
            layers,
            budget,
            d=d,
            hidden=hidden,
            controller_hidden=getattr(c, "controller_hidden", 16),
            tau=getattr(c, "tau", 1.0),
        )

    def fit(
        self,
        views: Sequence[torch.Tensor],
        y: torch.Tensor,
        corruption: torch.Tensor,
        *,
        n_classes: int,
        layers: Sequence[int],
        budget: int,
        d: int = 32,
        hidden: int = 64,
        seed: int = 0,
        callback=None,
    ) -> ADMN:
        torch.manual_seed(seed)
        net = self._net(views, n_classes, layers, budget, d, hidden).to(views[0].device)
        c = self.config
        train_backbones(
            net,
            views,
            y,
            epochs=c.epochs,
            lr=c.lr,
            batch_size=c.batch_size,
            layerdrop_p=c.layerdrop_p if self.layerdrop else 0.0,
            seed=seed,
            callback=callback,
        )
        return net

    def masks(self, net: ADMN, views: Sequence[torch.Tensor]) -> torch.Tensor | None:
        raise NotImplementedError


@register_method
class ADMNMethod(_ADMNFamily):
    name = "admn"
    title = "ADMN (LayerDrop backbones + QoI controller, Gumbel top-L)"
    description = (
        "Allocates the layer budget across modalities per sample from their quality estimates."
    )
    Config = ADMNConfig

    def fit(self, views, y, corruption, **kw) -> ADMN:
        net = super().fit(views, y, corruption, **kw)
        c = self.config
        train_controller(
            net,
            views,
            y,
            corruption,
            epochs=c.controller_epochs,
            lr=c.lr,
            batch_size=c.batch_size,
            aux_weight=c.aux_weight,
            seed=kw.get("seed", 0) + 1,
            callback=kw.get("callback"),
        )
        return net

    def masks(self, net, views):
        return None


@register_method
class StaticUniformMethod(_ADMNFamily):
    name = "admn-static-uniform"
    title = "Static network at the same budget, uniform split"
    description = "The same LayerDrop backbones; the budget split evenly across modalities, evenly spaced layers."
    is_baseline = True
    Config = LayerDropConfig

    def masks(self, net, views):
        alloc = uniform_split(net.budget, net.layers)
        return static_mask(
            net,
            [spread_layers(k, n) for k, n in zip(alloc, net.layers, strict=True)],
            views[0].shape[0],
        )


@register_method
class StaticFullMethod(_ADMNFamily):
    name = "admn-static-full"
    title = "Static full-depth network"
    description = "Every layer of every modality, trained without LayerDrop (ignores the budget)."
    is_baseline = True
    layerdrop = False
    Config = StaticConfig

    def masks(self, net, views):
        return full_mask(net, views[0].shape[0])
