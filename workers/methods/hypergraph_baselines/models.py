"""Trained baselines of the ZEN paper: HGNN (Feng et al., AAAI 2019) and an MLP.

Both follow ZEN's transductive interface, fit(H, X, y, train_idx, val_idx) then predict(idx),
so the benchmark times them exactly like ZEN. Training: full-batch Adam on the k labelled
nodes per class, keeping the weights of the epoch with the best validation accuracy.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn


def hgnn_operator(H: torch.Tensor, n_nodes: int) -> torch.Tensor:
    """Sparse G = Dv^-1/2 H De^-1 H^T Dv^-1/2 (HGNN eq. 10, unit hyperedge weights)."""
    H = H.long()
    v, e = H[0], torch.unique(H[1], return_inverse=True)[1]  # compact hyperedge ids
    m = int(e.max()) + 1 if e.numel() else 0
    ones = torch.ones(v.shape[0])
    deg_v = torch.zeros(n_nodes).index_add_(0, v, ones)
    deg_e = torch.zeros(m).index_add_(0, e, ones)
    dv = torch.where(deg_v > 0, deg_v.clamp(min=1) ** -0.5, torch.zeros_like(deg_v))
    idx = torch.stack([v, e])
    inc = torch.sparse_coo_tensor(
        idx, dv[v], (n_nodes, m), check_invariants=True
    ).coalesce()  # Dv^-1/2 H
    left = torch.sparse_coo_tensor(
        idx, dv[v] / deg_e[e], (n_nodes, m), check_invariants=True
    ).coalesce()
    G = torch.sparse.mm(left, inc.t().coalesce())
    return G.to_sparse_coo().coalesce()  # COO: the product comes back CSR, which mm's slowly on CPU


class HGNN(nn.Module):
    """Two hypergraph convolutions: G relu(G X Theta1) Theta2, with dropout."""

    def __init__(self, in_dim: int, hidden: int, n_classes: int, dropout: float = 0.5) -> None:
        super().__init__()
        self.lin1, self.lin2, self.dropout = (
            nn.Linear(in_dim, hidden),
            nn.Linear(hidden, n_classes),
            dropout,
        )

    def forward(self, X: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
        X = F.dropout(X, self.dropout, self.training)
        X = F.relu(G @ self.lin1(X))
        X = F.dropout(X, self.dropout, self.training)
        return G @ self.lin2(X)


class MLP(nn.Module):
    def __init__(self, in_dim: int, hidden: int, n_classes: int, dropout: float = 0.5) -> None:
        super().__init__()
        self.lin1, self.lin2, self.dropout = (
            nn.Linear(in_dim, hidden),
            nn.Linear(hidden, n_classes),
            dropout,
        )

    def forward(self, X: torch.Tensor, G: torch.Tensor | None = None) -> torch.Tensor:
        X = F.dropout(X, self.dropout, self.training)
        X = F.relu(self.lin1(X))
        return self.lin2(F.dropout(X, self.dropout, self.training))


class TrainedNodeClassifier:
    """Trains `architecture` ("hgnn" or "mlp") transductively; same interface as ZEN."""

    def __init__(
        self,
        architecture: str = "hgnn",
        hidden: int = 64,
        epochs: int = 200,
        lr: float = 0.01,
        weight_decay: float = 5e-4,
        dropout: float = 0.5,
        seed: int = 0,
        dense_below: int = 4096,
    ) -> None:
        self.dense_below = dense_below
        self.architecture, self.hidden, self.epochs, self.lr = architecture, hidden, epochs, lr
        self.weight_decay, self.dropout, self.seed = weight_decay, dropout, seed

    def fit(
        self, H: torch.Tensor, X: torch.Tensor, y: torch.Tensor, train_idx, val_idx=None
    ) -> TrainedNodeClassifier:
        if self.architecture not in ("hgnn", "mlp"):
            raise ValueError(f"architecture must be 'hgnn' or 'mlp', got {self.architecture!r}")
        X = torch.as_tensor(X).float()
        self.classes_, y_enc = torch.unique(torch.as_tensor(y), return_inverse=True)
        train_idx = torch.as_tensor(train_idx, dtype=torch.long)
        val_idx = torch.as_tensor(val_idx if val_idx is not None else [], dtype=torch.long)
        torch.manual_seed(self.seed)
        cls = HGNN if self.architecture == "hgnn" else MLP
        model = cls(X.shape[1], self.hidden, len(self.classes_), self.dropout).to(X.device)
        G = None
        if self.architecture == "hgnn":
            G = hgnn_operator(H.cpu(), X.shape[0])
            if X.shape[0] <= self.dense_below:  # small graphs: a dense matmul beats sparse overhead
                G = G.to_dense()
            G = G.to(X.device)
        opt = torch.optim.Adam(model.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        best_acc, best_state = -1.0, None
        for _ in range(self.epochs):
            model.train()
            opt.zero_grad()
            F.cross_entropy(model(X, G)[train_idx], y_enc[train_idx]).backward()
            opt.step()
            if val_idx.numel():
                model.eval()
                with torch.no_grad():
                    acc = (model(X, G)[val_idx].argmax(1) == y_enc[val_idx]).float().mean().item()
                if acc > best_acc:
                    best_acc, best_state = acc, copy.deepcopy(model.state_dict())
        if best_state is not None:
            model.load_state_dict(best_state)
        model.eval()
        with torch.no_grad():
            self.logits_ = model(X, G)
        return self

    def decision_function(self, idx=None) -> torch.Tensor:
        return self.logits_ if idx is None else self.logits_[torch.as_tensor(idx, dtype=torch.long)]

    def predict(self, idx=None) -> torch.Tensor:
        return self.classes_[self.decision_function(idx).argmax(1)]
