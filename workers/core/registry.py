"""Declarative plugin registry with discovery of built-in packages and entry points.

Built-in plugins live in `workers.benchmarks.<name>` and `workers.methods.<name>`; every
subpackage is imported by `discover()`. Other installed packages add plugins through the
`crucible.plugins` entry-point group: each entry point names a module to import (its import
registers its plugins with the decorators below).
"""

from __future__ import annotations

import importlib
import logging
import os
import pkgutil
from importlib.metadata import entry_points
from typing import TypeVar

from workers.core.plugin import Benchmark, Method

log = logging.getLogger(__name__)

_BENCHMARKS: dict[str, type[Benchmark]] = {}
_METHODS: dict[str, type[Method]] = {}
_discovered = False

B = TypeVar("B", bound=type[Benchmark])
M = TypeVar("M", bound=type[Method])


class UnknownPlugin(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0])


def _check_name(kind: str, cls: type, table: dict) -> None:
    name = getattr(cls, "name", "")
    if not name or not name.replace("-", "_").replace("_", "a").isalnum() or name != name.lower():
        raise TypeError(f"{kind} {cls.__qualname__} needs a lowercase slug `name`, got {name!r}")
    existing = table.get(name)
    if existing is not None and existing.__qualname__ != cls.__qualname__:
        raise TypeError(
            f"{kind} name {name!r} is registered twice ({existing.__qualname__}, {cls.__qualname__})"
        )


def register_benchmark(cls: B) -> B:
    _check_name("benchmark", cls, _BENCHMARKS)
    cls.primary_metric()  # fail at import time, not at the first leaderboard render
    _BENCHMARKS[cls.name] = cls
    return cls


def register_method(cls: M) -> M:
    _check_name("method", cls, _METHODS)
    if not cls.benchmarks:
        raise TypeError(f"method {cls.name!r} must list the benchmarks it runs on")
    _METHODS[cls.name] = cls
    return cls


IMPORT_ERRORS: dict[str, str] = {}


def _import_subpackages(package_name: str) -> None:
    """Import each plugin package; one that fails to import is recorded in IMPORT_ERRORS and
    skipped, so a broken plugin cannot take the whole platform down (a test asserts none fail)."""
    package = importlib.import_module(package_name)
    for info in pkgutil.iter_modules(package.__path__, prefix=f"{package_name}."):
        try:
            importlib.import_module(info.name)
        except Exception as exc:  # noqa: BLE001
            IMPORT_ERRORS[info.name] = f"{type(exc).__name__}: {exc}"
            log.exception("failed to import plugin package %s", info.name)


def discover(force: bool = False) -> None:
    """Import every built-in plugin package and every `crucible.plugins` entry point."""
    global _discovered
    if _discovered and not force:
        return
    _import_subpackages("workers.benchmarks")
    _import_subpackages("workers.methods")
    # Extra plugin modules by name, e.g. a lab's private package without entry points.
    for module in filter(None, os.environ.get("CRUCIBLE_PLUGIN_MODULES", "").split(",")):
        importlib.import_module(module.strip())
    for ep in entry_points(group="crucible.plugins"):
        try:
            ep.load()
        except Exception:  # a broken third-party plugin must not take the platform down
            log.exception("failed to load plugin entry point %s", ep.name)
    _discovered = True


def get_benchmark(name: str) -> type[Benchmark]:
    discover()
    try:
        return _BENCHMARKS[name]
    except KeyError:
        raise UnknownPlugin(f"unknown benchmark {name!r}") from None


def get_method(name: str) -> type[Method]:
    discover()
    try:
        return _METHODS[name]
    except KeyError:
        raise UnknownPlugin(f"unknown method {name!r}") from None


def all_benchmarks() -> dict[str, type[Benchmark]]:
    discover()
    return dict(sorted(_BENCHMARKS.items()))


def all_methods() -> dict[str, type[Method]]:
    discover()
    return dict(sorted(_METHODS.items()))


def methods_for(benchmark: str) -> dict[str, type[Method]]:
    return {n: m for n, m in all_methods().items() if benchmark in m.benchmarks}
