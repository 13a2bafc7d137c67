"""Two noisy views of scikit-learn's 8x8 digits, corrupted independently per sample.

Modality 0 is the image, modality 1 its transpose (a different sensor layout of the same
scene). Each view gets additive Gaussian noise whose standard deviation (the corruption level,
in units of the [0, 1] pixel range) is drawn per sample and per modality, so that sometimes one
modality is clean and the other useless: the situation ADMN's reallocation is for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def load_digit_split(
    test_size: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    digest = hashlib.sha256(np.ascontiguousarray(X).tobytes() + y.tobytes()).hexdigest()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_size, random_state=seed, stratify=y)
    return Xtr, Xte, ytr, yte, digest


def make_views(X: np.ndarray, sigma: np.ndarray, rng: np.random.Generator) -> list[torch.Tensor]:
    """Views of flattened 8x8 images X (N, 64) with per-sample noise std sigma (N, 2)."""
    if sigma.shape != (X.shape[0], 2):
        raise ValueError(f"sigma: expected shape {(X.shape[0], 2)}, got {sigma.shape}")
    imgs = X.reshape(-1, 8, 8)
    clean = [imgs.reshape(len(X), -1), imgs.transpose(0, 2, 1).reshape(len(X), -1)]
    return [
        torch.tensor(c + sigma[:, m : m + 1] * rng.standard_normal(c.shape), dtype=torch.float32)
        for m, c in enumerate(clean)
    ]


def random_levels(n: int, levels: Sequence[float], rng: np.random.Generator) -> np.ndarray:
    """(n, 2) corruption levels, each drawn uniformly from `levels` (the training/mixed regime)."""
    return rng.choice(np.asarray(levels, dtype=float), size=(n, 2))


def one_corrupted(n: int, level: float, clean: float, rng: np.random.Generator) -> np.ndarray:
    """(n, 2) levels where a random modality per sample is at `level` and the other at `clean`."""
    sigma = np.full((n, 2), clean, dtype=float)
    which = rng.integers(0, 2, size=n)
    sigma[np.arange(n), which] = level
    return sigma
