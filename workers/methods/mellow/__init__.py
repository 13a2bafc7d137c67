"""Mellow (Deshmukh et al. 2025): a small audio-language model for reasoning, and its baselines."""

from workers.methods.mellow.baselines import (
    AudioClassifier,
    AudioClassifierMethod,
    CaptionOnlyLM,
    CaptionOnlyMethod,
)
from workers.methods.mellow.config import MellowConfig, paper_scale_config
from workers.methods.mellow.encoder import AudioEncoder
from workers.methods.mellow.model import Mellow
from workers.methods.mellow.plugin import MellowMethod
from workers.methods.mellow.projection import LinearProjection, MLPProjection, downsample

__all__ = [
    "AudioClassifier",
    "AudioClassifierMethod",
    "AudioEncoder",
    "CaptionOnlyLM",
    "CaptionOnlyMethod",
    "LinearProjection",
    "MLPProjection",
    "Mellow",
    "MellowConfig",
    "MellowMethod",
    "downsample",
    "paper_scale_config",
]
