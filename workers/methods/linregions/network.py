"""Fully connected ReLU networks as explicit weights, with per-pattern affine maps.

A network with hidden layers (W_l, b_l), l = 1..L, and an affine output (V, v) computes
    h_0 = x,  z_l = W_l h_{l-1} + b_l,  h_l = ReLU(z_l),  f(x) = V h_L + v.
A neuron is *active* at x iff its pre-activation z > 0 (so z = 0 counts as inactive); the
activation pattern of x is the 0/1 vector over all hidden neurons, layer by layer. Fixing the
pattern of layers 1..l-1 makes z_l an affine function of x, which is what the counters use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class ReLUNetwork:
    weights: list[np.ndarray]
    biases: list[np.ndarray]
    out_weight: np.ndarray
    out_bias: np.ndarray

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.biases) or not self.weights:
            raise ValueError("weights and biases must be non-empty lists of equal length")
        self.weights = [np.atleast_2d(np.asarray(W, dtype=float)) for W in self.weights]
        self.biases = [np.asarray(b, dtype=float).ravel() for b in self.biases]
        self.out_weight = np.atleast_2d(np.asarray(self.out_weight, dtype=float))
        self.out_bias = np.asarray(self.out_bias, dtype=float).ravel()
        prev = self.weights[0].shape[1]
        for layer, (W, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            if W.shape[1] != prev or b.shape[0] != W.shape[0]:
                raise ValueError(
                    f"layer {layer}: W {W.shape} / b {b.shape} do not chain from width {prev}"
                )
            prev = W.shape[0]
        if self.out_weight.shape[1] != prev or self.out_bias.shape[0] != self.out_weight.shape[0]:
            raise ValueError(
                f"output layer {self.out_weight.shape} does not match last width {prev}"
            )

    @property
    def input_dim(self) -> int:
        return self.weights[0].shape[1]

    @property
    def widths(self) -> list[int]:
        return [W.shape[0] for W in self.weights]

    @property
    def n_neurons(self) -> int:
        return sum(self.widths)

    @classmethod
    def random(
        cls, input_dim: int, widths: list[int], rng: np.random.Generator, out_dim: int = 1
    ) -> ReLUNetwork:
        """He-scaled Gaussian weights and biases (biases non-zero so the arrangement is generic)."""
        if input_dim < 1 or not widths or min(widths) < 1:
            raise ValueError(f"need input_dim >= 1 and positive widths, got {input_dim}, {widths}")
        dims = [input_dim, *widths]
        Ws = [
            rng.normal(scale=np.sqrt(2.0 / dims[i]), size=(dims[i + 1], dims[i]))
            for i in range(len(widths))
        ]
        bs = [
            rng.normal(scale=np.sqrt(2.0 / dims[i]), size=dims[i + 1]) for i in range(len(widths))
        ]
        V = rng.normal(scale=np.sqrt(1.0 / widths[-1]), size=(out_dim, widths[-1]))
        return cls(Ws, bs, V, np.zeros(out_dim))

    @classmethod
    def from_torch(cls, module) -> ReLUNetwork:
        """From an nn.Sequential of Linear / ReLU layers ending with a Linear layer."""
        import torch.nn as nn

        linears = [m for m in module if isinstance(m, nn.Linear)]
        if not linears or not all(isinstance(m, (nn.Linear, nn.ReLU)) for m in module):
            raise ValueError("module must be an nn.Sequential of nn.Linear and nn.ReLU layers")
        to_np = lambda t: t.detach().cpu().double().numpy()  # noqa: E731
        return cls(
            [to_np(m.weight) for m in linears[:-1]],
            [to_np(m.bias) for m in linears[:-1]],
            to_np(linears[-1].weight),
            to_np(linears[-1].bias),
        )

    def forward(self, X: np.ndarray) -> np.ndarray:
        h = np.atleast_2d(np.asarray(X, dtype=float))
        for W, b in zip(self.weights, self.biases, strict=True):
            h = np.maximum(h @ W.T + b, 0.0)
        return h @ self.out_weight.T + self.out_bias

    def patterns(self, X: np.ndarray) -> np.ndarray:
        """(N, n_neurons) boolean activation patterns (active iff pre-activation > 0)."""
        h = np.atleast_2d(np.asarray(X, dtype=float))
        pats = []
        for W, b in zip(self.weights, self.biases, strict=True):
            z = h @ W.T + b
            pats.append(z > 0)
            h = np.maximum(z, 0.0)
        return np.concatenate(pats, axis=1)

    def layer_maps(
        self, pattern: np.ndarray
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], tuple[np.ndarray, np.ndarray]]:
        """Affine pre-activation maps z_l = A_l x + c_l for every layer under `pattern`, and the
        output map f = G x + g on the pattern's region."""
        pattern = np.asarray(pattern, dtype=bool)
        A, c = np.eye(self.input_dim), np.zeros(self.input_dim)
        maps, start = [], 0
        for W, b in zip(self.weights, self.biases, strict=True):
            Az, cz = W @ A, W @ c + b
            maps.append((Az, cz))
            mask = pattern[start : start + W.shape[0]].astype(float)
            A, c = Az * mask[:, None], cz * mask
            start += W.shape[0]
        return maps, (self.out_weight @ A, self.out_weight @ c + self.out_bias)
