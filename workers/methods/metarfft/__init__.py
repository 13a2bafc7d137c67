"""Meta-RFFT (Hu et al. 2025): rule-following data formats, a small char-level Llama, any HF causal LM, methods."""

from workers.methods.metarfft import plugin  # noqa: F401  (registers the methods)
from workers.methods.metarfft.formats import DIRECT_ANSWER, RULE_FOLLOWING, ExampleFormat
from workers.methods.metarfft.hf import HFCausalLM
from workers.methods.metarfft.lm import (
    CharLM,
    CharVocab,
    build_model,
    fit_pairs,
    greedy_complete,
    train_on_pairs,
)

__all__ = [
    "DIRECT_ANSWER",
    "RULE_FOLLOWING",
    "CharLM",
    "CharVocab",
    "ExampleFormat",
    "HFCausalLM",
    "build_model",
    "fit_pairs",
    "greedy_complete",
    "train_on_pairs",
]
