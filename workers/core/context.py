"""RunContext: the only channel through which plugin code reports.

Plugins receive a RunContext and never touch Django, the broker or the filesystem layout
directly. `InMemoryRunContext` keeps everything in lists so plugins are tested without a
server; the platform's worker supplies a database-backed subclass with the same behaviour.
"""

from __future__ import annotations

import json
import math
import os
import random
import tempfile
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np


class RunCancelled(Exception):
    """Raised by `check_cancelled()` when the run was cancelled; the worker marks it cancelled."""


def seed_everything(seed: int) -> None:
    """Seed every RNG a run may use (Python, NumPy, PyTorch)."""
    random.seed(seed)
    np.random.seed(seed % (2**32))
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:  # pragma: no cover - torch is a hard dependency, but keep core light
        pass


def artifact_bytes(obj: Any) -> tuple[bytes, str]:
    """Serialise what `save_artifact` accepts into (bytes, content_type).

    Accepts bytes, str/Path to a file, a Plotly figure (stored as its JSON so the run page can
    draw it interactively), or any JSON-serialisable dict/list.
    """
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj), "application/octet-stream"
    if isinstance(obj, (str, os.PathLike)):
        path = Path(obj)
        if not path.is_file():
            raise FileNotFoundError(f"artifact path {path} is not a file")
        return path.read_bytes(), _guess_type(path.name)
    if hasattr(obj, "to_plotly_json") and hasattr(obj, "to_json"):
        return obj.to_json().encode(), "application/vnd.plotly+json"
    if isinstance(obj, (dict, list)):
        return json.dumps(obj, default=_json_default).encode(), "application/json"
    raise TypeError(f"cannot save an artifact of type {type(obj).__name__}")


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _guess_type(name: str) -> str:
    import mimetypes

    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def clean_number(value: Any) -> float:
    """Metrics must be finite-or-NaN floats; reject strings and tensors with a clear error."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"metric values must be numbers, got {type(value).__name__}")
    return float(value)


class RunContext(ABC):
    """What a run sees of the platform (see DESIGN.md section 3)."""

    def __init__(
        self,
        *,
        seed: int = 0,
        device: str = "cpu",
        data_dir: str | Path | None = None,
        model: Any = None,
    ) -> None:
        import torch

        self.seed = int(seed)
        self.device = torch.device(device)
        self.model = model
        self._data_dir = (
            Path(data_dir) if data_dir else Path(os.environ.get("CRUCIBLE_DATA_DIR", "var/data"))
        )

    # -- reporting -----------------------------------------------------------------------
    @abstractmethod
    def progress(self, done: float, total: float, note: str = "") -> None: ...

    @abstractmethod
    def log(self, message: str) -> None: ...

    @abstractmethod
    def log_metrics(self, step: int, **values: float) -> None: ...

    @abstractmethod
    def log_summary(self, **values: float) -> None: ...

    @abstractmethod
    def save_artifact(self, name: str, obj: Any, *, private: bool = False) -> None:
        """Store a file, figure or JSON object with the run. `private=True` keeps it on the
        server (never shown by any page or API): for hidden ground truth or per-instance
        scores that only server-side merging may read."""

    @abstractmethod
    def check_cancelled(self) -> None: ...

    def record_dataset(self, name: str, content_hash: str, source: str = "") -> None:
        """Note which dataset version the run used (default: only logged)."""
        self.log(f"dataset {name} sha256={content_hash[:12]} {source}".rstrip())

    # -- data ----------------------------------------------------------------------------
    def data_path(self, name: str) -> Path:
        """Directory in the data cache for dataset `name` (created on first use)."""
        path = self._data_dir / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def scratch_dir(self) -> Path:
        """A private temporary directory for this run."""
        return Path(tempfile.mkdtemp(prefix="crucible-run-"))


@dataclass
class _Record:
    step: int
    values: dict[str, float]


@dataclass
class InMemoryRunContext(RunContext):
    """A RunContext that keeps everything in memory (tests, notebooks, scripts).

    `cancel_after` makes `check_cancelled()` raise after that many calls, to test a
    plugin's cancellation path.
    """

    seed: int = 0
    device: Any = "cpu"
    data_dir: str | Path | None = None
    model: Any = None
    cancel_after: int | None = None
    echo: bool = False
    logs: list[str] = field(default_factory=list)
    metrics: list[_Record] = field(default_factory=list)
    summary: dict[str, float] = field(default_factory=dict)
    artifacts: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    private_artifacts: set[str] = field(default_factory=set)
    progress_updates: list[tuple[float, float, str]] = field(default_factory=list)
    datasets: dict[str, str] = field(default_factory=dict)
    _cancel_checks: int = 0

    def __post_init__(self) -> None:
        RunContext.__init__(
            self, seed=self.seed, device=str(self.device), data_dir=self.data_dir, model=self.model
        )
        self.started = time.monotonic()

    def progress(self, done: float, total: float, note: str = "") -> None:
        if total <= 0 or done < 0 or done > total * (1 + 1e-9):
            raise ValueError(f"progress({done}, {total}) is out of range")
        self.progress_updates.append((float(done), float(total), note))

    def log(self, message: str) -> None:
        self.logs.append(str(message))
        if self.echo:
            print(message)

    def log_metrics(self, step: int, **values: float) -> None:
        self.metrics.append(_Record(int(step), {k: clean_number(v) for k, v in values.items()}))

    def log_summary(self, **values: float) -> None:
        self.summary.update({k: clean_number(v) for k, v in values.items()})

    def save_artifact(self, name: str, obj: Any, *, private: bool = False) -> None:
        self.artifacts[name] = artifact_bytes(obj)
        if private:
            self.private_artifacts.add(name)

    def check_cancelled(self) -> None:
        self._cancel_checks += 1
        if self.cancel_after is not None and self._cancel_checks > self.cancel_after:
            raise RunCancelled("cancelled")

    def record_dataset(self, name: str, content_hash: str, source: str = "") -> None:
        self.datasets[name] = content_hash

    # -- conveniences for tests -----------------------------------------------------------
    def series(self, key: str) -> list[tuple[int, float]]:
        """All (step, value) points logged for `key`, in order."""
        return [(r.step, r.values[key]) for r in self.metrics if key in r.values]

    def last(self, key: str) -> float:
        points = self.series(key)
        return points[-1][1] if points else math.nan
