"""An HTSAT-like audio encoder on log-mel spectrograms.

HTSAT (Chen et al. 2022) embeds a log-mel image in patches, runs transformer stages with patch
merging in between (hierarchical: more channels, fewer tokens), and reads out tokens that keep
the time axis. This module keeps that structure (per-mel-bin batch norm, patch embedding,
stages with 2x2 patch merging) but uses full attention inside each stage instead of Swin's
shifted windows: at the token counts trained here the windows save nothing. Output: a clip
latent (the mean token, first) followed by the last stage's tokens in time-major order (all
frequency patches of time step 1, then of step 2, ...), the layout Mellow's decoder prefix
pools: pooling by the number of frequency patches gives one token per time step. It is trained from scratch here; the paper starts
from HTSAT pre-trained on AudioSet, which needs weights this project cannot download.
"""

from __future__ import annotations

import torch
from torch import nn

from workers.benchmarks.mellow_aqa.audio import LogMel


class _Block(nn.Module):
    def __init__(self, d: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, dropout=dropout, batch_first=True)
        self.mlp = nn.Sequential(
            nn.Linear(d, 4 * d), nn.GELU(), nn.Dropout(dropout), nn.Linear(4 * d, d)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class AudioEncoder(nn.Module):
    """Waveform (B, samples) -> tokens (B, 1 + T', d_out): clip latent, then time tokens."""

    def __init__(
        self,
        sample_rate: int = 16000,
        n_mels: int = 64,
        hop: int = 320,
        n_fft: int = 512,
        d: int = 64,
        depths: tuple[int, ...] = (2, 2),
        heads: int = 4,
        patch: tuple[int, int] = (8, 4),
        max_frames: int = 1024,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if n_mels % (patch[0] * 2 ** (len(depths) - 1)):
            raise ValueError(f"n_mels {n_mels} must divide by patch height x 2^(stages-1)")
        self.logmel = LogMel(sample_rate, n_fft, hop, n_mels)
        self.bn0 = nn.BatchNorm1d(n_mels)  # per-mel-bin normalisation, as HTSAT's bn0
        self.patch = patch
        self.embed = nn.Conv2d(1, d, kernel_size=patch, stride=patch)
        self.freq_pos = nn.Parameter(torch.zeros(1, d, n_mels // patch[0], 1))
        self.time_pos = nn.Parameter(torch.zeros(1, d, 1, max_frames // patch[1]))
        nn.init.trunc_normal_(self.freq_pos, std=0.02)
        nn.init.trunc_normal_(self.time_pos, std=0.02)
        self.stages, self.merges = nn.ModuleList(), nn.ModuleList()
        width = d
        for s, depth in enumerate(depths):
            self.stages.append(
                nn.Sequential(*[_Block(width, heads, dropout) for _ in range(depth)])
            )
            if s < len(depths) - 1:  # 2x2 patch merging: 4 neighbours -> 2x channels
                self.merges.append(
                    nn.Sequential(nn.LayerNorm(4 * width), nn.Linear(4 * width, 2 * width))
                )
                width *= 2
        self.norm = nn.LayerNorm(width)
        self.d_out = width
        self.time_stride = patch[1] * 2 ** (len(depths) - 1)
        self.freq_tokens = n_mels // (
            patch[0] * 2 ** (len(depths) - 1)
        )  # per time step, last stage

    def features(self, wav: torch.Tensor) -> torch.Tensor:
        """Log-mel (B, n_mels, frames) padded so the time axis divides by the total stride."""
        mel = self.logmel(wav)
        pad = (-mel.shape[-1]) % self.time_stride
        if pad:
            mel = nn.functional.pad(mel, (0, pad), value=float(mel.min()))
        return mel

    def forward(
        self, wav: torch.Tensor | None = None, *, mel: torch.Tensor | None = None
    ) -> torch.Tensor:
        mel = self.features(wav) if mel is None else mel
        x = self.bn0(mel)[:, None]  # (B, 1, F, T)
        x = self.embed(x)
        F, T = x.shape[-2:]
        if T > self.time_pos.shape[-1]:
            raise ValueError(f"clip too long: {T} time patches > max {self.time_pos.shape[-1]}")
        x = x + self.freq_pos + self.time_pos[..., :T]
        B, C = x.shape[:2]
        for s, stage in enumerate(self.stages):
            tokens = stage(x.flatten(2).transpose(1, 2))  # (B, F*T, C), frequency-major
            x = tokens.transpose(1, 2).reshape(B, C, F, T)
            if s < len(self.merges):
                x = x.reshape(B, C, F // 2, 2, T // 2, 2).permute(0, 2, 4, 3, 5, 1)
                x = self.merges[s](x.reshape(B, F // 2, T // 2, 4 * C)).permute(0, 3, 1, 2)
                B, C, F, T = x.shape
        tokens = self.norm(x.permute(0, 3, 2, 1).reshape(B, T * F, C))  # time-major
        return torch.cat([tokens.mean(dim=1, keepdim=True), tokens], dim=1)
