"""Benchmark and Method base classes.

A Run = benchmark x method (x model) x config x seed. The platform builds
`bench = BenchmarkCls(bench_config)` and `method = MethodCls(method_config)` and calls
`bench.run(ctx, method)`. The benchmark owns the protocol (data, loop, scoring) and calls the
method through whatever interface it documents (for example a bandit policy's
`select`/`update`, or an estimator's `fit`/`predict`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from workers.core.config import PluginConfig, validate_config
from workers.core.context import RunContext
from workers.core.data import DatasetSpec
from workers.core.metrics import MetricSpec
from workers.core.papers import Paper


class _EmptyConfig(PluginConfig):
    pass


class _Plugin:
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    description: ClassVar[str] = ""
    paper: ClassVar[Paper | None] = None
    Config: ClassVar[type[PluginConfig]] = _EmptyConfig

    def __init__(self, config: PluginConfig | dict | None = None) -> None:
        if config is None or isinstance(config, dict):
            config = validate_config(self.Config, config or {})
        elif not isinstance(config, self.Config):
            raise TypeError(
                f"{type(self).__name__} expects {self.Config.__name__}, got {type(config).__name__}"
            )
        self.config = config

    @classmethod
    def config_schema(cls) -> dict[str, Any]:
        return cls.Config.model_json_schema()

    @classmethod
    def validate(cls, data: dict | None) -> PluginConfig:
        return validate_config(cls.Config, data)


class Benchmark(_Plugin, ABC):
    """A task: datasets, protocol, metrics. Subclasses set the class attributes and `run`."""

    metrics: ClassVar[tuple[MetricSpec, ...]] = ()
    datasets: ClassVar[tuple[DatasetSpec, ...]] = ()
    # Methods that need an LLM (or other registered model) say so; the launch form then asks for one.
    leaderboards: ClassVar[tuple[str, ...]] = ("overall",)

    @classmethod
    def primary_metric(cls) -> MetricSpec:
        primaries = [m for m in cls.metrics if m.primary]
        if len(primaries) != 1:
            raise TypeError(f"benchmark {cls.name!r} must declare exactly one primary metric")
        return primaries[0]

    @classmethod
    def metric(cls, name: str) -> MetricSpec | None:
        return next((m for m in cls.metrics if m.name == name), None)

    # Sharding: a benchmark whose config has these two fields can be split into chunk runs
    # (a sweep over `chunk_index`); `merge_chunks` then combines the chunks' private
    # artifact `chunk_artifact` (parsed JSON, one per chunk) into one summary.
    chunk_fields: ClassVar[tuple[str, str] | None] = None
    chunk_artifact: ClassVar[str] = ""

    @classmethod
    def leaderboard_figure(cls, board: dict[str, Any]) -> Any | None:
        """An extra Plotly figure for the benchmark page, drawn from its leaderboard with every
        column (rows of {"method", "model", "metrics": {key: {"mean", "ci95", "n"}}}), for
        comparisons the plain ranking does not show (e.g. error per task family). None: none."""
        return None

    @classmethod
    def merge_chunks(cls, chunk_payloads: list[Any]) -> dict[str, float]:
        raise NotImplementedError(f"benchmark {cls.name!r} does not merge chunks")

    @abstractmethod
    def run(self, ctx: RunContext, method: Method) -> None:
        """Execute the protocol with `method`, reporting only through `ctx`."""


class Method(_Plugin):
    """An algorithm (a paper's method or a baseline) evaluated on one or more benchmarks."""

    benchmarks: ClassVar[tuple[str, ...]] = ()
    is_baseline: ClassVar[bool] = False
    requires_model: ClassVar[bool] = False
    # Methods that replay uploaded predictions: launched only through a prediction upload,
    # which supplies `predictions_file`; never from the launch form or a plain submission.
    submission_only: ClassVar[bool] = False
