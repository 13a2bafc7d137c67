"""Field-variable imputation and forecasting: inverse-distance weighting and an AR forecaster.

- Spatial imputation: IDW with great-circle distances, power 1 - the rule STARK's prompt
  states ("proportional to the reciprocal of the great-circle distance").
- Temporal / spatio-temporal imputation: IDW over time (|dt|^-p) within each sensor's series.
- Forecasting: an AR(p) model with intercept, fitted by least squares on the observed history
  pooled over the sensors of the group (a few steps per sensor are too few for one model each).
"""

from __future__ import annotations

import numpy as np

EARTH_R = 6_371_000.0  # metres, as in STARK's prompt


def haversine(lat1, lon1, lat2, lon2) -> np.ndarray:
    lat1, lon1, lat2, lon2 = map(np.radians, (lat1, lon1, lat2, lon2))
    a = (
        np.sin((lat2 - lat1) / 2) ** 2
        + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_R * np.arcsin(np.sqrt(a))


class IDWInterpolator:
    """Inverse-distance weighting, scikit-learn style: fit(X, y) then predict(X_query).

    metric: "haversine" (X = [lat, lon] in degrees) or "euclidean". power: the exponent p in
    w = d^-p. A query at distance 0 from a sample returns that sample's value.
    """

    def __init__(self, power: float = 1.0, metric: str = "haversine") -> None:
        if metric not in ("haversine", "euclidean"):
            raise ValueError(f"metric: expected 'haversine' or 'euclidean', got {metric!r}")
        if power <= 0:
            raise ValueError(f"power: must be positive, got {power}")
        self.power = power
        self.metric = metric

    def fit(self, X: np.ndarray, y: np.ndarray) -> IDWInterpolator:
        X = np.asarray(X, dtype=float).reshape(len(y), -1)
        y = np.asarray(y, dtype=float)
        keep = ~np.isnan(y)
        if not keep.any():
            raise ValueError("y: no observed values to interpolate from")
        self.X_, self.y_ = X[keep], y[keep]
        return self

    def _dist(self, q: np.ndarray) -> np.ndarray:
        if self.metric == "haversine":
            return haversine(self.X_[:, 0], self.X_[:, 1], q[0], q[1])
        return np.linalg.norm(self.X_ - q, axis=1)

    def predict(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float).reshape(-1, self.X_.shape[1])
        out = np.empty(len(X))
        for i, q in enumerate(X):
            d = self._dist(q)
            if np.any(d < 1e-12):
                out[i] = self.y_[np.argmin(d)]
                continue
            w = d**-self.power
            out[i] = float(w @ self.y_ / w.sum())
        return out


class ARForecaster:
    """x_t = c + sum_{i=1..p} phi_i x_{t-i} + e_t, fitted by least squares on pooled series.

    fit(series) takes a (T, n_series) array (NaN-free rows); predict() returns the one-step
    forecast of every series. With too little history the order is reduced; with none left, the
    last value is carried forward (persistence).
    """

    def __init__(self, order: int = 2, ridge: float = 1e-6) -> None:
        if order < 1:
            raise ValueError(f"order: must be >= 1, got {order}")
        self.order = order
        self.ridge = ridge

    def fit(self, series: np.ndarray) -> ARForecaster:
        Y = np.asarray(series, dtype=float)
        Y = Y.reshape(len(Y), -1)
        self.history_ = Y
        p = min(self.order, len(Y) - 2)
        self.p_ = max(p, 0)
        if self.p_ == 0:
            self.coef_ = None
            return self
        rows, targets = [], []
        for j in range(Y.shape[1]):
            for t in range(self.p_, len(Y)):
                rows.append(np.r_[1.0, Y[t - self.p_ : t, j][::-1]])
                targets.append(Y[t, j])
        A, b = np.array(rows), np.array(targets)
        self.coef_ = np.linalg.solve(A.T @ A + self.ridge * np.eye(A.shape[1]), A.T @ b)
        return self

    def predict(self) -> np.ndarray:
        Y = self.history_
        if self.coef_ is None:
            return Y[-1].copy()
        lags = Y[-self.p_ :][::-1]  # (p, n_series), most recent first
        return self.coef_[0] + self.coef_[1:] @ lags


def impute_spatial(observed: np.ndarray, coords: np.ndarray, power: float = 1.0) -> np.ndarray:
    """Fill the NaN entries of one snapshot (n,) at `coords` (n, 2) [lat, lon]."""
    observed = np.asarray(observed, dtype=float)
    missing = np.isnan(observed)
    model = IDWInterpolator(power=power, metric="haversine").fit(coords, observed)
    return model.predict(np.asarray(coords)[missing])


def impute_temporal(observed: np.ndarray, power: float = 2.0) -> np.ndarray:
    """Fill the NaN rows of a (T,) or (T, n) series by IDW over time within each column."""
    Y = np.asarray(observed, dtype=float)
    Y = Y.reshape(len(Y), -1)
    t = np.arange(len(Y), dtype=float)
    out = []
    for j in range(Y.shape[1]):
        col = Y[:, j]
        miss = np.isnan(col)
        model = IDWInterpolator(power=power, metric="euclidean").fit(t, col)
        out.append(model.predict(t[miss]))
    return np.stack(out, axis=1).reshape(-1)


def forecast(observed: np.ndarray, order: int = 2) -> np.ndarray:
    """One-step forecast for each sensor; `observed` is (T, n) with the target row(s) NaN."""
    Y = np.asarray(observed, dtype=float)
    Y = Y.reshape(len(Y), -1)
    history = Y[~np.isnan(Y).any(axis=1)]
    return ARForecaster(order=order).fit(history).predict()
