"""What the samplers need from a latent video diffusion model, and NFE counting.

A model is "DDIM-compatible" when it exposes a noise schedule (`alphas_cumprod`), an
eps-prediction `eps(z, t, cond)` on a batch of latents at one timestep, and `decode(z)` from
latents to videos [N, F, 3, H, W] in [0, 1]. The project's small model (`model.py`) and the
diffusers adapter (`diffusers_adapter.py`) both implement this interface.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import torch


class VideoDiffusionModel(Protocol):
    latent_shape: tuple[int, ...]  # one sample's latent shape, e.g. (C, F, h, w)
    alphas_cumprod: torch.Tensor  # [T_train], decreasing
    x0_clip: float | None  # optional: clamp x0 estimates to [-x0_clip, x0_clip]

    def eps(self, z: torch.Tensor, t: int, cond: Any) -> torch.Tensor: ...

    def decode(self, z: torch.Tensor) -> torch.Tensor: ...

    def schedule(self, steps: int) -> Schedule: ...


@dataclass(frozen=True)
class Schedule:
    """A DDIM schedule of `S` steps: step i goes from timestep `timesteps[i]` (cumulative alpha
    `alphas[i]`) to the next timestep (`alphas_prev[i]`; the last step ends at `final_alpha`,
    the clean sample)."""

    timesteps: tuple[int, ...]
    alphas: torch.Tensor  # [S] float64
    final_alpha: float = 1.0

    def __len__(self) -> int:
        return len(self.timesteps)

    def alpha_after(self, i: int) -> float:
        """Cumulative alpha after step i (at timestep i+1, or the final alpha)."""
        return float(self.alphas[i + 1]) if i + 1 < len(self.timesteps) else self.final_alpha


def uniform_schedule(
    alphas_cumprod: torch.Tensor, steps: int, final_alpha: float = 1.0
) -> Schedule:
    """DDIM's uniform ("trailing") spacing over T_train timesteps: t_i = T - 1 - i * T / S."""
    T = len(alphas_cumprod)
    if not 1 <= steps <= T:
        raise ValueError(f"steps must be in [1, {T}], got {steps}")
    ts = [int(round(T - 1 - i * T / steps)) for i in range(steps)]
    alphas = alphas_cumprod.double()[torch.tensor(ts)]
    return Schedule(tuple(ts), alphas, final_alpha)


class CountedModel:
    """Wraps a model and counts network evaluations: one NFE per latent (batch row) per call."""

    def __init__(self, model: VideoDiffusionModel) -> None:
        self.model = model
        self.nfe = 0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    def eps(self, z: torch.Tensor, t: int, cond: Any) -> torch.Tensor:
        self.nfe += int(z.shape[0])
        self.calls += 1
        return self.model.eps(z, t, cond)
