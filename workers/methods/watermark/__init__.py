"""Sampling-time LLM watermarks: HeavyWater, SimplexWater and their baselines.

Library use (any `transformers` causal LM):

    from transformers import LogitsProcessorList
    from workers.methods.watermark import SimplexWaterLogitsProcessor
    proc = SimplexWaterLogitsProcessor(model.config.vocab_size, key=42)
    out = model.generate(ids, do_sample=True, top_k=0, top_p=1.0, temperature=1.0,
                         logits_processor=LogitsProcessorList([proc]))
    result = proc.detector().detect(out[0, ids.shape[1]:].tolist(), context=ids[0].tolist())
"""

from workers.methods.watermark import plugin  # noqa: F401  (registers the methods)
from workers.methods.watermark.attacks import delete_tokens, substitute_tokens
from workers.methods.watermark.base import Detection, WatermarkDetector, WatermarkLogitsProcessor
from workers.methods.watermark.baselines import (
    GumbelDetector,
    GumbelLogitsProcessor,
    InverseTransformDetector,
    InverseTransformLogitsProcessor,
    RedGreenDetector,
    RedGreenLogitsProcessor,
)
from workers.methods.watermark.heavywater import HeavyWaterDetector, HeavyWaterLogitsProcessor
from workers.methods.watermark.simplexwater import SimplexWaterDetector, SimplexWaterLogitsProcessor
from workers.methods.watermark.sinkhorn import sinkhorn, top_p_indices

__all__ = [
    "Detection",
    "GumbelDetector",
    "GumbelLogitsProcessor",
    "HeavyWaterDetector",
    "HeavyWaterLogitsProcessor",
    "InverseTransformDetector",
    "InverseTransformLogitsProcessor",
    "RedGreenDetector",
    "RedGreenLogitsProcessor",
    "SimplexWaterDetector",
    "SimplexWaterLogitsProcessor",
    "WatermarkDetector",
    "WatermarkLogitsProcessor",
    "delete_tokens",
    "sinkhorn",
    "substitute_tokens",
    "top_p_indices",
]
