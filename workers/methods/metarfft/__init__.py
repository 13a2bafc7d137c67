"""Meta-RFFT (Hu et al. 2025): rule-following data formats, a small char-level Llama, methods."""

from workers.methods.metarfft import plugin  # noqa: F401  (registers the methods)
from workers.methods.metarfft.formats import DIRECT_ANSWER, RULE_FOLLOWING, ExampleFormat
from workers.methods.metarfft.lm import CharVocab, build_model, greedy_complete, train_on_pairs

__all__ = [
    "DIRECT_ANSWER",
    "RULE_FOLLOWING",
    "CharVocab",
    "ExampleFormat",
    "build_model",
    "greedy_complete",
    "train_on_pairs",
]
