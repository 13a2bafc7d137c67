"""Differentiable oblique decision trees via ReLU+Argmin (Mao et al.).

A hard oblique tree of depth D has branch nodes t with (a_t, b_t): a sample goes left iff
a_t x <= b_t. The exact reformulation: a sample's violation at leaf l is

    V_l(x) = sum_{t in A_L(l)} ReLU(a_t x - b_t) + sum_{t in A_R(l)} ReLU(b_t - a_t x),

with A_L / A_R the ancestors where l's path turns left / right. V_l(x) = 0 exactly on the
leaf the sample reaches (and > 0 elsewhere, ties a_t x = b_t aside), so the hard tree predicts
c_{argmin_l V_l(x)}. Training replaces argmin by softmin(scale * V), which is differentiable
in (a, b, c), and anneals `scale` upward with warm starts so the soft tree approaches the hard
one; the best hard tree seen (by training objective) is kept.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from workers.methods.oblique_tree.fused import fused_soft_objective
from workers.methods.oblique_tree.structure import leaf_paths, traverse


class ReluArgminTree(nn.Module):
    """Oblique tree of depth D: parameters A (2^D-1, p), b (2^D-1,), leaf values c (2^D, K)."""

    def __init__(self, depth: int, n_features: int, n_outputs: int) -> None:
        super().__init__()
        self.depth = depth
        n_branch, n_leaves = 2**depth - 1, 2**depth
        self.A = nn.Parameter(torch.empty(n_branch, n_features).uniform_(-1, 1))
        self.b = nn.Parameter(torch.empty(n_branch).uniform_(-1, 1))
        self.c = nn.Parameter(torch.zeros(n_leaves, n_outputs))
        anc, right = leaf_paths(depth)
        self.register_buffer("anc", anc, persistent=False)
        self.register_buffer("right", right, persistent=False)

    def violations(self, X: torch.Tensor) -> torch.Tensor:
        """V (n, 2^D): the ReLU violation of each sample at each leaf (the reformulation).

        Accumulated level by level down the tree: a child's violation is its parent's plus
        ReLU(a_t x - b_t) (left child) or ReLU(b_t - a_t x) (right child). Same sum as over
        each leaf's D ancestors, in O(n 2^D) instead of O(n 2^D D) time and memory (depth 12).
        """
        s = X @ self.A.T - self.b  # a_t x - b_t for every branch node, heap order
        n = X.shape[0]
        V = s.new_zeros(n, 1)
        for d in range(self.depth):
            s_d = s[
                :, 2**d - 1 : 2 ** (d + 1) - 1
            ]  # the 2^d branch nodes of level d, left to right
            V = torch.stack([V + F.relu(s_d), V + F.relu(-s_d)], dim=2).reshape(n, 2 ** (d + 1))
        return V

    def violations_by_path(self, X: torch.Tensor) -> torch.Tensor:
        """The same V written literally as the sum over each leaf's ancestors (for checks)."""
        S = (X @ self.A.T - self.b)[:, self.anc]  # (n, leaves, D) along each leaf's path
        return F.relu(torch.where(self.right, -S, S)).sum(-1)

    def leaf_weights(
        self, X: torch.Tensor, scale: float, prune: bool | None = None
    ) -> torch.Tensor:
        """softmin(scale * V); like the official code, weights below 1/2^D are zeroed for D > 4."""
        w = torch.softmax(-scale * self.violations(X), dim=1)
        if prune if prune is not None else self.depth > 4:
            w = F.threshold(w, 1.0 / 2**self.depth, 0.0)
        return w

    def leaf_index(self, X: torch.Tensor) -> torch.Tensor:
        """Hard leaf index: argmin of the violations (first minimum, i.e. the left one on ties).

        That argmin is the leaf reached by walking the tree (left iff a_t x <= b_t): the reached
        leaf has V = 0, every other leaf V > 0, and on a tie a_t x = b_t both the walk and the
        first minimum go left (tested against `violations(X).argmin(1)`). Walking costs O(n D p)
        instead of O(n 2^D p), so it is what is computed, in row chunks.
        """
        chunk = 2**16
        A, b = self.A.detach(), self.b.detach()
        parts = [traverse(A, b, X[i : i + chunk], self.depth) for i in range(0, len(X), chunk)]
        return torch.cat(parts) if parts else torch.zeros(0, dtype=torch.long, device=X.device)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Hard prediction: the leaf value c of argmin_l V_l(x)."""
        return self.c[self.leaf_index(X)]


def soft_objective(
    tree: ReluArgminTree, X: torch.Tensor, y: torch.Tensor, scale: float, task: str
) -> torch.Tensor:
    """Expected leaf loss under softmin weights: sum_l w_l(x) loss(c_l, y), averaged over samples.

    Regression uses (y - c_l)^2 (the paper's objective); classification uses the cross-entropy
    of leaf logits c_l, the same construction with a classification loss. Computed by the fused
    chunked kernel (`fused.py`: value and exact gradient in one pass, no (n, 2^D) autograd
    graph); `soft_objective_reference` is the same objective written with autograd.
    """
    regression = task == "regression"
    C = tree.c if regression else -torch.log_softmax(tree.c, dim=1)  # per-leaf loss of each class
    return fused_soft_objective(
        X, tree.A, tree.b, C, y, scale, prune=tree.depth > 4, regression=regression
    )


def soft_objective_reference(
    tree: ReluArgminTree, X: torch.Tensor, y: torch.Tensor, scale: float, task: str
) -> torch.Tensor:
    """`soft_objective` by autograd through `leaf_weights` (for checks; slow at depth > 8)."""
    w = tree.leaf_weights(X, scale)
    if task == "regression":
        per_leaf = ((y.unsqueeze(1) - tree.c.unsqueeze(0)) ** 2).sum(-1)  # (n, leaves)
    else:
        per_leaf = -torch.log_softmax(tree.c, dim=1)[:, y].T  # (n, leaves)
    return (w * per_leaf).sum(1).mean()


@torch.no_grad()
def refit_leaves(tree: ReluArgminTree, X: torch.Tensor, y: torch.Tensor, task: str) -> torch.Tensor:
    """Optimal leaf values for the current hard assignment (mean / class frequencies); returns the
    hard training objective (MSE or error rate). Empty leaves keep their values."""
    leaf = tree.leaf_index(X)
    n_leaves = tree.c.shape[0]
    counts = torch.bincount(leaf, minlength=n_leaves).float()
    used = counts > 0
    if task == "regression":
        sums = torch.zeros_like(tree.c).index_add_(0, leaf, y)
        tree.c[used] = sums[used] / counts[used].unsqueeze(1)
        return ((tree.c[leaf] - y) ** 2).sum(1).mean()
    onehot = F.one_hot(y, tree.c.shape[1]).float()
    freq = torch.zeros_like(tree.c).index_add_(0, leaf, onehot)
    # log-frequencies as logits, smoothed so an absent class is unlikely but finite
    tree.c[used] = torch.log(
        (freq[used] + 0.01) / (counts[used].unsqueeze(1) + 0.01 * tree.c.shape[1])
    )
    return (tree.c[leaf].argmax(1) != y).float().mean()


def default_scale_max(depth: int) -> float:
    """Largest softmin scale of the annealing schedule, by depth (official code's choice)."""
    return 100.0 if depth < 4 else 130.0 if depth < 8 else 170.0 if depth < 11 else 200.0


def anneal_fit(
    tree: ReluArgminTree,
    X: torch.Tensor,
    y: torch.Tensor,
    task: str,
    *,
    scales: list[float],
    epochs: int,
    lr: float,
    batch_size: int | None,
    generator: torch.Generator | None = None,
    on_stage=None,
) -> tuple[dict, float]:
    """Train through the scale schedule, each stage warm-started from the last; keep the best hard
    tree (leaf values refitted) by training objective. Returns (state_dict, objective)."""
    best_obj = float(refit_leaves(tree, X, y, task))
    best_state = {k: v.clone() for k, v in tree.state_dict().items()}
    n = X.shape[0]
    bs = n if batch_size is None else min(batch_size, n)
    for stage, scale in enumerate(scales):
        opt = torch.optim.AdamW(tree.parameters(), lr=lr)
        steps = epochs * math.ceil(n / bs)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(steps, 1), eta_min=1e-6)
        for _ in range(epochs):
            order = (
                torch.randperm(n, generator=generator, device="cpu").to(X.device)
                if bs < n
                else None
            )
            for start in range(0, n, bs):
                idx = order[start : start + bs] if order is not None else slice(None)
                opt.zero_grad(set_to_none=True)
                soft_objective(tree, X[idx], y[idx], scale, task).backward()
                opt.step()
                sched.step()
            obj = float(refit_leaves(tree, X, y, task))
            if obj < best_obj:
                best_obj, best_state = obj, {k: v.clone() for k, v in tree.state_dict().items()}
        tree.load_state_dict(best_state)  # the next, sharper stage starts from the best tree so far
        if on_stage is not None:
            on_stage(stage, scale, best_obj)
    return best_state, best_obj
