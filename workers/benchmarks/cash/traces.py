"""Random-search traces of the real CASH arms, built once and cached as JSON.

A trace is N random configurations of one model class on one dataset, each with its validation
score. Building it is the only expensive part of a real-arm run, so it is cached under the
run's data directory keyed by (dataset, model class, N, trace seed, validation split, scoring,
scikit-learn version); every later run with the same key only reads the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from sklearn.metrics import accuracy_score, balanced_accuracy_score
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from workers.benchmarks.cash.search_spaces import build_estimator, load_dataset, sample_config

SCORERS = {"accuracy": accuracy_score, "balanced_accuracy": balanced_accuracy_score}


@dataclass(frozen=True)
class TraceKey:
    dataset: str
    model: str
    n_configs: int
    trace_seed: int
    val_fraction: float
    scoring: str

    def filename(self) -> str:
        return (
            f"{self.dataset}__{self.model}__n{self.n_configs}__seed{self.trace_seed}"
            f"__val{self.val_fraction:g}__{self.scoring}__sklearn{sklearn.__version__}.json"
        )


def dataset_sha256(dataset: str) -> str:
    """Content hash of a bundled dataset's X and y (its version as this scikit-learn ships it)."""
    X, y = load_dataset(dataset)
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(X).tobytes())
    digest.update(np.ascontiguousarray(y).tobytes())
    return digest.hexdigest()


def build_trace(key: TraceKey, on_step: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Fit `key.n_configs` random configurations and score each on one stratified hold-out split.

    The split and the configurations depend only on the key, so a trace is reproducible.
    `on_step(i)` is called after each fit (progress and cancellation hook).
    """
    if key.scoring not in SCORERS:
        raise ValueError(f"scoring must be one of {sorted(SCORERS)}, got {key.scoring!r}")
    X, y = load_dataset(key.dataset)
    X_train, X_val, y_train, y_val = train_test_split(
        X, y, test_size=key.val_fraction, stratify=y, random_state=key.trace_seed
    )
    # Independent but reproducible stream per model class, so adding a class changes no other trace.
    model_id = int.from_bytes(hashlib.sha256(key.model.encode()).digest()[:4], "little")
    seq = np.random.SeedSequence([key.trace_seed, model_id])
    rng = np.random.default_rng(seq)
    configs, scores, errors = [], [], []
    # One thread per fit: BLAS/OpenMP oversubscription made gradient boosting ~30x slower here.
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings are expected for random configs
        for i in range(key.n_configs):
            config = sample_config(key.model, rng)
            try:
                estimator = build_estimator(key.model, config, seed=key.trace_seed + i)
                estimator.fit(X_train, y_train)
                score = float(SCORERS[key.scoring](y_val, estimator.predict(X_val)))
                error = ""
            except Exception as exc:  # a crashed configuration scores as badly as possible
                score, error = 0.0, f"{type(exc).__name__}: {exc}"
            configs.append(config)
            scores.append(score)
            errors.append(error)
            if on_step is not None:
                on_step(i + 1)
    return {
        "key": key.__dict__,
        "sklearn": sklearn.__version__,
        "configs": configs,
        "scores": scores,
        "errors": errors,
    }


class TraceCache:
    """JSON trace files in one directory (normally `ctx.data_path("cash-traces")`)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, key: TraceKey) -> Path:
        return self.root / key.filename()

    def load(self, key: TraceKey) -> dict[str, Any] | None:
        """The cached trace, or None when absent or unreadable (then it is rebuilt)."""
        path = self.path(key)
        try:
            trace = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if trace.get("key") != key.__dict__ or len(trace.get("scores", [])) != key.n_configs:
            return None
        return trace

    def save(self, key: TraceKey, trace: dict[str, Any]) -> None:
        # Write-then-rename so a concurrent run never reads half a file.
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".part-", suffix=".json")
        with os.fdopen(fd, "w") as handle:
            json.dump(trace, handle, sort_keys=True)
        os.replace(tmp, self.path(key))

    def get(
        self, key: TraceKey, on_step: Callable[[int], None] | None = None
    ) -> tuple[dict[str, Any], bool]:
        """(trace, hit): the cached trace, or a freshly built and stored one."""
        trace = self.load(key)
        if trace is not None:
            return trace, True
        trace = build_trace(key, on_step)
        self.save(key, trace)
        return trace, False


def traces_sha256(traces: dict[str, dict[str, Any]]) -> str:
    """Version of a set of traces: SHA-256 of their canonical JSON (model name -> trace)."""
    blob = json.dumps(
        {
            name: {"key": t["key"], "configs": t["configs"], "scores": t["scores"]}
            for name, t in sorted(traces.items())
        },
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()
