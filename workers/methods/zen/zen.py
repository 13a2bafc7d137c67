"""ZEN: Zero-parameter hypErgraph Neural network (Bae, Choi, Lee, Yoo).

Closed-form, training-free few-shot node classification on a hypergraph. Usable on its own:

    model = ZEN().fit(H, X, y, train_idx, val_idx)
    logits = model.logits_          # (n_nodes, n_classes)
    pred = model.predict(test_idx)

`H` is the release's incidence list: an int64 tensor of shape (2, nnz), row 0 the node
index and row 1 the hyperedge index of each incidence. Hyperedge ids need not be contiguous
(the release numbers them after the nodes); empty ids never enter any sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


def _check_incidence(H: torch.Tensor, n_nodes: int) -> None:
    if not isinstance(H, torch.Tensor) or H.dim() != 2 or H.shape[0] != 2:
        raise ValueError(
            f"H must be an int tensor of shape (2, nnz), got {getattr(H, 'shape', type(H))}"
        )
    if H.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"H must hold integer indices, got dtype {H.dtype}")
    if H.shape[1] and (H.min() < 0 or H[0].max() >= n_nodes):
        raise ValueError(
            f"H row 0 (node index) must lie in [0, {n_nodes}); got max {int(H[0].max())}"
        )


def _scatter_sum(src: torch.Tensor, index: torch.Tensor, size: int) -> torch.Tensor:
    out = torch.zeros((size,) + tuple(src.shape[1:]), dtype=src.dtype, device=src.device)
    return out.index_add_(0, index, src)


def _inv(x: torch.Tensor, power: float) -> torch.Tensor:
    """x ** -power with 0 where x <= 0 (isolated nodes, singleton hyperedges carry nothing)."""
    out = torch.zeros_like(x)
    pos = x > 0
    out[pos] = x[pos] ** (-power)
    return out


@dataclass
class Propagation:
    """The two propagated feature matrices of ZEN's closed form (Z = a0 X + a1 AX + a2 AAX)."""

    AX: torch.Tensor
    AAX: torch.Tensor


def zen_propagate(H: torch.Tensor, X: torch.Tensor, remove_rsi: bool = True) -> Propagation:
    """First- and second-order redundancy-aware hypergraph propagation of ZEN.

    With d(v) the node degree and d(e) the hyperedge size, A0 = H De1 H^T - diag(RSI_1) is the
    clique expansion weighted by 1/(d(e)-1) with the residual self-information of order one
    removed (RSI_1(v) = sum_{e ni v} 1/(d(e)-1) is exactly A0's would-be diagonal), and

        AX  = Dv^-1/2 A0 Dv^-1/2 X
        AAX = Dv^-1/2 (A0 Dv1 A0 - diag(RSI_2)) Dv^-1/2 X,    Dv1 = diag(1/(d(v)-1)),

    where RSI_2(v) = sum_{e ni v} (d(e)-1)^-2 sum_{u in e, u != v} 1/(d(u)-1) removes the
    two-step walks v -> e -> u -> e -> v that return to v through the hyperedge they left by.
    `remove_rsi=False` is the ablation without redundancy removal: same normalisers, neither
    RSI term subtracted.
    """
    n = X.shape[0]
    _check_incidence(H, n)
    H = H.to(X.device).long()
    v, e = H[0], H[1]
    m = int(e.max()) + 1 if e.numel() else 0
    ones = torch.ones(v.shape[0], dtype=X.dtype, device=X.device)
    deg_v = _scatter_sum(ones, v, n)
    deg_e = _scatter_sum(ones, e, m)
    Dv = _inv(deg_v, 0.5).unsqueeze(1)  # d(v)^-1/2
    Dv1 = _inv(deg_v - 1, 1.0).unsqueeze(1)  # (d(v)-1)^-1
    De1 = _inv(deg_e - 1, 1.0).unsqueeze(1)  # (d(e)-1)^-1

    RSI_1 = _scatter_sum(De1[e], v, n)
    De2 = De1**2
    per_edge = De2 * _scatter_sum(Dv1[v], e, m)  # (d(e)-1)^-2 sum_{u in e} 1/(d(u)-1)
    RSI_2 = _scatter_sum(per_edge[e], v, n) - Dv1 * _scatter_sum(De2[e], v, n)

    def propagate(Z: torch.Tensor) -> torch.Tensor:
        edge_sum = De1 * _scatter_sum(Z[v], e, m)  # node -> hyperedge, weighted 1/(d(e)-1)
        back = _scatter_sum(edge_sum[e], v, n)  # hyperedge -> node
        return back - RSI_1 * Z if remove_rsi else back

    Z1 = Dv * X
    AX_inner = propagate(Z1)
    AAX_inner = propagate(Dv1 * AX_inner)
    if remove_rsi:
        AAX_inner = AAX_inner - RSI_2 * Z1
    return Propagation(AX=Dv * AX_inner, AAX=Dv * AAX_inner)


