"""Inference-time search samplers over any DDIM-compatible latent video diffusion model.

Model interface (`workers.models.video_diffusion.interface`): `latent_shape`, `schedule(S)`,
`eps(z, t, cond)` and (through the scorer) `decode`. Every eps call goes through a
`CountedModel`, which counts one NFE per latent row, so every sampler reports its exact NFE.

Samplers
* `ddim`: deterministic DDIM (eta = 0) from one noise: S NFE.
* `best_of_n`: N independent DDIM samples (eta configurable), keep the best final score: N * S.
* `beam_search`: Diffusion Latent Beam Search (Oshima et al., 2025). Keep B beams; at each step
  in the search range draw K candidates per beam from the stochastic DDIM transition
  z_{t-1} = mu_theta(z_t) + sigma_t * eps, score each candidate by a lookahead estimate of its
  clean sample (T' deterministic DDIM steps down to t = 0 on a sub-schedule of the remaining
  timesteps; T' = 1 is the one-step Tweedie estimate x0_hat), keep the best B of the B * K.
  Greedy search is B = 1. The first lookahead call at a candidate is the eps that the next
  denoising step needs at that latent, so it is cached and reused (not paid twice).
  Outside the search range each beam takes one stochastic DDIM step (1 NFE per beam); after
  the last step the best beam by the scorer is returned.

NFE of `beam_search` = B (first eps) + sum over searched steps i (0-based, S steps) of
B * K * min(T', S - 1 - i) + sum over unsearched non-final steps of B. Searching the last step
is pointless (sigma = 0 there), so search ranges stop at step S - 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from workers.models.video_diffusion.interface import CountedModel, Schedule

Scorer = Callable[[torch.Tensor], torch.Tensor]  # clean latents [N, ...] -> rewards [N]


@dataclass
class SampleResult:
    latent: torch.Tensor  # [1, ...] the chosen clean latent
    nfe: int
    score: float
    trace: list[dict] = field(default_factory=list)  # per searched step: scores and kept indices


def ddim_parts(
    z: torch.Tensor,
    eps: torch.Tensor,
    a_t: float,
    a_prev: float,
    eta: float,
    clip: float | None = None,
):
    """(x0_hat, mu, sigma) of the DDIM transition from cumulative alpha a_t to a_prev. With
    `clip`, x0_hat is clamped to [-clip, clip] and eps re-derived from it (at the noisiest
    timesteps 1 / sqrt(a_t) would otherwise blow the eps error up)."""
    x0 = (z - math.sqrt(1 - a_t) * eps) / math.sqrt(a_t)
    if clip is not None:
        x0 = x0.clamp(-clip, clip)
        eps = (z - math.sqrt(a_t) * x0) / math.sqrt(1 - a_t)
    sigma = eta * math.sqrt(max((1 - a_prev) / (1 - a_t) * (1 - a_t / a_prev), 0.0))
    dir_coef = math.sqrt(max(1 - a_prev - sigma**2, 0.0))
    mu = math.sqrt(a_prev) * x0 + dir_coef * eps
    return x0, mu, sigma


def lookahead_indices(S: int, p: int, steps: int) -> list[int]:
    """Schedule indices of a `steps`-step DDIM sub-schedule from index p to the end (evenly
    spaced, starting at p). With steps >= S - p it is every remaining index."""
    remaining = S - p
    n = min(steps, remaining)
    return sorted({p + (k * remaining) // n for k in range(n)})


def lookahead(
    model: CountedModel,
    z: torch.Tensor,
    p: int,
    sched: Schedule,
    cond: Any,
    steps: int,
    first_eps: torch.Tensor | None = None,
    batch: int = 64,
):
    """Deterministic (eta = 0) DDIM from latents `z` at schedule index p down to the clean
    sample in `steps` model calls; returns (x0 estimates, eps at z). If p == S, z is clean."""
    S = len(sched)
    if p >= S:
        return z, None
    idx = lookahead_indices(S, p, steps)
    clip = getattr(model, "x0_clip", None)
    out, eps0 = [], []
    for chunk in range(0, z.shape[0], batch):
        x = z[chunk : chunk + batch]
        first = None
        for j, i in enumerate(idx):
            a_t = float(sched.alphas[i])
            a_next = float(sched.alphas[idx[j + 1]]) if j + 1 < len(idx) else sched.final_alpha
            if j == 0 and first_eps is not None:
                e = first_eps[chunk : chunk + batch]
            else:
                e = model.eps(x, sched.timesteps[i], cond)
            if j == 0:
                first = e
            _, x, _ = ddim_parts(x, e, a_t, a_next, 0.0, clip)
        out.append(x)
        eps0.append(first)
    return torch.cat(out), torch.cat(eps0)


def ddim(
    model,
    cond: Any,
    steps: int,
    generator: torch.Generator,
    eta: float = 0.0,
    n: int = 1,
    scorer: Scorer | None = None,
) -> tuple[torch.Tensor, int]:
    """n DDIM samples [n, ...] and the NFE spent (n * steps)."""
    m = model if isinstance(model, CountedModel) else CountedModel(model)
    start = m.nfe
    sched = m.schedule(steps)
    clip = getattr(m, "x0_clip", None)
    z = torch.randn((n, *m.latent_shape), generator=generator)
    for i in range(steps):
        e = m.eps(z, sched.timesteps[i], cond)
        _, mu, sigma = ddim_parts(z, e, float(sched.alphas[i]), sched.alpha_after(i), eta, clip)
        z = mu + sigma * torch.randn(z.shape, generator=generator) if sigma > 0 else mu
    return z, m.nfe - start


def best_of_n(
    model,
    cond: Any,
    steps: int,
    n: int,
    scorer: Scorer,
    generator: torch.Generator,
    eta: float = 0.0,
    batch: int = 32,
) -> SampleResult:
    m = model if isinstance(model, CountedModel) else CountedModel(model)
    start = m.nfe
    best, best_score = None, -math.inf
    for chunk in range(0, n, batch):
        z, _ = ddim(m, cond, steps, generator, eta, n=min(batch, n - chunk))
        scores = scorer(z)
        k = int(torch.argmax(scores))
        if float(scores[k]) > best_score:
            best, best_score = z[k : k + 1], float(scores[k])
    return SampleResult(best, m.nfe - start, best_score)


def beam_search(
    model,
    cond: Any,
    steps: int,
    scorer: Scorer,
    generator: torch.Generator,
    *,
    beams: int = 2,
    candidates: int = 4,
    lookahead_steps: int = 1,
    eta: float = 1.0,
    search_steps: range | None = None,
    keep_trace: bool = False,
) -> SampleResult:
    """Diffusion latent beam search; B = 1 is greedy search. See the module docstring."""
    m = model if isinstance(model, CountedModel) else CountedModel(model)
    start = m.nfe
    sched = m.schedule(steps)
    S = len(sched)
    searched = set(range(S - 1) if search_steps is None else search_steps) - {S - 1}
    B, K = beams, candidates
    clip = getattr(m, "x0_clip", None)
    z = torch.randn((B, *m.latent_shape), generator=generator)
    eps = None
    trace: list[dict] = []
    for i in range(S):
        if eps is None:
            eps = m.eps(z, sched.timesteps[i], cond)
        _, mu, sigma = ddim_parts(z, eps, float(sched.alphas[i]), sched.alpha_after(i), eta, clip)
        if i in searched and sigma > 0:
            cand = mu.repeat_interleave(K, dim=0)
            cand = cand + sigma * torch.randn(cand.shape, generator=generator)
            x0, cand_eps = lookahead(m, cand, i + 1, sched, cond, lookahead_steps)
            scores = scorer(x0)
            keep = torch.topk(scores, min(B, len(scores))).indices
            if keep_trace:
                trace.append({"step": i, "scores": scores.tolist(), "kept": keep.tolist()})
            z = cand[keep]
            eps = cand_eps[keep] if cand_eps is not None else None
        else:
            z = mu + sigma * torch.randn(mu.shape, generator=generator) if sigma > 0 else mu
            eps = None
    scores = scorer(z)
    k = int(torch.argmax(scores))
    return SampleResult(z[k : k + 1], m.nfe - start, float(scores[k]), trace)


def beam_nfe(
    steps: int, beams: int, candidates: int, lookahead_steps: int, search_steps: range | None = None
) -> int:
    """The exact NFE `beam_search` spends (the module docstring's formula)."""
    S = steps
    searched = set(range(S - 1) if search_steps is None else search_steps) - {S - 1}
    total = beams
    for i in range(S - 1):  # the last step reuses the eps of the step before (or is unsearched)
        if i in searched:
            total += beams * candidates * min(lookahead_steps, S - 1 - i)
        else:
            total += beams
    return total


@dataclass(frozen=True)
class BeamPlan:
    beams: int
    candidates: int
    lookahead_steps: int
    search_steps: range
    nfe: int


def plan_beam(
    steps: int,
    budget: int,
    lookahead_steps: int,
    beams: int | None = None,
    search_fraction: tuple[float, float] = (0.0, 1.0),
) -> BeamPlan:
    """The largest search that fits `budget` NFE: for each beam count (the given one, or
    descending from the sqrt of the budget's width), the largest K >= 2 with NFE <= budget;
    if even K = 2 with B = 1 does not fit, search fewer steps (the latest of the range are
    dropped first). Falls back to no search (K = 1) when nothing fits."""
    S = steps
    lo = int(round(search_fraction[0] * (S - 1)))
    hi = max(lo, int(round(search_fraction[1] * (S - 1))))
    width = max(1, budget // max(S, 1))  # the "KB" a best-of-N with this budget would have
    beam_options = (
        [beams]
        if beams
        else sorted(
            {max(1, 2 ** int(math.log2(max(1, math.isqrt(width)))) // d) for d in (1, 2, 4)},
            reverse=True,
        )
    )
    for end in range(hi, lo, -1):
        rng = range(lo, end)
        for B in beam_options:
            K = 1
            while beam_nfe(S, B, K + 1, lookahead_steps, rng) <= budget:
                K += 1
            if K >= 2:
                return BeamPlan(B, K, lookahead_steps, rng, beam_nfe(S, B, K, lookahead_steps, rng))
    B = beams or 1
    return BeamPlan(B, 1, lookahead_steps, range(0), beam_nfe(S, B, 1, lookahead_steps, range(0)))
