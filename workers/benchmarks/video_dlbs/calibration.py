"""Reward calibration: fit the weights of the metric mix to preference judgements.

The calibrated reward of a video is R = sum_m w_m * (x_m - mean_m) / sd_m over the metrics
(standardised on a pool of the model's own videos). The weights are fitted by Bradley-Terry
(logistic regression without intercept) on pairwise judgements "a preferred to b", on the
standardised metric differences, with a small L2 penalty; absolute judgement scores are turned
into pairs first. Weights are normalised to sum(|w|) = 1. The uncalibrated reward is the equal
mix (w_m = 1 / M).

Judgement files (for real models; JSON Lines, one judgement per line), either
  {"a": {"subject_consistency": 0.93, ...}, "b": {...}, "preferred": "a"}     (pairwise)
or
  {"group": "prompt 3", "metrics": {"subject_consistency": 0.93, ...}, "score": 4.0}   (absolute;
   videos with the same "group", e.g. the same prompt, are compared pairwise)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch


@dataclass
class Calibration:
    metrics: tuple[str, ...]
    mean: np.ndarray
    std: np.ndarray
    weights: np.ndarray
    report: dict = field(default_factory=dict)

    def standardise(self, values: dict[str, torch.Tensor] | np.ndarray) -> torch.Tensor:
        if isinstance(values, dict):
            x = torch.stack(
                [torch.as_tensor(values[m], dtype=torch.float64) for m in self.metrics], dim=-1
            )
        else:
            x = torch.as_tensor(values, dtype=torch.float64)
        return (x - torch.as_tensor(self.mean)) / torch.as_tensor(self.std)

    def reward(self, values, weights: np.ndarray | None = None) -> torch.Tensor:
        w = torch.as_tensor(self.weights if weights is None else weights, dtype=torch.float64)
        return (self.standardise(values) @ w).float()

    def uncalibrated(self, values) -> torch.Tensor:
        return self.reward(values, np.full(len(self.metrics), 1.0 / len(self.metrics)))

    def as_dict(self) -> dict:
        return {
            "metrics": list(self.metrics),
            "mean": self.mean.tolist(),
            "std": self.std.tolist(),
            "weights": self.weights.tolist(),
            "report": self.report,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Calibration:
        return cls(
            tuple(d["metrics"]),
            np.array(d["mean"]),
            np.array(d["std"]),
            np.array(d["weights"]),
            d.get("report", {}),
        )


def fit_bradley_terry(
    diff: np.ndarray, pref: np.ndarray, l2: float = 1e-2, iters: int = 200
) -> np.ndarray:
    """Weights w maximising sum log sigmoid(s * w . d) - l2 |w|^2, where s = +1 if a was
    preferred (pref = 1) else -1, by Newton's method. diff: [P, M] = x_a - x_b."""
    X = diff * np.where(pref > 0.5, 1.0, -1.0)[:, None]
    w = np.zeros(X.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-X @ w))
        grad = X.T @ (1 - p) - 2 * l2 * w
        hess = -(X.T * (p * (1 - p))) @ X - 2 * l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w = w - step
        if np.abs(step).max() < 1e-10:
            break
    return w


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    if len(a) < 3 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    return float(np.corrcoef(ra, rb)[0, 1])


def _pair_accuracy(diff_score: np.ndarray, pref: np.ndarray) -> float:
    if len(pref) == 0:
        return float("nan")
    agree = np.where(diff_score == 0, 0.5, (diff_score > 0) == (pref > 0.5))
    return float(np.mean(agree))


