"""scikit-learn estimators around the ReLU+Argmin oblique tree.

    from workers.methods.oblique_tree import ReluArgminTreeClassifier
    clf = ReluArgminTreeClassifier(max_depth=4).fit(X, y); clf.predict(X)

Features are min-max scaled on the training data (the hyperplanes live in that space).
init="cart" (the warm start) converts a CART tree of the same depth into (a, b, c): an axis-aligned split
is a = e_feature, b = threshold (CART also sends x_f <= threshold left); a branch below a CART
leaf gets a = 0, b = 1 so everything goes left. Extra random restarts (`n_restarts`) are also
annealed; the best hard tree by training objective wins (CART's own tree included).
"""

from __future__ import annotations

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from workers.methods.oblique_tree.reluargmin import (
    ReluArgminTree,
    anneal_fit,
    default_scale_max,
    refit_leaves,
)


def cart_warm_start(tree: ReluArgminTree, cart) -> None:
    """Copy a fitted scikit-learn CART of depth <= D into the complete oblique tree."""
    t = cart.tree_
    A = torch.zeros_like(tree.A)
    b = torch.ones_like(tree.b)
    stack = [(0, 0)]  # (CART node id, heap index)
    while stack:
        node, heap = stack.pop()
        if heap >= A.shape[0] or t.children_left[node] == -1:
            continue
        A[heap, t.feature[node]] = 1.0
        b[heap] = float(t.threshold[node])
        stack += [(t.children_left[node], 2 * heap + 1), (t.children_right[node], 2 * heap + 2)]
    with torch.no_grad():
        tree.A.copy_(A)
        tree.b.copy_(b)


class _ReluArgminBase(BaseEstimator):
    _task = ""

    def __init__(
        self,
        max_depth: int = 3,
        n_scales: int = 5,
        scale_min: float = 2.0,
        scale_max: float | None = None,
        epochs: int = 30,
        lr: float = 0.01,
        batch_size: int | None = None,
        init: str = "cart",
        n_restarts: int = 0,
        random_state: int | None = None,
        device: str = "cpu",
    ) -> None:
        self.max_depth = max_depth
        self.n_scales = n_scales
        self.scale_min = scale_min
        self.scale_max = scale_max
        self.epochs = epochs
        self.lr = lr
        self.batch_size = batch_size
        self.init = init
        self.n_restarts = n_restarts
        self.random_state = random_state
        self.device = device

    def _check_params(self) -> None:
        if not isinstance(self.max_depth, (int, np.integer)) or not 1 <= self.max_depth <= 16:
            raise ValueError(f"max_depth must be an int in [1, 16], got {self.max_depth!r}")
        if self.n_scales < 1 or self.epochs < 0 or self.lr <= 0:
            raise ValueError("n_scales must be >= 1, epochs >= 0 and lr > 0")
        if self.init not in ("cart", "random"):
            raise ValueError(f"init must be 'cart' or 'random', got {self.init!r}")
        if self.init == "random" and self.n_restarts < 1:
            raise ValueError("init='random' needs n_restarts >= 1")

    def _scale(self, X: np.ndarray) -> torch.Tensor:
        Z = (X - self.x_min_) / self.x_range_
        return torch.as_tensor(Z, dtype=torch.float32, device=self.device)

    def _fit(self, X: np.ndarray, y: np.ndarray, y_t: torch.Tensor, n_outputs: int, cart) -> None:
        self._check_params()
        self.x_min_ = X.min(0)
        rng = X.max(0) - self.x_min_
        self.x_range_ = np.where(rng > 0, rng, 1.0)
        Xt = self._scale(X)
        D, p = int(self.max_depth), X.shape[1]
        smax = self.scale_max if self.scale_max is not None else default_scale_max(D)
        scales = list(np.logspace(np.log10(self.scale_min), np.log10(smax), self.n_scales))
        gen = torch.Generator().manual_seed(
            0 if self.random_state is None else int(self.random_state)
        )
        torch_state = torch.random.get_rng_state()
        torch.manual_seed(0 if self.random_state is None else int(self.random_state))
        starts = []
        if self.init == "cart":
            cart.fit((X - self.x_min_) / self.x_range_, y)
            tree = ReluArgminTree(D, p, n_outputs).to(self.device)
            cart_warm_start(tree, cart)
            starts.append(tree)
        for _ in range(self.n_restarts):
            starts.append(ReluArgminTree(D, p, n_outputs).to(self.device))  # uniform(-1, 1) a and b
        best_obj, best_state = np.inf, None
        self.objective_curve_ = []
        for tree in starts:
            state, obj = anneal_fit(
                tree,
                Xt,
                y_t,
                self._task,
                scales=scales,
                epochs=self.epochs,
                lr=self.lr,
                batch_size=self.batch_size,
                generator=gen,
                on_stage=lambda i, s, o: self.objective_curve_.append((float(s), o)),
            )
            if obj < best_obj:
                best_obj, best_state = obj, state
        torch.random.set_rng_state(torch_state)
        self.tree_ = ReluArgminTree(D, p, n_outputs).to(self.device)
        self.tree_.load_state_dict(best_state)
        self.tree_.eval()
        self.train_objective_ = float(best_obj)
        self.n_features_in_ = p

    @torch.no_grad()
    def apply(self, X) -> np.ndarray:
        """Leaf index reached by each sample (argmin of the ReLU violations)."""
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.tree_.leaf_index(self._scale(X)).cpu().numpy()


class ReluArgminTreeClassifier(ClassifierMixin, _ReluArgminBase):
    """Oblique classification tree trained by ReLU+Argmin with softmin-scale annealing."""

    _task = "classification"

    def fit(self, X, y) -> ReluArgminTreeClassifier:
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        y_t = torch.as_tensor(y_enc, dtype=torch.long, device=self.device)
        self._fit(
            X,
            y_enc,
            y_t,
            len(self.classes_),
            DecisionTreeClassifier(max_depth=self.max_depth, random_state=self.random_state),
        )
        return self

    @torch.no_grad()
    def predict_proba(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return torch.softmax(self.tree_(self._scale(X)), 1).cpu().numpy().astype(np.float64)

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        return self.classes_[self.predict_proba(X).argmax(1)]


class ReluArgminTreeRegressor(RegressorMixin, _ReluArgminBase):
    """Oblique regression tree trained by ReLU+Argmin with softmin-scale annealing."""

    _task = "regression"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X, y) -> ReluArgminTreeRegressor:
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True, multi_output=True)
        self.n_outputs_ = 1 if y.ndim == 1 else y.shape[1]
        self._multi_ = y.ndim == 2
        y2 = y.reshape(len(y), -1)
        y_t = torch.as_tensor(y2, dtype=torch.float32, device=self.device)
        self._fit(
            X,
            y,
            y_t,
            y2.shape[1],
            DecisionTreeRegressor(max_depth=self.max_depth, random_state=self.random_state),
        )
        return self

    @torch.no_grad()
    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        out = self.tree_(self._scale(X)).cpu().numpy().astype(np.float64)
        return out[:, 0] if self.n_outputs_ == 1 and not self._multi_ else out


__all__ = ["ReluArgminTreeClassifier", "ReluArgminTreeRegressor", "cart_warm_start", "refit_leaves"]
