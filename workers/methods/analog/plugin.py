"""Platform methods for `analog_fidelity`: a distilled analog vs one trained from scratch."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from workers.core import Method, Paper, PluginConfig, register_method
from workers.methods.analog.distill import distill

ANALOG_PAPER = Paper(
    key="analog-models",
    title='Position: Require Frontier AI Labs To Release Small "Analog" Models',
    authors=("Shriyash Upadhyay", "Chaithanya Bandi", "Narmeen Oozeer", "Philip Quirke"),
    venue="NeurIPS 2025 Position Paper Track (arXiv 2510.14053)",
    year=2025,
    abstract=(
        "Proposes that large labs release small, openly accessible analog models distilled from their "
        "largest models, so outside researchers can do safety and interpretability work on the analog "
        "and expect it to transfer to the frontier model."
    ),
    headline_claim=(
        "Safety and interpretability findings on small distilled analogs transfer to the large "
        "model they were distilled from."
    ),
    url="https://arxiv.org/abs/2510.14053",
    claim_benchmark="analog_fidelity",
    claim_method="analog_distill",
    claim_baseline="analog_scratch",
    claim_metric="agreement",
    tags=("safety", "interpretability", "distillation"),
)


class _AnalogMethod(Method):
    benchmarks: ClassVar[tuple[str, ...]] = ("analog_fidelity",)
    paper = ANALOG_PAPER
    alpha: ClassVar[float] = 1.0

    def make_analog(
        self,
        student,
        teacher,
        train_ids,
        *,
        steps: int,
        batch_size: int,
        seq_len: int,
        seed: int,
        device,
        callback=None,
    ) -> list[float]:
        """Train `student` into an analog of `teacher` on `train_ids`; returns the loss curve."""
        c = self.config
        return distill(
            student,
            teacher,
            train_ids,
            steps=steps,
            batch_size=batch_size,
            seq_len=seq_len,
            lr=c.lr,
            temperature=getattr(c, "temperature", 1.0),
            alpha=self.alpha,
            seed=seed,
            device=device,
            callback=callback,
        )


@register_method
class AnalogDistill(_AnalogMethod):
    name = "analog_distill"
    title = "Analog by logit distillation from the teacher"

    class Config(PluginConfig):
        lr: float = Field(3e-3, gt=0, le=1.0, description="AdamW learning rate for the student")
        temperature: float = Field(
            1.0, gt=0, le=20.0, description="Softmax temperature T of the distillation KL"
        )


@register_method
class AnalogScratch(_AnalogMethod):
    name = "analog_scratch"
    title = "Same-size model trained on the same text without the teacher (baseline)"
    is_baseline = True
    alpha = 0.0

    class Config(PluginConfig):
        lr: float = Field(3e-3, gt=0, le=1.0, description="AdamW learning rate")
