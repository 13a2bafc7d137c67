"""Complete binary tree bookkeeping shared by the hard (ReLU+Argmin) and soft trees.

Branch nodes are numbered in heap order (children of t are 2t+1 and 2t+2), leaves 0..2^D-1
from left to right. For every leaf we store its D ancestors and whether the path turns right
at each of them.
"""

from __future__ import annotations

import torch


def leaf_paths(depth: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ancestors, goes_right), both of shape (2^depth, depth)."""
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    n_leaves = 2**depth
    anc = torch.zeros(n_leaves, depth, dtype=torch.long)
    right = torch.zeros(n_leaves, depth, dtype=torch.bool)
    for leaf in range(n_leaves):
        node = 0
        for d in range(depth):
            bit = (leaf >> (depth - 1 - d)) & 1  # most significant bit first: 0 = left
            anc[leaf, d], right[leaf, d] = node, bool(bit)
            node = 2 * node + 1 + bit
    return anc, right


def traverse(A: torch.Tensor, b: torch.Tensor, X: torch.Tensor, depth: int) -> torch.Tensor:
    """Leaf index of each row of X by walking the tree: left iff a_t x <= b_t."""
    node = torch.zeros(X.shape[0], dtype=torch.long, device=X.device)
    for _ in range(depth):
        go_right = ((X * A[node]).sum(1) > b[node]).long()
        node = 2 * node + 1 + go_right
    return node - (2**depth - 1)
