"""Sampling-free predictives for Gaussian logits (Mucsanyi, Da Costa, Hennig).

Logits z_c ~ N(mu_c, var_c), independent across classes. Instead of softmax(z), the class
probabilities are an element-wise link normalised over classes, p_c = g(z_c) / sum_j g(z_j),
whose Gaussian expectations have closed forms:

    normCDF link, g = Phi:      E[Phi(z_c)]     = Phi(mu_c / sqrt(1 + var_c))          (exact)
    sigmoid link, g = sigma:    E[sigma(z_c)]  ~= sigma(mu_c / sqrt(1 + pi var_c / 8))   (probit approx.)

and the predictive is E[g(z_c)] / sum_j E[g(z_j)]. Second moments use Owen's T function:
E[Phi(z)^2] = Phi(h) - 2 T(h, 1 / sqrt(1 + 2 var)) with h = mu / sqrt(1 + var); for the
sigmoid link sigma(x) ~ Phi(sqrt(pi/8) x) is used inside T. From the two moments a Dirichlet
is moment-matched (its mean is the predictive; its precision carries the spread).
All functions take (mu, var) tensors of shape (n, C) and return (n, C).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from scipy.special import owens_t
from torch.special import log_ndtr, ndtr

LAMBDA0 = math.pi / 8  # sigma(x) ~ Phi(sqrt(pi/8) x)
LINKS = ("normcdf", "sigmoid", "softmax")


def _check(mu: torch.Tensor, var: torch.Tensor) -> None:
    if mu.shape != var.shape or mu.dim() != 2:
        raise ValueError(
            f"mu and var must both be (n, C); got {tuple(mu.shape)} and {tuple(var.shape)}"
        )
    if bool((var < 0).any()):
        raise ValueError("var must be non-negative")


def normcdf_mean(mu: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    """E[Phi(z)] for z ~ N(mu, var), element-wise (exact)."""
    return ndtr(mu / torch.sqrt(1 + var))


def sigmoid_mean(mu: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    """E[sigma(z)] by the probit approximation sigma(mu / sqrt(1 + pi var / 8))."""
    return torch.sigmoid(mu / torch.sqrt(1 + LAMBDA0 * var))


def normcdf_predictive(mu: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    """Phi(mu / sqrt(1 + var)) normalised over classes (computed in log space)."""
    _check(mu, var)
    return torch.softmax(log_ndtr(mu / torch.sqrt(1 + var)), dim=1)


def sigmoid_predictive(mu: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    """sigma(mu / sqrt(1 + pi var / 8)) normalised over classes."""
    _check(mu, var)
    return torch.softmax(F.logsigmoid(mu / torch.sqrt(1 + LAMBDA0 * var)), dim=1)


def softmax_mean_field(mu: torch.Tensor, var: torch.Tensor) -> torch.Tensor:
    """The usual sampling-free softmax approximation: softmax(mu / sqrt(1 + pi var / 8))."""
    _check(mu, var)
    return torch.softmax(mu / torch.sqrt(1 + LAMBDA0 * var), dim=1)


def second_moment(mu: torch.Tensor, var: torch.Tensor, link: str = "normcdf") -> torch.Tensor:
    """E[g(z)^2] element-wise via Owen's T (exact for normCDF, probit-approximate for sigmoid)."""
    _check(mu, var)
    scale = 1.0 if link == "normcdf" else LAMBDA0 if link == "sigmoid" else None
    if scale is None:
        raise ValueError(f"link must be 'normcdf' or 'sigmoid', got {link!r}")
    first = normcdf_mean(mu, var) if link == "normcdf" else sigmoid_mean(mu, var)
    h = (mu / torch.sqrt(1 / scale + var)).detach().cpu().double().numpy()
    a = (1 / torch.sqrt(1 + 2 * scale * var)).detach().cpu().double().numpy()
    T = torch.from_numpy(owens_t(h, a)).to(mu.device, mu.dtype)
    return first - 2 * T


def dirichlet_moment_match(
    mu: torch.Tensor, var: torch.Tensor, link: str = "normcdf"
) -> torch.Tensor:
    """Dirichlet concentrations alpha (n, C) matched to the first two moments of g(z).

    With M1 = E[g], M2 = E[g^2] and S = max(sum_c M1_c, 1), each class gives a precision
    estimate (M1 S - M2) / (M2 - M1^2); their geometric mean P sets alpha = P M1 / S (the
    estimator of the paper's code), so alpha / sum(alpha) is the normalised predictive.
    """
    M1 = normcdf_mean(mu, var) if link == "normcdf" else sigmoid_mean(mu, var)
    M2 = second_moment(mu, var, link)
    S = M1.sum(1, keepdim=True).clamp(min=1.0)
    eps = 1e-10
    prec = ((M1 * S - M2) / (M2 - M1**2).clamp(min=eps)).clamp(min=eps)
    P = torch.exp(torch.log(prec).mean(1, keepdim=True))
    return P * M1 / S


def dirichlet_mutual_information(alpha: torch.Tensor) -> torch.Tensor:
    """Epistemic part of a Dirichlet's predictive entropy (expected-entropy decomposition)."""
    a0 = alpha.sum(1, keepdim=True)
    p = alpha / a0
    total = -(p * torch.log(p.clamp(min=1e-12))).sum(1)
    expected = -(p * (torch.digamma(alpha + 1) - torch.digamma(a0 + 1))).sum(1)
    return total - expected


def sample_link_probs(
    mu: torch.Tensor,
    var: torch.Tensor,
    n_samples: int,
    link: str = "softmax",
    generator: torch.Generator | None = None,
    chunk: int = 1000,
) -> torch.Tensor:
    """Monte Carlo E[g(z) / sum_j g(z_j)] with z ~ N(mu, diag var), in chunks of samples."""
    _check(mu, var)
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    if link not in LINKS:
        raise ValueError(f"link must be one of {LINKS}, got {link!r}")
    log_g = {"softmax": lambda z: z, "normcdf": log_ndtr, "sigmoid": F.logsigmoid}[link]
    acc = torch.zeros_like(mu)
    std = var.sqrt()
    done = 0
    while done < n_samples:
        s = min(chunk, n_samples - done)
        eps = torch.randn(
            (s,) + tuple(mu.shape), generator=generator, dtype=mu.dtype, device=mu.device
        )
        acc += torch.softmax(log_g(mu + std * eps), dim=-1).sum(0)
        done += s
    return acc / n_samples


def closed_form_predictive(mu: torch.Tensor, var: torch.Tensor, link: str) -> torch.Tensor:
    """The sampling-free predictive of `link` (softmax: mean-field approximation)."""
    return {
        "normcdf": normcdf_predictive,
        "sigmoid": sigmoid_predictive,
        "softmax": softmax_mean_field,
    }[link](mu, var)