def simplex_grid(n: int) -> list[tuple[float, float, float]]:
    """(a0, a1, a2) with a0 + a1 + a2 = 1 on the grid of step 1/n: (n+2)(n+1)/2 points."""
    if n < 1:
        raise ValueError(f"grid_resolution must be >= 1, got {n}")
    return [(i / n, j / n, (n - i - j) / n) for i in range(n + 1) for j in range(n + 1 - i)]


def zen_logits(
    X: torch.Tensor,
    prop: Propagation,
    y: torch.Tensor,
    train_idx: torch.Tensor,
    alphas: tuple[float, float, float],
    n_classes: int,
) -> torch.Tensor:
    """Logits Z W^T with Z = rownorm(a0 X + a1 AX + a2 AAX) and W_c = rownorm(sum of Z over c's
    training nodes): cosine similarity to each class's prototype."""
    a0, a1, a2 = alphas
    Z = F.normalize(a0 * X + a1 * prop.AX + a2 * prop.AAX, dim=1)
    W = _scatter_sum(Z[train_idx], y[train_idx], n_classes)
    W = F.normalize(W, dim=1)
    return Z @ W.T


class ZEN:
    """Transductive ZEN classifier. Hyper-parameters in __init__, scikit-learn style.

    grid_resolution: n of the simplex grid searched for (a0, a1, a2) by validation accuracy.
    remove_rsi: subtract the residual self-information terms (False = the ablation).
    alphas: fix (a0, a1, a2) and skip the search.
    """

    def __init__(
        self,
        grid_resolution: int = 9,
        remove_rsi: bool = True,
        alphas: tuple[float, float, float] | None = None,
    ) -> None:
        self.grid_resolution = grid_resolution
        self.remove_rsi = remove_rsi
        self.alphas = alphas

    def fit(
        self, H: torch.Tensor, X: torch.Tensor, y: torch.Tensor, train_idx, val_idx=None
    ) -> ZEN:
        X = torch.as_tensor(X).float()
        y = torch.as_tensor(y, device=X.device)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} labels but X has {X.shape[0]} rows")
        self.classes_, y_enc = torch.unique(y, return_inverse=True)  # labels may start at 1 (zoo)
        train_idx = torch.as_tensor(train_idx, dtype=torch.long, device=X.device)
        if train_idx.numel() == 0:
            raise ValueError("train_idx is empty")
        C = len(self.classes_)
        self.propagation_ = zen_propagate(H, X, remove_rsi=self.remove_rsi)
        if self.alphas is not None:
            if abs(sum(self.alphas) - 1) > 1e-6 or min(self.alphas) < 0:
                raise ValueError(f"alphas must lie on the 2-simplex, got {self.alphas}")
            best = tuple(self.alphas)
        elif val_idx is None or len(val_idx) == 0:
            raise ValueError("val_idx is required to choose (a0, a1, a2) unless alphas is given")
        else:
            val_idx = torch.as_tensor(val_idx, dtype=torch.long, device=X.device)
            best, best_acc = None, -1.0
            for point in simplex_grid(self.grid_resolution):  # first best wins, as argmax does
                logits = zen_logits(X, self.propagation_, y_enc, train_idx, point, C)
                acc = (logits[val_idx].argmax(1) == y_enc[val_idx]).float().mean().item()
                if acc > best_acc:
                    best, best_acc = point, acc
        self.alphas_ = best
        self.logits_ = zen_logits(X, self.propagation_, y_enc, train_idx, best, C)
        return self

    def decision_function(self, idx=None) -> torch.Tensor:
        if not hasattr(self, "logits_"):
            raise RuntimeError("call fit() first")
        return self.logits_ if idx is None else self.logits_[torch.as_tensor(idx, dtype=torch.long)]

    def predict(self, idx=None) -> torch.Tensor:
        return self.classes_[self.decision_function(idx).argmax(1)]
