"""Self-supervised pre-training on small images and the few-label linear probe.

`train_ssl` trains an MLP encoder + projector on two augmented views per image with any of the
objectives in losses.py; `linear_probe` fits a logistic regression on frozen representations
with k labels per class. Images are (n, side*side) arrays in [0, 1] (digits: side 8).
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression
from torch import nn


def augment(
    x: torch.Tensor,
    side: int,
    generator: torch.Generator,
    max_shift: int = 1,
    noise: float = 0.1,
    erase: float = 0.25,
) -> torch.Tensor:
    """Random translation (zero padded), Gaussian pixel noise and a random erased square."""
    n = x.shape[0]
    img = x.view(n, 1, side, side)
    pad = torch.nn.functional.pad(img, (max_shift,) * 4)
    dx = torch.randint(0, 2 * max_shift + 1, (n,), generator=generator)
    dy = torch.randint(0, 2 * max_shift + 1, (n,), generator=generator)
    rows = (dy.view(n, 1) + torch.arange(side).view(1, side)).to(x.device)
    cols = (dx.view(n, 1) + torch.arange(side).view(1, side)).to(x.device)
    out = pad[
        torch.arange(n, device=x.device).view(n, 1, 1),
        0,
        rows.view(n, side, 1),
        cols.view(n, 1, side),
    ]
    out = out + noise * torch.randn(out.shape, generator=generator).to(x.device)
    if erase > 0:
        size = max(1, int(round(side * erase)))
        r0 = torch.randint(0, side - size + 1, (n,), generator=generator)
        c0 = torch.randint(0, side - size + 1, (n,), generator=generator)
        rr = torch.arange(side).view(1, side, 1)
        cc = torch.arange(side).view(1, 1, side)
        mask = (
            (rr >= r0.view(n, 1, 1))
            & (rr < (r0 + size).view(n, 1, 1))
            & (cc >= c0.view(n, 1, 1))
            & (cc < (c0 + size).view(n, 1, 1))
        ).to(x.device)
        out = out.masked_fill(mask, 0.0)
    return out.reshape(n, side * side)


class Encoder(nn.Module):
    def __init__(
        self, in_dim: int, hidden: int = 256, rep_dim: int = 64, proj_dim: int = 64
    ) -> None:
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, rep_dim)
        )
        self.projector = nn.Sequential(nn.ReLU(), nn.Linear(rep_dim, proj_dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.projector(self.backbone(x))


def train_ssl(
    X: np.ndarray,
    objective: nn.Module,
    *,
    side: int = 8,
    batch_size: int = 64,
    epochs: int = 20,
    lr: float = 1e-3,
    seed: int = 0,
    device: str = "cpu",
    on_epoch=None,
) -> Encoder:
    """Pre-train an encoder with `objective(z1, z2)` on two augmented views per image."""
    if batch_size < 4:
        raise ValueError(f"batch_size must be >= 4, got {batch_size}")
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    Xt = torch.as_tensor(X, dtype=torch.float32, device=device)
    model = Encoder(Xt.shape[1]).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-5)
    n = len(Xt)
    for epoch in range(epochs):
        order = torch.randperm(n, generator=g).to(device)
        total = 0.0
        for s in range(0, n - batch_size + 1, batch_size):  # drop the ragged last batch
            xb = Xt[order[s : s + batch_size]]
            loss = objective(model(augment(xb, side, g)), model(augment(xb, side, g)))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += float(loss)
        if on_epoch is not None:
            on_epoch(epoch, total)
    model.eval()
    return model


@torch.no_grad()
def represent(model: Encoder, X: np.ndarray, device: str = "cpu") -> np.ndarray:
    return model.backbone(torch.as_tensor(X, dtype=torch.float32, device=device)).cpu().numpy()


def linear_probe(
    Z_train: np.ndarray,
    y_train: np.ndarray,
    Z_test: np.ndarray,
    y_test: np.ndarray,
    labels_per_class: int,
    rng: np.random.Generator,
) -> float:
    """Test accuracy of a logistic regression fitted on k labelled representations per class."""
    idx = np.concatenate(
        [
            rng.choice(np.flatnonzero(y_train == c), labels_per_class, replace=False)
            for c in np.unique(y_train)
        ]
    )
    mu, sd = Z_train.mean(0), Z_train.std(0) + 1e-8
    clf = LogisticRegression(max_iter=2000, C=1.0).fit((Z_train[idx] - mu) / sd, y_train[idx])
    return float(clf.score((Z_test - mu) / sd, y_test))
