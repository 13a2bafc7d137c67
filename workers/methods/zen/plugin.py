"""Platform glue for ZEN and its no-redundancy-removal ablation (benchmark zen-fewshot)."""

from __future__ import annotations

from pydantic import Field

from workers.benchmarks.zen_fewshot.papers import ZEN_PAPER
from workers.core import Method, PluginConfig, register_method
from workers.methods.zen.zen import ZEN


class ZenConfig(PluginConfig):
    grid_resolution: int = Field(
        9, ge=1, le=100, description="n of the (a0, a1, a2) simplex grid: (n+2)(n+1)/2 points"
    )


@register_method
class ZenMethod(Method):
    name = "zen"
    title = "ZEN (zero-parameter hypergraph network)"
    description = "Closed-form redundancy-aware propagation + class prototypes; no training."
    benchmarks = ("zen-fewshot",)
    paper = ZEN_PAPER
    Config = ZenConfig
    remove_rsi = True

    def make_estimator(self, seed: int) -> ZEN:  # deterministic: the seed is unused
        return ZEN(grid_resolution=self.config.grid_resolution, remove_rsi=self.remove_rsi)


@register_method
class ZenNoRsiMethod(ZenMethod):
    name = "zen-no-rsi"
    title = "ZEN without redundancy removal (ablation)"
    description = "ZEN's closed form with neither residual self-information term subtracted."
    is_baseline = True
    remove_rsi = False
