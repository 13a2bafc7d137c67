"""Real CASH arms: scikit-learn model classes, their random-search spaces and bundled datasets.

Each model class is an arm; one pull = one random-search step = fit one configuration sampled
from the class's space below and score it on a fixed validation split. The spaces are the usual
log-uniform / integer ranges, kept small enough that one fit takes well under a second on the
bundled datasets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn import datasets as skdatasets
from sklearn.base import BaseEstimator
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

Config = dict[str, Any]

DATASETS: dict[str, Callable[[], Any]] = {
    "breast_cancer": skdatasets.load_breast_cancer,
    "digits": skdatasets.load_digits,
    "wine": skdatasets.load_wine,
    "iris": skdatasets.load_iris,
}


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """X, y of one of scikit-learn's bundled classification datasets (no download)."""
    if name not in DATASETS:
        raise ValueError(f"dataset must be one of {sorted(DATASETS)}, got {name!r}")
    bunch = DATASETS[name]()
    return np.asarray(bunch.data, dtype=float), np.asarray(bunch.target)


def _loguniform(rng: np.random.Generator, low: float, high: float) -> float:
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


def _svm(rng: np.random.Generator) -> Config:
    return {"C": _loguniform(rng, 1e-2, 1e3), "gamma": _loguniform(rng, 1e-4, 1e0)}


def _random_forest(rng: np.random.Generator) -> Config:
    return {
        "n_estimators": int(rng.integers(10, 61)),
        "max_depth": int(rng.integers(2, 21)),
        "max_features": float(rng.uniform(0.05, 1.0)),
        "min_samples_leaf": int(rng.integers(1, 11)),
    }


def _gradient_boosting(rng: np.random.Generator) -> Config:
    return {
        "learning_rate": _loguniform(rng, 1e-2, 0.5),
        "max_iter": int(rng.integers(10, 81)),
        "max_leaf_nodes": int(rng.integers(4, 33)),
        "min_samples_leaf": int(rng.integers(2, 31)),
        "l2_regularization": _loguniform(rng, 1e-6, 1e1),
    }


def _knn(rng: np.random.Generator) -> Config:
    return {
        "n_neighbors": int(rng.integers(1, 51)),
        "weights": str(rng.choice(["uniform", "distance"])),
        "p": int(rng.choice([1, 2])),
    }


def _logistic_regression(rng: np.random.Generator) -> Config:
    return {"C": _loguniform(rng, 1e-4, 1e4)}


def _mlp(rng: np.random.Generator) -> Config:
    layers = int(rng.integers(1, 3))
    width = int(rng.integers(8, 129))
    return {
        "hidden_layer_sizes": [width] * layers,
        "alpha": _loguniform(rng, 1e-6, 1e-1),
        "learning_rate_init": _loguniform(rng, 1e-4, 1e-1),
        "max_iter": int(rng.integers(20, 151)),
    }


def _build(model: str, config: Config, seed: int) -> BaseEstimator:
    # Distance- and gradient-based models get standardised inputs, as any practitioner would.
    if model == "svm":
        return make_pipeline(StandardScaler(), SVC(C=config["C"], gamma=config["gamma"]))
    if model == "random_forest":
        return RandomForestClassifier(random_state=seed, n_jobs=1, **config)
    if model == "gradient_boosting":
        return HistGradientBoostingClassifier(random_state=seed, early_stopping=False, **config)
    if model == "knn":
        return make_pipeline(StandardScaler(), KNeighborsClassifier(**config))
    if model == "logistic_regression":
        return make_pipeline(StandardScaler(), LogisticRegression(C=config["C"], max_iter=300))
    if model == "mlp":
        cfg = dict(config, hidden_layer_sizes=tuple(config["hidden_layer_sizes"]))
        return make_pipeline(StandardScaler(), MLPClassifier(random_state=seed, **cfg))
    raise ValueError(f"model must be one of {sorted(SPACES)}, got {model!r}")


SPACES: dict[str, Callable[[np.random.Generator], Config]] = {
    "svm": _svm,
    "random_forest": _random_forest,
    "gradient_boosting": _gradient_boosting,
    "knn": _knn,
    "logistic_regression": _logistic_regression,
    "mlp": _mlp,
}


def sample_config(model: str, rng: np.random.Generator) -> Config:
    """One random-search configuration of `model`."""
    if model not in SPACES:
        raise ValueError(f"model must be one of {sorted(SPACES)}, got {model!r}")
    return SPACES[model](rng)


def build_estimator(model: str, config: Config, seed: int = 0) -> BaseEstimator:
    """The scikit-learn estimator for `config` (seeded where the model is stochastic)."""
    return _build(model, config, seed)
