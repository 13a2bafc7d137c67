"""The small text-conditioned latent video diffusion model.

* `FrameAutoencoder`: a tiny conv autoencoder, 32x32x3 frames <-> 4x8x8 latents (per frame).
* `EpsNet`: a (2+1)-D conv eps-predictor on latents [N, C, F, h, w]: residual blocks of a
  spatial 3x3 conv and a temporal 3-tap conv, FiLM-modulated by the sum of a sinusoidal
  timestep embedding and the prompt's attribute embeddings (colour, shape, direction, speed).
* `SmallVideoDiffusion`: the two together with a cosine noise schedule; implements the
  samplers' `VideoDiffusionModel` interface with `cond` = a [4] (or [N, 4]) attribute tensor.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from workers.models.video_diffusion.interface import Schedule, uniform_schedule


def cosine_alphas_cumprod(T: int = 1000, s: float = 0.008) -> torch.Tensor:
    t = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((t + s) / (1 + s) * math.pi / 2) ** 2
    alphas = (f[1:] / f[0]).clamp(1e-5, 0.9999)
    return alphas.float()


class FrameAutoencoder(nn.Module):
    def __init__(self, latent_channels: int = 4, width: int = 32) -> None:
        super().__init__()
        w = width
        self.enc = nn.Sequential(
            nn.Conv2d(3, w, 4, 2, 1),
            nn.SiLU(),
            nn.Conv2d(w, 2 * w, 4, 2, 1),
            nn.SiLU(),
            nn.Conv2d(2 * w, latent_channels, 3, 1, 1),
        )
        self.dec = nn.Sequential(
            nn.Conv2d(latent_channels, 2 * w, 3, 1, 1),
            nn.SiLU(),
            nn.ConvTranspose2d(2 * w, w, 4, 2, 1),
            nn.SiLU(),
            nn.ConvTranspose2d(w, 3, 4, 2, 1),
        )
        self.register_buffer("scale", torch.ones(()))  # latents are divided by this (unit std)

    def encode(self, video: torch.Tensor) -> torch.Tensor:
        """[N, F, 3, H, W] in [0, 1] -> [N, C, F, h, w]"""
        n, f = video.shape[:2]
        z = self.enc(video.flatten(0, 1) * 2 - 1) / self.scale
        return z.view(n, f, *z.shape[1:]).transpose(1, 2)

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        """[N, C, F, h, w] -> [N, F, 3, H, W] in [0, 1]"""
        n, c, f = z.shape[:3]
        x = self.dec(z.transpose(1, 2).flatten(0, 1) * self.scale)
        return ((x + 1) / 2).clamp(0, 1).view(n, f, *x.shape[1:])


def timestep_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=1)


class Block(nn.Module):
    def __init__(self, ch: int, emb: int) -> None:
        super().__init__()
        self.n1 = nn.GroupNorm(8, ch)
        self.spatial = nn.Conv3d(ch, ch, (1, 3, 3), padding=(0, 1, 1))
        self.n2 = nn.GroupNorm(8, ch)
        self.temporal = nn.Conv3d(ch, ch, (3, 1, 1), padding=(1, 0, 0))
        self.film = nn.Linear(emb, 2 * ch)
        nn.init.zeros_(self.temporal.weight)
        nn.init.zeros_(self.temporal.bias)

    def forward(self, x: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        scale, shift = self.film(e)[:, :, None, None, None].chunk(2, dim=1)
        h = self.spatial(F.silu(self.n1(x)))
        h = h * (1 + scale) + shift
        h = self.temporal(F.silu(self.n2(h)))
        return x + h


class EpsNet(nn.Module):
    """Two-level (2+1)-D UNet: blocks at the latent resolution (width w) and at half of it (2w)."""

    def __init__(
        self,
        latent_channels: int = 4,
        width: int = 32,
        blocks: int = 2,
        n_classes: tuple[int, ...] = (4, 3, 4, 2),
        frames: int = 8,
        latent_size: int = 8,
    ) -> None:
        super().__init__()
        w, emb = width, 4 * width
        self.width = width
        self.t_mlp = nn.Sequential(nn.Linear(width, emb), nn.SiLU(), nn.Linear(emb, emb))
        self.attr = nn.ModuleList(nn.Embedding(n, emb) for n in n_classes)
        self.inp = nn.Conv3d(latent_channels + 3, w, (1, 3, 3), padding=(0, 1, 1))
        self.hi_in = Block(w, emb)
        self.down = nn.Conv3d(w, 2 * w, (1, 4, 4), stride=(1, 2, 2), padding=(0, 1, 1))
        self.mid = nn.ModuleList(Block(2 * w, emb) for _ in range(blocks))
        self.up = nn.ConvTranspose3d(2 * w, w, (1, 4, 4), stride=(1, 2, 2), padding=(0, 1, 1))
        self.hi_out = Block(w, emb)
        self.out_norm = nn.GroupNorm(8, w)
        self.out = nn.Conv3d(w, latent_channels, (1, 3, 3), padding=(0, 1, 1))
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)
        # coordinate channels (frame index, y, x): lets convs know where and when they are
        f = (
            torch.linspace(-1, 1, frames)
            .view(frames, 1, 1)
            .expand(frames, latent_size, latent_size)
        )
        y = torch.linspace(-1, 1, latent_size).view(1, latent_size, 1).expand_as(f)
        x = torch.linspace(-1, 1, latent_size).view(1, 1, latent_size).expand_as(f)
        self.register_buffer("coords", torch.stack([f, y, x])[None].contiguous())

    def forward(self, z: torch.Tensor, t: torch.Tensor, attrs: torch.Tensor) -> torch.Tensor:
        e = self.t_mlp(timestep_embedding(t, self.width))
        for i, table in enumerate(self.attr):
            e = e + table(attrs[:, i])
        e = F.silu(e)
        h = self.inp(torch.cat([z, self.coords.expand(z.shape[0], -1, -1, -1, -1)], dim=1))
        skip = self.hi_in(h, e)
        m = self.down(skip)
        for block in self.mid:
            m = block(m, e)
        h = self.hi_out(skip + self.up(m), e)
        return self.out(F.silu(self.out_norm(h)))


class SmallVideoDiffusion(nn.Module):
    """Autoencoder + eps-net + cosine schedule; the samplers' model interface."""

    def __init__(
        self, ae: FrameAutoencoder, net: EpsNet, frames: int, latent_size: int, T: int = 1000
    ) -> None:
        super().__init__()
        self.ae, self.net = ae, net
        self.register_buffer("alphas_cumprod", cosine_alphas_cumprod(T))
        self.latent_shape = (ae.dec[0].in_channels, frames, latent_size, latent_size)
        self.x0_clip = 4.0  # latents have unit std; the data's never exceed about 4

    def schedule(self, steps: int) -> Schedule:
        return uniform_schedule(self.alphas_cumprod, steps)

    @torch.no_grad()
    def eps(self, z: torch.Tensor, t: int, cond: Any) -> torch.Tensor:
        attrs = torch.as_tensor(cond, dtype=torch.long, device=z.device)
        if attrs.dim() == 1:
            attrs = attrs[None].expand(z.shape[0], -1)
        tt = torch.full((z.shape[0],), int(t), device=z.device)
        return self.net(z, tt, attrs)

    @torch.no_grad()
    def decode(self, z: torch.Tensor) -> torch.Tensor:
        return self.ae.decode(z)