def pairs_from_groups(
    groups: np.ndarray, scores: np.ndarray, rng: np.random.Generator, temperature: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All within-group pairs (i, j) and a judgement "i preferred": deterministic from the
    scores (temperature 0; ties dropped) or sampled by Bradley-Terry with that temperature."""
    ia, ib = [], []
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        for x in range(len(idx)):
            for y in range(x + 1, len(idx)):
                ia.append(idx[x])
                ib.append(idx[y])
    ia, ib = np.array(ia, dtype=int), np.array(ib, dtype=int)
    d = scores[ia] - scores[ib] if len(ia) else np.zeros(0)
    if temperature > 0:
        pref = (rng.random(len(ia)) < 1 / (1 + np.exp(np.clip(-d / temperature, -50, 50)))).astype(
            float
        )
    else:
        keep = d != 0
        ia, ib, d = ia[keep], ib[keep], d[keep]
        pref = (d > 0).astype(float)
    return ia, ib, pref


def calibrate(
    X: np.ndarray,
    metrics: tuple[str, ...],
    ia: np.ndarray,
    ib: np.ndarray,
    pref: np.ndarray,
    scores: np.ndarray | None = None,
    holdout: float = 0.3,
    seed: int = 0,
    l2: float = 1e-2,
) -> Calibration:
    """Fit weights on (1 - holdout) of the pairs; report, on the held-out pairs, the pairwise
    agreement of each metric, of the uncalibrated (equal) mix and of the calibrated reward, and
    (when absolute judgement `scores` are given) their Spearman correlation with the scores."""
    X = np.asarray(X, dtype=float)
    mean, std = X.mean(0), X.std(0)
    std = np.where(std < 1e-8, 1.0, std)
    Z = (X - mean) / std
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(ia))
    n_test = int(round(holdout * len(ia))) if len(ia) >= 10 else 0
    test, train = order[:n_test], order[n_test:]
    diff = Z[ia] - Z[ib]
    w = fit_bradley_terry(diff[train], pref[train], l2)
    w = w / max(np.abs(w).sum(), 1e-12)
    eq = np.full(len(metrics), 1.0 / len(metrics))
    ev = test if len(test) else train
    report: dict = {"pairs_train": int(len(train)), "pairs_test": int(len(test)), "per_metric": {}}
    for k, m in enumerate(metrics):
        entry = {"pair_accuracy": _pair_accuracy(diff[ev, k], pref[ev]), "weight": float(w[k])}
        if scores is not None:
            entry["spearman"] = _spearman(X[:, k], scores)
        report["per_metric"][m] = entry
    report["uncalibrated"] = {"pair_accuracy": _pair_accuracy(diff[ev] @ eq, pref[ev])}
    report["calibrated"] = {"pair_accuracy": _pair_accuracy(diff[ev] @ w, pref[ev])}
    if scores is not None:
        report["uncalibrated"]["spearman"] = _spearman(Z @ eq, scores)
        report["calibrated"]["spearman"] = _spearman(Z @ w, scores)
    return Calibration(tuple(metrics), mean, std, w, report)


def load_judgements(
    path: str | Path, metrics: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(X, ia, ib, pref, scores-or-None) from a JSON Lines judgement file (module docstring)."""
    rows, ia, ib, pref, groups, scores = [], [], [], [], [], []
    absolute = None
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        if "preferred" in rec:
            if absolute:
                raise ValueError(f"{path}:{n}: mixes pairwise and absolute judgements")
            absolute = False
            if rec["preferred"] not in ("a", "b"):
                raise ValueError(f"{path}:{n}: 'preferred' must be 'a' or 'b'")
            for side in ("a", "b"):
                rows.append([_metric(rec[side], m, path, n) for m in metrics])
            ia.append(len(rows) - 2)
            ib.append(len(rows) - 1)
            pref.append(1.0 if rec["preferred"] == "a" else 0.0)
        else:
            if absolute is False:
                raise ValueError(f"{path}:{n}: mixes pairwise and absolute judgements")
            absolute = True
            rows.append([_metric(rec["metrics"], m, path, n) for m in metrics])
            groups.append(str(rec.get("group", "")))
            scores.append(float(rec["score"]))
    if not rows:
        raise ValueError(f"{path}: no judgements")
    X = np.array(rows, dtype=float)
    if absolute:
        s = np.array(scores)
        pa, pb, p = pairs_from_groups(np.array(groups), s, np.random.default_rng(0))
        return X, pa, pb, p, s
    return X, np.array(ia), np.array(ib), np.array(pref), None


def _metric(values: dict, name: str, path, n) -> float:
    if name not in values:
        raise ValueError(f"{path}:{n}: metric {name!r} missing")
    v = float(values[name])
    if not math.isfinite(v):
        raise ValueError(f"{path}:{n}: metric {name!r} is not finite")
    return v
