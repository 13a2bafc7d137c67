"""Where Gaussian logits come from: a last-layer Laplace approximation, a heteroscedastic head,
and an SNGP-style head (spectral-normalised trunk + random-feature GP output layer).

`GaussianLogitClassifier` (scikit-learn style) trains a small MLP with the loss matching its
link and exposes `logit_moments(X) -> (mu, var)`, the per-class Gaussian marginals every
predictive in `predictives.py` consumes.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.parametrizations import spectral_norm
from torch.special import log_ndtr

from workers.methods.probit.losses import GaussianLogitNLLLoss, NormedLinkNLLLoss, log_normed_link

SOURCES = ("laplace", "heteroscedastic", "sngp")


def link_fisher(f: torch.Tensor, link: str) -> torch.Tensor:
    """Fisher information of p = g(f)/sum g(f) w.r.t. the logits f, per sample: (n, C, C).

    With r = g'/g and p the normalised probabilities, d log p_y / df = e_y r - p r, hence
    F = sum_y p_y (e_y r - p r)(e_y r - p r)^T = diag(p r^2) - (p r)(p r)^T; for softmax
    (r = 1) this is the familiar diag(p) - p p^T, the generalised Gauss-Newton matrix.
    """
    p = log_normed_link(f, link).exp()
    if link == "softmax":
        r = torch.ones_like(f)
    elif link == "normcdf":
        r = torch.exp(-0.5 * f**2 - 0.5 * math.log(2 * math.pi) - log_ndtr(f))
    else:
        r = torch.sigmoid(-f)
    u = p * r
    return torch.diag_embed(u * r) - u.unsqueeze(2) * u.unsqueeze(1)


class Trunk(nn.Sequential):
    def __init__(self, in_dim: int, hidden: int, spectral: bool = False) -> None:
        wrap = spectral_norm if spectral else (lambda m: m)
        super().__init__(
            wrap(nn.Linear(in_dim, hidden)), nn.ReLU(), wrap(nn.Linear(hidden, hidden)), nn.ReLU()
        )


class RandomFeatureGP(nn.Module):
    """SNGP output layer: fixed random Fourier features phi(h) = sqrt(2/D) cos(W h + b), then beta."""

    def __init__(
        self, hidden: int, n_features: int, n_classes: int, generator: torch.Generator
    ) -> None:
        super().__init__()
        self.register_buffer("W", torch.randn(n_features, hidden, generator=generator))
        self.register_buffer("b", torch.rand(n_features, generator=generator) * 2 * math.pi)
        self.beta = nn.Linear(n_features, n_classes)

    def features(self, h: torch.Tensor) -> torch.Tensor:
        return math.sqrt(2.0 / self.W.shape[0]) * torch.cos(h @ self.W.T + self.b)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.beta(self.features(h))


class GaussianLogitClassifier:
    """MLP classifier whose logits are Gaussian, trained with the loss of `link`.

    prior_precision: tau of the Laplace / SNGP posterior; 0 = choose it by the Laplace evidence
    (last-layer Laplace) or use 1 (SNGP, its usual ridge penalty).
    """

    def __init__(
        self,
        link: str = "normcdf",
        source: str = "laplace",
        hidden: int = 64,
        epochs: int = 15,
        lr: float = 3e-3,
        weight_decay: float = 1e-3,
        batch_size: int = 128,
        prior_precision: float = 0.0,
        rff_features: int = 256,
        mc_train_samples: int = 10,
        random_state: int = 0,
        device: str = "cpu",
    ) -> None:
        self.link, self.source, self.hidden, self.epochs, self.lr = link, source, hidden, epochs, lr
        self.weight_decay, self.batch_size, self.prior_precision = (
            weight_decay,
            batch_size,
            prior_precision,
        )
        self.rff_features, self.mc_train_samples, self.random_state, self.device = (
            rff_features,
            mc_train_samples,
            random_state,
            device,
        )

    # -- training -------------------------------------------------------------------------
    def _forward(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        out = self.head_(self.trunk_(X))
        if self.source == "heteroscedastic":
            mu, raw = out.chunk(2, dim=1)
            return mu, F.softplus(raw) + 1e-4
        return out, None

    def fit(self, X, y) -> GaussianLogitClassifier:
        if self.link not in ("normcdf", "sigmoid", "softmax"):
            raise ValueError(f"link must be normcdf, sigmoid or softmax; got {self.link!r}")
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}; got {self.source!r}")
        X = np.asarray(X, dtype=np.float64)
        self.classes_, y_enc = np.unique(np.asarray(y), return_inverse=True)
        self.mean_, sd = X.mean(0), X.std(0)
        self.std_ = np.where(sd > 0, sd, 1.0)
        Xt, yt = self._tensor(X), torch.as_tensor(y_enc, device=self.device)
        C = len(self.classes_)
        gen = torch.Generator().manual_seed(self.random_state)
        torch.manual_seed(self.random_state)
        self.trunk_ = Trunk(X.shape[1], self.hidden, spectral=self.source == "sngp").to(self.device)
        if self.source == "sngp":
            self.head_ = RandomFeatureGP(self.hidden, self.rff_features, C, gen).to(self.device)
        else:
            self.head_ = nn.Linear(
                self.hidden, 2 * C if self.source == "heteroscedastic" else C
            ).to(self.device)
        params = list(self.trunk_.parameters()) + list(self.head_.parameters())
        opt = torch.optim.Adam(params, lr=self.lr, weight_decay=self.weight_decay)
        loss_det = NormedLinkNLLLoss(self.link)
        loss_het = GaussianLogitNLLLoss(self.link, self.mc_train_samples)
        n = len(Xt)
        for _ in range(self.epochs):
            order = torch.randperm(n, generator=gen).to(self.device)
            for s in range(0, n, self.batch_size):
                idx = order[s : s + self.batch_size]
                mu, var = self._forward(Xt[idx])
                loss = loss_het(mu, var, yt[idx]) if var is not None else loss_det(mu, yt[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
        self.trunk_.eval()
        with torch.no_grad():
            if self.source == "laplace":
                self._fit_last_layer_laplace(Xt)
            elif self.source == "sngp":
                self._fit_sngp_precision(Xt)
        return self

    def _tensor(self, X: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(
            (X - self.mean_) / self.std_, dtype=torch.float32, device=self.device
        )

    def _phi(self, X: torch.Tensor) -> torch.Tensor:
        h = self.trunk_(X)
        return torch.cat([h, torch.ones(len(h), 1, device=h.device)], 1)  # bias as a feature

    def _fit_last_layer_laplace(self, X: torch.Tensor) -> None:
        """Posterior covariance of the last layer's [W, b]: (sum_i F_i (x) phi_i phi_i^T + tau I)^-1."""
        phi = self._phi(X).double()
        W = torch.cat([self.head_.weight, self.head_.bias.unsqueeze(1)], 1).double()
        Fi = link_fisher(phi @ W.T, self.link)  # (n, C, C)
        C, K = W.shape
        G = torch.einsum("icd,ik,il->ckdl", Fi, phi, phi).reshape(C * K, C * K)
        tau = (
            self.prior_precision
            if self.prior_precision > 0
            else self._evidence_tau(G, W.reshape(-1))
        )
        self.prior_precision_ = float(tau)
        Sigma = torch.linalg.inv(
            G + tau * torch.eye(C * K, dtype=G.dtype, device=G.device)
        ).reshape(C, K, C, K)
        self.sigma_blocks_ = (
            torch.diagonal(Sigma, dim1=0, dim2=2).permute(2, 0, 1).contiguous()
        )  # (C, K, K)

    @staticmethod
    def _evidence_tau(G: torch.Tensor, theta: torch.Tensor) -> float:
        """Prior precision maximising the Laplace evidence, on a log grid (Immer et al., 2021):
        -tau/2 |theta|^2 + P/2 log tau - 1/2 log det(G + tau I); the data term does not depend on tau."""
        eig = torch.linalg.eigvalsh(0.5 * (G + G.T)).clamp(min=0)
        taus = torch.logspace(-3, 4, 57, dtype=G.dtype)
        sq = float(theta @ theta)
        ev = [
            -0.5 * t * sq + 0.5 * len(eig) * math.log(t) - 0.5 * torch.log(eig + t).sum().item()
            for t in taus.tolist()
        ]
        return float(taus[int(np.argmax(ev))])

    def _fit_sngp_precision(self, X: torch.Tensor) -> None:
        """SNGP's Laplace precision tau I + sum_i p_i (1 - p_i) phi_i phi_i^T (p_i: top-class prob)."""
        phi = self.head_.features(self.trunk_(X)).double()
        p = log_normed_link(self.head_.beta(phi.float()), self.link).exp().max(1).values.double()
        P = (phi * (p * (1 - p)).unsqueeze(1)).T @ phi
        self.prior_precision_ = self.prior_precision if self.prior_precision > 0 else 1.0
        P += self.prior_precision_ * torch.eye(phi.shape[1], dtype=P.dtype, device=P.device)
        self.gp_cov_ = torch.linalg.inv(P)

    # -- prediction ------------------------------------------------------------------------
    @torch.no_grad()
    def logit_moments(self, X) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-class Gaussian marginals (mu, var) of the logits, each (n, C), float64."""
        if not hasattr(self, "trunk_"):
            raise RuntimeError("call fit() first")
        Xt = self._tensor(np.asarray(X, dtype=np.float64))
        if self.source == "heteroscedastic":
            mu, var = self._forward(Xt)
            return mu.double(), var.double()
        if self.source == "laplace":
            phi = self._phi(Xt).double()
            mu = self.head_(self.trunk_(Xt)).double()
            var = torch.einsum("ik,ckl,il->ic", phi, self.sigma_blocks_, phi)
            return mu, var.clamp(min=0)
        phi = self.head_.features(self.trunk_(Xt)).double()
        mu = self.head_.beta(phi.float()).double()
        var = torch.einsum("ik,kl,il->i", phi, self.gp_cov_, phi).clamp(min=0)
        return mu, var.unsqueeze(1).expand_as(mu).contiguous()
