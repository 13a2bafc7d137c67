"""The plugin contract: benchmarks, methods, metrics, papers, run context and registry.

Django-free on purpose: plugins import only this package, so they can be tested and used
without a web server, a database or a broker.
"""

from workers.core.config import ConfigError, PluginConfig, validate_config
from workers.core.context import InMemoryRunContext, RunCancelled, RunContext
from workers.core.data import DatasetSpec
from workers.core.metrics import MetricSpec
from workers.core.papers import Paper
from workers.core.plugin import Benchmark, Method
from workers.core.registry import (
    all_benchmarks,
    all_methods,
    discover,
    get_benchmark,
    get_method,
    methods_for,
    register_benchmark,
    register_method,
)

__all__ = [
    "Benchmark",
    "ConfigError",
    "DatasetSpec",
    "InMemoryRunContext",
    "Method",
    "MetricSpec",
    "Paper",
    "PluginConfig",
    "RunCancelled",
    "RunContext",
    "all_benchmarks",
    "all_methods",
    "discover",
    "get_benchmark",
    "get_method",
    "methods_for",
    "register_benchmark",
    "register_method",
    "validate_config",
]
