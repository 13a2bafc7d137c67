"""Gumbel-softmax top-L layer selection with a straight-through estimator (ADMN, Sec. 3.3).

The controller emits one logit per backbone layer of every modality (concatenated). Training
perturbs the logits with Gumbel noise and relaxes "pick the L largest" by L successive
softmaxes, each masking out what earlier ones already selected (the relaxed subset sampler of
Xie & Ermon, 2019, which ADMN's code uses). The forward pass returns the exact hard L-hot mask
and the backward pass the gradient of the relaxed mask (straight-through). At inference the
mask is the plain top-L of the logits (no noise).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

NEG = -1e9  # finite "minus infinity": keeps softmax and top-k free of NaNs


def allowed_mask(layers: Sequence[int], max_layers: Sequence[int] | None = None) -> torch.Tensor:
    """Boolean mask over the concatenated layers: True where a layer may be selected.

    `max_layers[m]` caps modality m at its first `max_layers[m]` layers (default: all of them),
    so no selection can give a modality more layers than its maximum.
    """
    if not layers or any(int(n) < 1 for n in layers):
        raise ValueError(f"layers: every modality needs at least one layer, got {list(layers)}")
    caps = list(layers) if max_layers is None else [int(c) for c in max_layers]
    if len(caps) != len(layers):
        raise ValueError(f"max_layers: expected {len(layers)} entries, got {len(caps)}")
    parts = []
    for n, cap in zip(layers, caps, strict=True):
        if not 0 <= cap <= n:
            raise ValueError(f"max_layers: each cap must lie in [0, {n}], got {cap}")
        parts.append(torch.arange(n) < cap)
    return torch.cat(parts)


def check_budget(budget: int, allowed: torch.Tensor) -> None:
    capacity = int(allowed.sum())
    if not 0 <= budget <= capacity:
        raise ValueError(f"budget: must lie in [0, {capacity}] (selectable layers), got {budget}")


def hard_top_l(
    scores: torch.Tensor, budget: int, allowed: torch.Tensor | None = None
) -> torch.Tensor:
    """Exact L-hot mask (float 0/1) of the `budget` largest allowed scores per row."""
    if allowed is not None:
        scores = scores.masked_fill(~allowed.to(scores.device), NEG)
    mask = torch.zeros_like(scores)
    if budget > 0:
        mask.scatter_(-1, scores.topk(budget, dim=-1).indices, 1.0)
    return mask


def gumbel_top_l(
    logits: torch.Tensor,
    budget: int,
    tau: float = 1.0,
    allowed: torch.Tensor | None = None,
    noise: bool = True,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Hard L-hot sample whose gradient is that of the relaxed top-L (straight-through).

    logits: (B, N) scores over the N = sum_m L_m layers. Returns (B, N) with exactly `budget`
    ones per row in the forward pass, all inside `allowed`.
    """
    if tau <= 0:
        raise ValueError(f"tau: must be positive, got {tau}")
    if allowed is None:
        allowed = torch.ones(logits.shape[-1], dtype=torch.bool)
    check_budget(budget, allowed)
    allowed = allowed.to(logits.device)
    scores = logits.masked_fill(~allowed, NEG)
    if noise:  # Gumbel(0, 1) perturbation: top-L of perturbed logits samples without replacement
        u = (
            torch.rand(scores.shape, generator=generator, device=scores.device)
            if generator is not None
            else torch.rand_like(scores)
        )
        scores = scores - torch.log(-torch.log(u.clamp(1e-10, 1 - 1e-7)))
    hard = hard_top_l(scores.detach(), budget)
    # Relaxed top-L: L rounds of softmax, each down-weighting what was already (softly) taken.
    khot = torch.zeros_like(scores)
    onehot = torch.zeros_like(scores)
    s = scores
    for _ in range(budget):
        s = s + torch.log((1.0 - onehot).clamp_min(1e-20))
        onehot = torch.softmax(s / tau, dim=-1)
        khot = khot + onehot
    return hard + (khot - khot.detach())  # exactly `hard` forward, relaxed gradient backward


def uniform_split(budget: int, layers: Sequence[int]) -> list[int]:
    """Static baseline allocation: the budget split as evenly as possible across modalities
    (remainder to the first ones), never above a modality's layer count."""
    check_budget(budget, torch.ones(sum(layers), dtype=torch.bool))
    M = len(layers)
    alloc = [min(n, budget // M + (1 if m < budget % M else 0)) for m, n in enumerate(layers)]
    left = budget - sum(alloc)
    for m, n in enumerate(layers):  # modalities with fewer layers hand the rest on
        take = min(left, n - alloc[m])
        alloc[m] += take
        left -= take
    return alloc


def spread_layers(k: int, n: int) -> list[int]:
    """k of n layer indices spread evenly (LayerDrop's 'every other layer' pruning)."""
    if not 0 <= k <= n:
        raise ValueError(f"k: must lie in [0, {n}], got {k}")
    if k == 0:
        return []
    return sorted({int(round(i * (n - 1) / max(k - 1, 1))) for i in range(k)}) if k > 1 else [n - 1]
