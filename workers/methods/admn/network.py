"""ADMN as an nn.Module: per-modality layer-droppable backbones, a QoI controller, a fusion head.

Each modality m has a stem (input projection, always run) and L_m pre-norm residual MLP
blocks, so skipping block l is the identity map (what LayerDrop needs, Fan et al. 2019).
`forward(views, mask)` runs the blocks a per-sample 0/1 mask selects: in training mode every
block runs and its residual is scaled by the mask (so gradients reach a straight-through mask),
in eval mode each block runs only on the samples that selected it (the compute is really
skipped, which is what the FLOPs and latency numbers measure).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from workers.methods.admn.topl import allowed_mask, check_budget, gumbel_top_l, hard_top_l


class ResidualBlock(nn.Module):
    """x + W2 relu(W1 LN(x)): one droppable backbone layer."""

    def __init__(self, d: int, hidden: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def residual(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(self.norm(x))))


class ModalityBackbone(nn.Module):
    """Stem + L residual blocks + final norm, for one modality."""

    def __init__(self, in_dim: int, d: int, hidden: int, n_layers: int) -> None:
        super().__init__()
        if in_dim < 1 or d < 1 or hidden < 1 or n_layers < 1:
            raise ValueError("in_dim, d, hidden and n_layers must all be >= 1")
        self.stem = nn.Linear(in_dim, d)
        self.blocks = nn.ModuleList(ResidualBlock(d, hidden) for _ in range(n_layers))
        self.norm = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """x: (B, in_dim); mask: (B, L) with 0/1 entries (float; may carry gradients)."""
        if mask.shape != (x.shape[0], len(self.blocks)):
            raise ValueError(
                f"mask: expected shape {(x.shape[0], len(self.blocks))}, got {tuple(mask.shape)}"
            )
        h = self.stem(x)
        for i, block in enumerate(self.blocks):
            if self.training:
                h = h + mask[:, i : i + 1] * block.residual(h)
            else:  # run the layer only where it was selected
                idx = mask[:, i].nonzero(as_tuple=True)[0]
                if idx.numel() == h.shape[0]:  # every sample runs it: dense, no gather
                    h = h + block.residual(h)
                elif idx.numel():
                    h = h.index_add(0, idx, block.residual(h[idx]))
        return self.norm(h)


class QoIController(nn.Module):
    """Reads a cheap quality-of-information feature vector per modality and scores every layer.

    Per modality a small MLP embeds its QoI features; the embeddings are concatenated and an MLP
    outputs one logit per backbone layer of all modalities (ADMN Sec. 3.3). An auxiliary head
    regresses each modality's corruption level (the paper's corruption-aware supervision).
    """

    def __init__(self, qoi_dims: Sequence[int], layers: Sequence[int], hidden: int = 16) -> None:
        super().__init__()
        self.encoders = nn.ModuleList(
            nn.Sequential(nn.Linear(q, hidden), nn.ReLU()) for q in qoi_dims
        )
        k = hidden * len(qoi_dims)
        self.trunk = nn.Sequential(nn.Linear(k, hidden), nn.ReLU())
        self.layer_logits = nn.Linear(hidden, sum(layers))
        self.noise_head = nn.Linear(hidden, len(qoi_dims))

    def forward(self, qoi: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.trunk(torch.cat([enc(q) for enc, q in zip(self.encoders, qoi, strict=True)], -1))
        return self.layer_logits(z), self.noise_head(z)


def image_qoi(x: torch.Tensor, side: int, pool: int = 2) -> torch.Tensor:
    """Cheap QoI features of flattened square images: a pool x pool average-pooled thumbnail
    plus the log mean squared 4-neighbour Laplacian (high-frequency energy, which additive
    noise inflates)."""
    if x.shape[-1] != side * side:
        raise ValueError(
            f"x: expected {side * side} features for a {side}x{side} image, got {x.shape[-1]}"
        )
    img = x.reshape(-1, 1, side, side)
    thumb = nn.functional.avg_pool2d(img, pool).flatten(1)
    lap = (
        4 * img[..., 1:-1, 1:-1]
        - img[..., :-2, 1:-1]
        - img[..., 2:, 1:-1]
        - img[..., 1:-1, :-2]
        - img[..., 1:-1, 2:]
    )
    hf = torch.log(lap.pow(2).mean(dim=(1, 2, 3)) + 1e-3).unsqueeze(1)
    return torch.cat([thumb, hf], dim=1)


class ADMN(nn.Module):
    """Adaptive-depth multimodal network: M backbones, late fusion, QoI layer controller.

    `in_dims[m]` must be a square number (images, side = sqrt) for the default QoI features.
    `forward(views)` lets the controller pick `budget` layers (Gumbel top-L in training, hard
    top-L in eval) unless an explicit `mask` (B, sum L_m) is given; returns (logits, mask, noise).
    """

    def __init__(
        self,
        in_dims: Sequence[int],
        n_classes: int,
        layers: Sequence[int],
        budget: int,
        d: int = 32,
        hidden: int = 64,
        controller_hidden: int = 16,
        max_layers: Sequence[int] | None = None,
        tau: float = 1.0,
    ) -> None:
        super().__init__()
        if len(in_dims) != len(layers) or len(in_dims) < 1:
            raise ValueError(
                f"layers: need one entry per modality ({len(in_dims)}), got {len(layers)}"
            )
        if n_classes < 2:
            raise ValueError(f"n_classes: must be >= 2, got {n_classes}")
        self.layers = [int(n) for n in layers]
        self.sides = []
        for m, k in enumerate(in_dims):
            side = int(round(k**0.5))
            if side * side != k:
                raise ValueError(f"in_dims[{m}]: the image QoI needs a square input size, got {k}")
            self.sides.append(side)
        self.register_buffer("allowed", allowed_mask(self.layers, max_layers), persistent=False)
        check_budget(budget, self.allowed)
        self.budget, self.tau = int(budget), float(tau)
        self.d, self.hidden, self.in_dims, self.n_classes = d, hidden, list(in_dims), n_classes
        self.backbones = nn.ModuleList(
            ModalityBackbone(k, d, hidden, n) for k, n in zip(in_dims, self.layers, strict=True)
        )
        self.head = nn.Linear(d * len(in_dims), n_classes)
        qoi_dims = [(s // 2) ** 2 + 1 for s in self.sides]
        self.controller = QoIController(qoi_dims, self.layers, controller_hidden)

    def split(self, mask: torch.Tensor) -> list[torch.Tensor]:
        return list(mask.split(self.layers, dim=-1))

    def qoi(self, views: Sequence[torch.Tensor]) -> list[torch.Tensor]:
        return [image_qoi(v, s) for v, s in zip(views, self.sides, strict=True)]

    def select(
        self, views: Sequence[torch.Tensor], budget: int | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Controller's layer mask (B, sum L_m) and predicted corruption levels (B, M)."""
        budget = self.budget if budget is None else budget
        logits, noise = self.controller(self.qoi(views))
        if self.training:
            return gumbel_top_l(logits, budget, self.tau, self.allowed), noise
        return hard_top_l(logits, budget, self.allowed), noise

    def fuse(self, views: Sequence[torch.Tensor], mask: torch.Tensor) -> torch.Tensor:
        """Class logits with the backbones running the layers in `mask`."""
        if len(views) != len(self.backbones):
            raise ValueError(f"views: expected {len(self.backbones)} modalities, got {len(views)}")
        if mask.dim() != 2 or mask.shape[1] != sum(self.layers):
            raise ValueError(
                f"mask: expected shape (B, {sum(self.layers)}), got {tuple(mask.shape)}"
            )
        mask = mask.to(views[0].device)
        feats = [bb(v, m) for bb, v, m in zip(self.backbones, views, self.split(mask), strict=True)]
        return self.head(torch.cat(feats, dim=-1))

    def forward(
        self,
        views: Sequence[torch.Tensor],
        mask: torch.Tensor | None = None,
        budget: int | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        noise = None
        if mask is None:
            mask, noise = self.select(views, budget)
        return self.fuse(views, mask), mask, noise


# -- analytic FLOPs: 2 * in * out per Linear per sample (multiply + add), matmuls only ---------
def linear_flops(module: nn.Module) -> int:
    return sum(
        2 * m.in_features * m.out_features for m in module.modules() if isinstance(m, nn.Linear)
    )


def flops_per_sample(net: ADMN, mask: torch.Tensor, with_controller: bool = True) -> torch.Tensor:
    """Matmul FLOPs of each sample given its layer mask (B, sum L_m): stems + head always,
    a block's 4*d*hidden only where selected, plus the controller when it runs. Norms,
    activations, pooling and bias adds are not counted (they are < 2% here)."""
    block = 4 * net.d * net.hidden
    fixed = sum(linear_flops(bb.stem) for bb in net.backbones) + linear_flops(net.head)
    if with_controller:
        c = net.controller
        fixed += linear_flops(c.encoders) + linear_flops(c.trunk) + linear_flops(c.layer_logits)
    return fixed + block * mask.detach().sum(dim=-1)


def full_mask(net: ADMN, batch: int) -> torch.Tensor:
    return torch.ones(batch, sum(net.layers))


def static_mask(
    net: ADMN, per_modality_layers: Sequence[Sequence[int]], batch: int
) -> torch.Tensor:
    """The same mask for every sample: modality m runs the block indices in per_modality_layers[m]."""
    rows = []
    for n, idx in zip(net.layers, per_modality_layers, strict=True):
        row = torch.zeros(n)
        row[list(idx)] = 1.0
        rows.append(row)
    return torch.cat(rows).expand(batch, -1).clone()
