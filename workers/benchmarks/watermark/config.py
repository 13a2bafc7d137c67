"""Configuration of the `wm_detection` benchmark (the launch form is generated from it)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from workers.core import PluginConfig


class WatermarkBenchConfig(PluginConfig):
    n_prompts: int = Field(4, ge=1, le=1000, description="prompts per regime (code, text)")
    prompt_tokens: int = Field(32, ge=4, le=1024, description="prompt length in tokens")
    new_tokens: int = Field(48, ge=4, le=2048, description="generated tokens per prompt")
    fpr_level: float = Field(
        0.01, gt=0.0, lt=0.5, description="nominal false-positive rate of the test"
    )
    alpha_tokens: float = Field(
        0.02, gt=0.0, lt=0.5, description="p-value target for 'tokens needed'"
    )
    attack_rates: tuple[float, ...] = Field(
        (0.1, 0.3), description="substitution / deletion rates (each in [0, 0.9])"
    )
    null_keys: int = Field(
        8, ge=1, le=1000, description="keys the unwatermarked texts are tested with (FPR estimate)"
    )
    sweep: bool = Field(
        True, description="also run the method's trade-off sweep (detection vs distortion curve)"
    )
    lm_train_steps: int = Field(
        150,
        ge=0,
        le=100000,
        description="steps to train the char-level Llama when no model is given",
    )
    lm: Literal["char", "tiny_llama"] = Field(
        "char",
        description="model without a run model: char-level Llama, or the project's BPE tiny Llama",
    )
    lm_hidden: int = Field(64, ge=16, le=1024, description="hidden size of the char-level Llama")
    lm_layers: int = Field(2, ge=1, le=24, description="layers of the char-level Llama")
    model_path: str = Field(
        "",
        max_length=1000,
        description="local Hugging Face causal LM directory to generate with (never downloaded); "
        "empty: the run's model if it has one, else the `lm` choice",
    )
    model_dtype: Literal["float32", "bfloat16", "auto"] = Field(
        "auto", description="weights dtype when loading model_path (auto: as stored)"
    )
    temperature: float = Field(
        1.0,
        gt=0.05,
        le=5.0,
        description="sampling temperature applied to the logits before the watermark (< 1 "
        "lowers the entropy: the low-entropy regime on any model); P is the tempered law",
    )

    def model_post_init(self, __context: Any) -> None:
        if any(not 0.0 <= r <= 0.9 for r in self.attack_rates):
            raise ValueError(f"attack_rates must lie in [0, 0.9], got {self.attack_rates}")
