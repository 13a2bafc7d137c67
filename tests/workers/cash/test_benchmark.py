"""The `cash` benchmark end to end through InMemoryRunContext, for every method."""

import json

import numpy as np
import pytest

from workers.benchmarks.cash import CashBenchmark
from workers.core import ConfigError, InMemoryRunContext, RunCancelled, registry
from workers.core.plugin import Method
from workers.methods import bandit_baselines, maxucb

# The plugins are imported directly rather than through registry.discover(), which would import
# every other team's plugin too (slow, and not what these tests are about).
PLUGINS = {
    cls.name: cls
    for cls in (
        maxucb.MaxUCBMethod,
        bandit_baselines.QoMaxETCMethod,
        bandit_baselines.QuantileUCBMethod,
        bandit_baselines.RandomArmMethod,
        bandit_baselines.RoundRobinMethod,
        bandit_baselines.UCB1Method,
    )
}
METHODS = ["maxucb", "qomax_etc", "quantile_ucb", "random_arm", "round_robin", "ucb1"]


def get_benchmark(name):
    assert name == "cash"
    return CashBenchmark


def get_method(name):
    return PLUGINS[name]


SMALL_REAL = {
    "arms": "real",
    "dataset": "iris",
    "models": ["knn", "logistic_regression", "svm"],
    "n_configs": 6,
    "horizon": 20,
}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cash-data")


def run(bench_config, method, seed=0, data_dir=None, **kw):
    ctx = InMemoryRunContext(seed=seed, data_dir=data_dir, **kw)
    get_benchmark("cash")(bench_config).run(ctx, get_method(method)())
    return ctx


def test_registry_lists_all_methods_and_configs_are_documented():
    assert sorted(PLUGINS) == METHODS
    assert registry._BENCHMARKS["cash"] is CashBenchmark  # registered by the decorator at import
    assert all(registry._METHODS[name] is cls for name, cls in PLUGINS.items())
    assert all(cls.benchmarks == ("cash",) for cls in PLUGINS.values())
    bench = get_benchmark("cash")
    assert bench.primary_metric().name == "regret" and bench.primary_metric().goal == "min"
    assert bench.paper.claim_method == "maxucb" and bench.paper.claim_baseline in METHODS
    assert bench.metric(bench.paper.claim_metric) is not None
    for cls in [bench] + [get_method(m) for m in METHODS]:
        for name, prop in cls.config_schema().get("properties", {}).items():
            assert prop.get("description"), f"{cls.name}.{name} has no description"
            assert "default" in prop, f"{cls.name}.{name} has no default in the JSON schema"
    assert get_method("maxucb")().config.alpha == 0.5
    assert not get_method("maxucb").is_baseline and get_method("ucb1").is_baseline


@pytest.mark.parametrize("method", METHODS)
def test_synthetic_run_end_to_end(method):
    ctx = run({"arms": "synthetic", "horizon": 60}, method, seed=3)
    s = ctx.summary
    assert 0.0 <= s["regret"] <= 1.0 and 0.0 <= s["mean_regret"] <= 1.0
    assert sum(v for k, v in ctx.summary.items() if k.startswith("pulls_")) == 60
    curve = [v for _, v in ctx.series("regret")]
    assert len(curve) == 60 and curve[-1] == pytest.approx(s["regret"])
    assert all(0 <= v <= 1 for v in curve) and all(
        b <= a for a, b in zip(curve, curve[1:], strict=False)
    )
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1]
    data, kind = ctx.artifacts["regret_and_pulls"]
    assert kind == "application/vnd.plotly+json" and len(json.loads(data)["data"]) == 2
    assert "cash-synthetic/skewed_max" in ctx.datasets


@pytest.mark.parametrize("method", METHODS)
def test_small_real_run_end_to_end(method, data_dir):
    ctx = run(SMALL_REAL, method, seed=1, data_dir=data_dir)
    s = ctx.summary
    assert set(ctx.datasets) == {"sklearn/iris", "cash-traces/iris"}
    assert 0.0 <= s["regret"] <= 1.0 and 0.0 < s["best_score"] <= s["y_star"] <= 1.0
    assert {k for k in s if k.startswith("pulls_")} == {
        "pulls_knn",
        "pulls_logistic_regression",
        "pulls_svm",
    }
    done, total, _ = ctx.progress_updates[-1]
    assert done == total


