"""Every built-in plugin imports, registers, and honours the contract the platform relies on."""

from __future__ import annotations

import pytest

from workers.core import registry


@pytest.fixture(scope="module")
def plugins():
    registry.discover()
    return registry.all_benchmarks(), registry.all_methods()


def test_no_plugin_package_fails_to_import(plugins):
    assert registry.IMPORT_ERRORS == {}


def test_benchmarks_declare_metrics_papers_and_schemas(plugins):
    benchmarks, _ = plugins
    assert len(benchmarks) >= 10
    for name, cls in benchmarks.items():
        assert cls.primary_metric().name, name
        assert cls.paper is not None and cls.paper.title and cls.paper.headline_claim, name
        assert cls.config_schema()["type"] == "object", name
        cls(cls.Config())  # the default configuration validates


def test_methods_name_existing_benchmarks(plugins):
    benchmarks, methods = plugins
    for name, cls in methods.items():
        assert cls.benchmarks and set(cls.benchmarks) <= set(benchmarks), name
        cls(cls.Config())


def test_every_seed_paper_claim_points_at_registered_plugins(plugins):
    benchmarks, methods = plugins
    papers = {
        cls.paper.key: cls.paper for cls in [*benchmarks.values(), *methods.values()] if cls.paper
    }
    for key, paper in papers.items():
        if not paper.claim_benchmark:
            continue
        bench = benchmarks[paper.claim_benchmark]
        assert paper.claim_method in methods and paper.claim_baseline in methods, key
        assert bench.metric(paper.claim_metric) is not None, (
            f"{key}: {paper.claim_metric} is not a declared metric"
        )
