"""Platform glue: the watermarks as methods of the `wm_detection` benchmark.

Interface the benchmark calls: `method.make_processor(vocab_size, key, strength=None,
track=False)` returns a `WatermarkLogitsProcessor` (its `.detector()` is the matching
detector); `trade_off` names the knob swept for the detection/distortion curve and
`trade_off_values` the values swept (empty: no knob).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from workers.core import Method, Paper, PluginConfig, register_method
from workers.methods.watermark.base import WatermarkLogitsProcessor
from workers.methods.watermark.baselines import (
    GumbelLogitsProcessor,
    InverseTransformLogitsProcessor,
    RedGreenLogitsProcessor,
)
from workers.methods.watermark.heavywater import HeavyWaterLogitsProcessor
from workers.methods.watermark.simplexwater import SimplexWaterLogitsProcessor

BENCH = "wm_detection"

TSUR = Paper(
    key="heavywater-simplexwater",
    title="HeavyWater and SimplexWater: Watermarking Low-Entropy Text Distributions",
    authors=(
        "Dor Tsur",
        "Carol Xuan Long",
        "Claudio Mayrink Verdun",
        "Hsiang Hsu",
        "Chun-Fu Chen",
        "Haim Permuter",
        "Sajani Vithana",
        "Flavio P. Calmon",
    ),
    venue="arXiv:2506.06409",
    year=2025,
    abstract=(
        "Watermark design as an optimisation problem: side information from hashing previous "
        "tokens, a score function (a simplex code, SimplexWater, or i.i.d. heavy-tailed "
        "scores, HeavyWater) and sampling from an optimal-transport coupling between the "
        "next-token distribution and the side information, computed with Sinkhorn. The "
        "watermarks are distortion-free and detect well in the low-entropy regime."
    ),
    headline_claim=(
        "HeavyWater and SimplexWater reach higher detection power than red-green, "
        "Gumbel and inverse-transform watermarks at comparable distortion, "
        "especially on low-entropy (code) generation."
    ),
    code_url="https://github.com/DorTsur/HeavyWater_SimplexWater",
    url="https://arxiv.org/abs/2506.06409",
    claim_benchmark=BENCH,
    claim_method="wm_heavywater",
    claim_baseline="wm_redgreen",
    claim_metric="tpr_at_1fpr",
    tags=("watermarking", "llm"),
)
KIRCHENBAUER = Paper(
    key="kgw-redgreen",
    title="A Watermark for Large Language Models",
    authors=(
        "John Kirchenbauer",
        "Jonas Geiping",
        "Yuxin Wen",
        "Jonathan Katz",
        "Ian Miers",
        "Tom Goldstein",
    ),
    venue="ICML",
    year=2023,
    abstract="Green lists from a hash of the previous token; a logit bias delta on green tokens; z-test.",
    headline_claim="Detectable from ~25 tokens with negligible quality loss.",
    code_url="https://github.com/jwkirchenbauer/lm-watermarking",
)
AARONSON = Paper(
    key="aaronson-gumbel",
    title="Watermarking of Large Language Models (Gumbel / exponential sampling)",
    authors=("Scott Aaronson",),
    venue="Simons Institute talk",
    year=2022,
    abstract="Sample argmax r_x^(1/p_x) with keyed uniforms r; detect with sum -log(1 - r).",
    headline_claim="Distortion-free watermark detectable from its keyed uniforms.",
)
KUDITIPUDI = Paper(
    key="kuditipudi-its",
    title="Robust Distortion-free Watermarks for Language Models",
    authors=("Rohith Kuditipudi", "John Thickstun", "Tatsunori Hashimoto", "Percy Liang"),
    venue="TMLR",
    year=2024,
    abstract="Inverse transform sampling through a keyed permutation; detection by rank/uniform alignment.",
    headline_claim="Distortion-free and robust to edits.",
    code_url="https://github.com/jthickstun/watermark",
)


class _CommonConfig(PluginConfig):
    context_width: int = Field(
        1, ge=1, le=8, description="previous tokens hashed into the side information"
    )


class _OTConfig(_CommonConfig):
    top_p: float = Field(0.999, gt=0.5, le=1.0, description="top-p set the coupling is computed on")
    sinkhorn_reg: float = Field(
        0.05, gt=0.001, le=10.0, description="Sinkhorn entropic regulariser"
    )
    sinkhorn_iters: int = Field(2000, ge=10, le=20000, description="maximum Sinkhorn iterations")
    tilt_delta: float = Field(
        0.0, ge=0.0, le=0.95, description="tilt towards high scores (0 = distortion-free)"
    )


class _WatermarkMethod(Method):
    benchmarks: ClassVar[tuple[str, ...]] = (BENCH,)
    trade_off: ClassVar[str] = ""
    trade_off_values: ClassVar[tuple[float, ...]] = ()

    def _build(
        self, vocab_size: int, key: int, strength: float | None, track: bool
    ) -> WatermarkLogitsProcessor:
        raise NotImplementedError

    def make_processor(
        self, vocab_size: int, key: int, strength: float | None = None, track: bool = False
    ) -> WatermarkLogitsProcessor:
        return self._build(vocab_size, key, strength, track)


def _ot_kwargs(cfg: Any, strength: float | None) -> dict[str, Any]:
    return dict(
        context_width=cfg.context_width,
        top_p=cfg.top_p,
        sinkhorn_reg=cfg.sinkhorn_reg,
        sinkhorn_iters=cfg.sinkhorn_iters,
        tilt_delta=cfg.tilt_delta if strength is None else strength,
    )


@register_method
class HeavyWaterMethod(_WatermarkMethod):
    name = "wm_heavywater"
    title = "HeavyWater"
    description = "OT sampling with i.i.d. normalised log-normal scores; z = sum f / sqrt(T)."
    paper = TSUR
    trade_off = "tilt_delta"
    trade_off_values = (0.0, 0.5, 1.0)

    class Config(_OTConfig):
        num_side_info: int = Field(
            1024, ge=2, le=65536, description="|S|, size of the side-information alphabet"
        )
        p_value: Literal["normal", "simulated"] = Field(
            "normal",
            description="normal: the paper's 1 - Phi(z); simulated: exact null of sum f by "
            "Monte Carlo over s (calibrated on short texts, where the skewed scores make the "
            "normal test anti-conservative)",
        )

    def _build(self, vocab_size, key, strength, track):
        return HeavyWaterLogitsProcessor(
            vocab_size,
            key=key,
            num_side_info=self.config.num_side_info,
            null=self.config.p_value,
            track=track,
            **_ot_kwargs(self.config, strength),
        )


@register_method
class SimplexWaterMethod(_WatermarkMethod):
    name = "wm_simplexwater"
    title = "SimplexWater"
    description = "OT sampling with the binary simplex code f = <bin(x), bin(s)> mod 2."
    paper = TSUR
    trade_off = "tilt_delta"
    trade_off_values = (0.0, 0.3, 0.6)
    Config = _OTConfig

    def _build(self, vocab_size, key, strength, track):
        return SimplexWaterLogitsProcessor(
            vocab_size, key=key, track=track, **_ot_kwargs(self.config, strength)
        )


@register_method
class RedGreenMethod(_WatermarkMethod):
    name = "wm_redgreen"
    title = "Red-green list (KGW)"
    description = "Kirchenbauer et al.: bias delta on a keyed gamma-fraction green list."
    paper = KIRCHENBAUER
    is_baseline = True
    trade_off = "delta"
    trade_off_values = (1.0, 2.0, 4.0)

    class Config(_CommonConfig):
        gamma: float = Field(0.25, gt=0.0, lt=1.0, description="green-list fraction")
        delta: float = Field(2.0, ge=0.0, le=20.0, description="logit bias on green tokens")

    def _build(self, vocab_size, key, strength, track):
        return RedGreenLogitsProcessor(
            vocab_size,
            key=key,
            gamma=self.config.gamma,
            delta=self.config.delta if strength is None else strength,
            context_width=self.config.context_width,
            track=track,
        )


@register_method
class GumbelMethod(_WatermarkMethod):
    name = "wm_gumbel"
    title = "Gumbel / exponential sampling (Aaronson)"
    description = "argmax r^(1/p) with keyed uniforms; Gamma test on sum -log(1 - r)."
    paper = AARONSON
    is_baseline = True
    Config = _CommonConfig

    def _build(self, vocab_size, key, strength, track):
        return GumbelLogitsProcessor(
            vocab_size, key=key, context_width=self.config.context_width, track=track
        )


@register_method
class InverseTransformMethod(_WatermarkMethod):
    name = "wm_inverse_transform"
    title = "Inverse transform sampling (Kuditipudi et al.)"
    description = "Keyed permutation + uniform, inverted through the CDF; rank-distance test."
    paper = KUDITIPUDI
    is_baseline = True
    Config = _CommonConfig

    def _build(self, vocab_size, key, strength, track):
        return InverseTransformLogitsProcessor(
            vocab_size, key=key, context_width=self.config.context_width, track=track
        )
