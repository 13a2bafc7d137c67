"""Soft decision tree baseline (Irsoy, Yildiz & Alpaydin, ICPR 2012; Frosst & Hinton 2017).

Every branch node t routes a sample right with probability sigmoid(w_t x + b_t); a leaf's
weight is the product along its path, and the prediction is the weighted mixture of leaf
outputs (class distributions or values). The whole tree is trained by gradient descent and,
unlike ReLU+Argmin, predicts with the soft mixture (it is never a hard tree).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from torch import nn

from workers.methods.oblique_tree.structure import leaf_paths


class SoftTree(nn.Module):
    def __init__(self, depth: int, n_features: int, n_outputs: int) -> None:
        super().__init__()
        self.gates = nn.Linear(n_features, 2**depth - 1)
        self.c = nn.Parameter(torch.zeros(2**depth, n_outputs))
        anc, right = leaf_paths(depth)
        self.register_buffer("anc", anc, persistent=False)
        self.register_buffer("right", right, persistent=False)

    def log_leaf_weights(self, X: torch.Tensor) -> torch.Tensor:
        S = self.gates(X)[:, self.anc]  # (n, leaves, D)
        return F.logsigmoid(torch.where(self.right, S, -S)).sum(-1)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Classification: log of the mixture of leaf class distributions. Regression: mixture of c."""
        return self.log_leaf_weights(X)


class _SoftTreeBase(BaseEstimator):
    _task = ""

    def __init__(
        self,
        max_depth: int = 3,
        epochs: int = 200,
        lr: float = 0.05,
        batch_size: int | None = None,
        random_state: int | None = None,
        device: str = "cpu",
    ) -> None:
        self.max_depth = max_depth
        self.epochs = epochs
        self.lr = lr
        self.batch_size = batch_size
        self.random_state = random_state
        self.device = device

    def _standardise(self, X: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(
            (X - self.mean_) / self.std_, dtype=torch.float32, device=self.device
        )

    def _output(self, X: torch.Tensor) -> torch.Tensor:
        logw = self.tree_.log_leaf_weights(X)
        if self._task == "regression":
            return logw.exp() @ self.tree_.c
        return torch.logsumexp(
            logw.unsqueeze(2) + torch.log_softmax(self.tree_.c, 1).unsqueeze(0), dim=1
        )

    def _fit(self, X: np.ndarray, y_t: torch.Tensor, n_outputs: int) -> None:
        if not isinstance(self.max_depth, (int, np.integer)) or not 1 <= self.max_depth <= 16:
            raise ValueError(f"max_depth must be an int in [1, 16], got {self.max_depth!r}")
        self.mean_, sd = X.mean(0), X.std(0)
        self.std_ = np.where(sd > 0, sd, 1.0)
        Xt = self._standardise(X)
        gen = torch.Generator().manual_seed(
            0 if self.random_state is None else int(self.random_state)
        )
        self.tree_ = SoftTree(int(self.max_depth), X.shape[1], n_outputs).to(self.device)
        with torch.no_grad():
            for p in self.tree_.gates.parameters():
                p.copy_(torch.randn(p.shape, generator=gen) * 0.1)
        opt = torch.optim.Adam(self.tree_.parameters(), lr=self.lr)
        n = len(Xt)
        bs = n if self.batch_size is None else min(self.batch_size, n)
        for _ in range(self.epochs):
            order = torch.randperm(n, generator=gen).to(Xt.device)
            for s in range(0, n, bs):
                idx = order[s : s + bs]
                out = self._output(Xt[idx])
                loss = (
                    F.mse_loss(out, y_t[idx])
                    if self._task == "regression"
                    else F.nll_loss(out, y_t[idx])
                )
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
        self.n_features_in_ = X.shape[1]

    @torch.no_grad()
    def _predict_raw(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self._output(self._standardise(X)).cpu().numpy().astype(np.float64)


class SoftDecisionTreeClassifier(ClassifierMixin, _SoftTreeBase):
    _task = "classification"

    def fit(self, X, y) -> SoftDecisionTreeClassifier:
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        self._fit(
            X, torch.as_tensor(y_enc, dtype=torch.long, device=self.device), len(self.classes_)
        )
        return self

    def predict_proba(self, X) -> np.ndarray:
        return np.exp(self._predict_raw(X))

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self.classes_[self._predict_raw(X).argmax(1)]


class SoftDecisionTreeRegressor(RegressorMixin, _SoftTreeBase):
    _task = "regression"

    def fit(self, X, y) -> SoftDecisionTreeRegressor:
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self.y_mean_, sd = float(np.mean(y)), float(np.std(y))
        self.y_std_ = sd if sd > 0 else 1.0
        y_t = torch.as_tensor(
            (y - self.y_mean_) / self.y_std_, dtype=torch.float32, device=self.device
        )
        self._fit(X, y_t.reshape(-1, 1), 1)
        return self

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self._predict_raw(X)[:, 0] * self.y_std_ + self.y_mean_