def test_same_seed_gives_every_method_the_same_instance(data_dir):
    a = run(SMALL_REAL, "round_robin", seed=5, data_dir=data_dir)
    b = run(SMALL_REAL, "maxucb", seed=5, data_dir=data_dir)
    assert a.summary["y_star"] == b.summary["y_star"]
    assert a.datasets == b.datasets
    # round-robin pulls arm (t-1) mod K: its rewards are the instance's sequences read in order
    c = run(SMALL_REAL, "round_robin", seed=5, data_dir=data_dir)
    assert [v for _, v in a.series("reward")] == [v for _, v in c.series("reward")]


def test_trace_progress_is_reported_on_a_cold_cache(tmp_path):
    ctx = run(dict(SMALL_REAL, n_configs=3, horizon=5), "maxucb", data_dir=tmp_path)
    notes = [note for _, _, note in ctx.progress_updates]
    assert any("building knn trace" in n for n in notes)
    assert ctx.progress_updates[-1][:2] == (3 * 3 + 5, 3 * 3 + 5)
    warm = run(dict(SMALL_REAL, n_configs=3, horizon=5), "maxucb", data_dir=tmp_path)
    assert warm.progress_updates[-1][:2] == (5, 5)


def test_maxucb_finds_the_high_ceiling_arm_more_than_ucb1():
    shares = {"maxucb": [], "ucb1": []}
    for seed in range(4):
        for m in shares:
            ctx = run({"arms": "synthetic", "horizon": 150}, m, seed=seed)
            shares[m].append(ctx.summary["best_arm_share"])
    assert np.mean(shares["maxucb"]) > np.mean(shares["ucb1"]) + 0.2, shares


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"horizon": 1}, "horizon"),
        ({"arms": "imaginary"}, "arms"),
        ({"dataset": "mnist"}, "dataset"),
        ({"models": ["svm"]}, "models"),
        ({"models": ["svm", "svm"]}, "models"),
        ({"models": ["svm", "xgboost"]}, "models"),
        ({"n_configs": 0}, "n_configs"),
        ({"val_fraction": 0.9}, "val_fraction"),
        ({"instance": "heavy"}, "instance"),
        ({"horizn": 10}, "horizn"),
    ],
)
def test_benchmark_config_errors_name_the_field(bad, field):
    with pytest.raises(ConfigError) as err:
        get_benchmark("cash")(bad)
    assert any(k == field or k.startswith(field + ".") for k in err.value.errors), err.value.errors


@pytest.mark.parametrize(
    "method, bad, field",
    [
        ("maxucb", {"alpha": -0.1}, "alpha"),
        ("ucb1", {"c": "big"}, "c"),
        ("qomax_etc", {"batches": 0}, "batches"),
        ("qomax_etc", {"q": 1.5}, "q"),
        ("quantile_ucb", {"tau": 2}, "tau"),
        ("round_robin", {"alpha": 1}, "alpha"),
    ],
)
def test_method_config_errors_name_the_field(method, bad, field):
    with pytest.raises(ConfigError) as err:
        get_method(method)(bad)
    assert field in err.value.errors


def test_cancellation_stops_the_run():
    with pytest.raises(RunCancelled):
        run({"arms": "synthetic", "horizon": 500}, "maxucb", cancel_after=10)


def test_method_without_policy_is_rejected():
    class NotABandit(Method):
        name = "not_a_bandit"
        benchmarks = ("cash",)

    ctx = InMemoryRunContext()
    with pytest.raises(TypeError, match="make_policy"):
        get_benchmark("cash")({"arms": "synthetic"}).run(ctx, NotABandit())


def test_long_runs_log_a_strided_curve():
    ctx = run({"arms": "synthetic", "horizon": 5000, "instance": "power_xp11"}, "round_robin")
    steps = [t for t, _ in ctx.series("regret")]
    assert len(steps) <= 2000 and steps[-1] == 5000


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_default_config_end_to_end(method, data_dir):
    """The launch form's defaults (real arms, breast_cancer, 6 model classes, N=32, T=100); the
    traces are built by the first method (~15 s) and read from the cache by the others."""
    ctx = run({}, method, data_dir=data_dir)
    assert 0.0 <= ctx.summary["regret"] <= 1.0
    assert "cash-traces/breast_cancer" in ctx.datasets
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1]
    assert len(ctx.series("regret")) == 100
