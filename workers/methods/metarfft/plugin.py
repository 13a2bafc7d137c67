"""Meta-RFFT and its direct-answer baseline as methods of `metarfft_lengthgen`.

Interface the benchmark calls: `method.example_format()` -> `ExampleFormat` (how an instance is
rendered as (prompt, target) for training, fine-tuning, in-context examples and evaluation).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from workers.core import Method, PluginConfig, register_method
from workers.methods.metarfft.formats import ExampleFormat
from workers.methods.metarfft.paper import META_RFFT


@register_method
class MetaRFFTMethod(Method):
    name = "metarfft"
    title = "Meta-RFFT (rule-following fine-tuning on many tasks)"
    description = "Input: the task's rule and the question; target: the rule's step-by-step execution, then the answer."
    paper = META_RFFT
    benchmarks: ClassVar[tuple[str, ...]] = ("metarfft_lengthgen",)

    class Config(PluginConfig):
        show_trace: bool = Field(
            True, description="train on the execution trace (False: rule in input, answer only)"
        )

    def example_format(self) -> ExampleFormat:
        return ExampleFormat(show_rule=True, show_trace=self.config.show_trace)


@register_method
class DirectAnswerMethod(Method):
    name = "metarfft_direct"
    title = "Direct-answer multi-task training (no rules)"
    description = "Input: the task's name and the question; target: the answer alone."
    paper = META_RFFT
    is_baseline = True
    benchmarks: ClassVar[tuple[str, ...]] = ("metarfft_lengthgen",)

    def example_format(self) -> ExampleFormat:
        return ExampleFormat(show_rule=False, show_trace=False)
