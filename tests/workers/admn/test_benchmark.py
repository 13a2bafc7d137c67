import json

import numpy as np
import pytest

from workers.benchmarks.admn_multimodal.benchmark import ADMNMultimodalBenchmark
from workers.benchmarks.admn_multimodal.data import make_views, one_corrupted, random_levels
from workers.core import ConfigError, InMemoryRunContext, get_benchmark, get_method, methods_for
from workers.methods.admn.plugin import ADMNMethod, StaticFullMethod, StaticUniformMethod

TINY = {"latency_samples": 5}


def run(method, bench_cfg=TINY, seed=0):
    ctx = InMemoryRunContext(seed=seed)
    ADMNMultimodalBenchmark(bench_cfg).run(ctx, method)
    return ctx


def test_default_admn_run_end_to_end():
    ctx = InMemoryRunContext(seed=0)
    ADMNMultimodalBenchmark().run(ctx, ADMNMethod())  # the platform defaults, a few seconds
    s = ctx.summary
    assert ADMNMultimodalBenchmark.primary_metric().name in s
    assert 40.0 < s["accuracy"] <= 100.0  # far above chance (10%)
    # The trained controller moves layers away from the badly corrupted modality (uniform: 2).
    assert s["layers_to_corrupted_one_at_2"] < 1.5
    assert s["layers_used"] == 4.0  # the default budget, exactly
    assert 0 < s["flops_ratio_vs_full"] < 1 and s["latency_ratio_vs_full"] > 0
    done, total, _ = ctx.progress_updates[-1]
    assert done == total
    assert ctx.series("controller_loss") and ctx.series("layerdrop_loss")
    assert "digits" in ctx.datasets
    per = json.loads(ctx.artifacts["per_condition.json"][0])
    assert set(per) == {"mixed", "one_at_0.5", "one_at_1", "one_at_2"}
    for cond in per.values():
        assert sum(cond["layers_per_modality"]) == pytest.approx(4.0)
        assert all(0 <= k <= 4 for k in cond["layers_per_modality"])


def test_static_baselines_use_their_fixed_allocations():
    cfg = {**TINY, "budget": 3}
    uni = run(StaticUniformMethod({"epochs": 2}), cfg).summary
    assert uni["layers_used"] == 3.0
    full = run(StaticFullMethod({"epochs": 2}), cfg).summary
    assert full["layers_used"] == 8.0 and full["flops_ratio_vs_full"] == 1.0
    assert full["layers_to_corrupted_one_at_2"] == 4.0


def test_registry_config_errors_and_cancellation():
    assert get_benchmark("admn-multimodal") is ADMNMultimodalBenchmark
    names = set(methods_for("admn-multimodal"))
    assert {"admn", "admn-static-uniform", "admn-static-full"} <= names
    assert get_method("admn").paper.claim_baseline == "admn-static-uniform"
    with pytest.raises(ConfigError, match="budget"):
        ADMNMultimodalBenchmark({"budget": 9})
    with pytest.raises(ConfigError, match="layerdrop_p"):
        ADMNMethod({"layerdrop_p": 1.0})
    from workers.core import RunCancelled

    ctx = InMemoryRunContext(seed=0, cancel_after=1)
    with pytest.raises(RunCancelled):
        ADMNMultimodalBenchmark(TINY).run(ctx, ADMNMethod({"epochs": 3}))


def test_corruption_generators():
    rng = np.random.default_rng(0)
    sig = one_corrupted(1000, 2.0, 0.0, rng)
    assert np.all(np.sort(sig, axis=1) == [0.0, 2.0])
    assert 400 < (sig[:, 0] == 2.0).sum() < 600
    assert set(np.unique(random_levels(500, (0.0, 1.0), rng))) == {0.0, 1.0}
    X = rng.random((3, 64))
    v = make_views(X, np.zeros((3, 2)), rng)
    np.testing.assert_allclose(
        v[1].numpy().reshape(3, 8, 8), X.reshape(3, 8, 8).transpose(0, 2, 1), atol=1e-6
    )
