"""DP best-subset selection: exponential mechanism, MIP against enumeration, samplers, benchmark."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from workers.benchmarks.dpbss.data import make_sparse_data, support_f1
from workers.benchmarks.dpbss.plugin import DPBSSBenchmark
from workers.core import ConfigError, InMemoryRunContext
from workers.methods.dpbss import plugin as methods
from workers.methods.dpbss.mip import SupportMIP, enumerate_supports
from workers.methods.dpbss.objective import (
    HingeObjective,
    LeastSquaresObjective,
    clip_data,
    sensitivity,
)
from workers.methods.dpbss.samplers import (
    MistakesSampler,
    TopRSampler,
    em_probabilities,
    exact_exponential_mechanism,
    mcmc_exponential_mechanism,
)

# the plugin classes directly (the registry's discovery imports every team's plugins, which is slow)
METHODS = {
    cls.name: cls
    for cls in (
        methods.TopRMethod,
        methods.MistakesMethod,
        methods.MCMCMethod,
        methods.DPLassoMethod,
        methods.ExactEMMethod,
    )
}


def get_benchmark(name):
    assert name == DPBSSBenchmark.name
    return DPBSSBenchmark


def get_method(name):
    return METHODS[name]


def _problem(n=200, p=8, s=2, seed=0, lam=5.0, r=1.1, loss="least_squares"):
    X, y, truth = make_sparse_data(n, p, s, rng=np.random.default_rng(seed), loss=loss)
    Xc, yc = clip_data(X, y, 0.5, 0.5 if loss == "least_squares" else None)
    obj = (LeastSquaresObjective if loss == "least_squares" else HingeObjective)(
        Xc, yc, lam=lam, r=r
    )
    return X, y, Xc, yc, obj, truth


def test_least_squares_objective_matches_closed_form_and_ball():
    _, _, Xc, yc, _, _ = _problem()
    n = len(yc)
    S = (1, 3)
    big = LeastSquaresObjective(Xc, yc, lam=5.0, r=100.0)
    XS = Xc[:, S]
    beta = np.linalg.solve(XS.T @ XS + 5.0 * np.eye(2), XS.T @ yc)  # ridge, ball inactive
    val = np.sum((yc - XS @ beta) ** 2) / (2 * n) + 5.0 / (2 * n) * beta @ beta
    assert big.value(S) == pytest.approx(val, rel=1e-10)
    tight = LeastSquaresObjective(Xc, yc, lam=5.0, r=0.2)
    v, b = tight.solve(S)
    assert np.linalg.norm(b) == pytest.approx(0.2, rel=1e-8)
    # no feasible point on a fine circle of radius <= 0.2 does better
    ang = np.linspace(0, 2 * np.pi, 2000)
    for rad in (0.05, 0.1, 0.2):
        B = rad * np.stack([np.cos(ang), np.sin(ang)], 1)
        vals = ((yc[None, :] - B @ XS.T) ** 2).sum(1) / (2 * n) + 5.0 / (2 * n) * (B**2).sum(1)
        assert vals.min() >= v - 1e-12


@pytest.mark.parametrize("loss", ["least_squares", "hinge"])
def test_sensitivity_bounds_replace_one_change(loss):
    X, y, Xc, yc, obj, _ = _problem(n=60, p=5, s=2, loss=loss)
    rng = np.random.default_rng(1)
    delta = sensitivity(loss, len(yc), 2, 1.1, 0.5, 0.5)
    cls = LeastSquaresObjective if loss == "least_squares" else HingeObjective
    worst = 0.0
    for _ in range(10 if loss == "least_squares" else 4):
        i = rng.integers(len(yc))
        X2, y2 = Xc.copy(), yc.copy()
        X2[i] = rng.choice([-0.5, 0.5], size=X2.shape[1])  # extreme replacement inside the clip box
        y2[i] = rng.choice([-0.5, 0.5]) if loss == "least_squares" else -y2[i]
        other = cls(X2, y2, lam=5.0, r=1.1)
        for S in itertools.combinations(range(5), 2):
            worst = max(worst, abs(obj.value(S) - other.value(S)))
    assert 0 < worst <= delta * (1 + 1e-6)


def test_outer_approximation_cuts_are_valid_lower_bounds():
    _, _, _, _, obj, _ = _problem(p=7, s=2)
    supports, values = enumerate_supports(obj, 2)
    for T in supports[::3]:
        c, g = obj.cut(T)
        zt = np.zeros(7)
        zt[list(T)] = 1
        for S, v in zip(supports, values, strict=True):
            z = np.zeros(7)
            z[list(S)] = 1
            assert v >= c + g @ (z - zt) - 1e-10


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mip_best_and_top_r_equal_enumeration(seed):
    _, _, _, _, obj, _ = _problem(n=150, p=10, s=3, seed=seed)
    supports, values = enumerate_supports(obj, 3)
    order = np.argsort(values)
    mip = SupportMIP(obj, 3)
    S, v = mip.best()
    assert S == supports[order[0]] and v == pytest.approx(values[order[0]])
    top = mip.top_r(6)
    np.testing.assert_allclose([t[1] for t in top], values[order[:6]], rtol=1e-9)
    # best support with at least k mistakes w.r.t. the optimum
    levels = mip.mistake_levels(S)
    for k, (_, vk) in enumerate(levels):
        mask = [len(set(T) - set(S)) >= k for T in supports]
        assert vk == pytest.approx(values[mask].min(), rel=1e-9)


def test_exponential_mechanism_sampling_matches_definition_chi_square():
    _, _, _, _, obj, _ = _problem(n=120, p=6, s=2, seed=3)
    eps, delta = 0.5, sensitivity("least_squares", 120, 2, 1.1, 0.5, 0.5)
    draws, supports, probs = exact_exponential_mechanism(
        obj, 2, eps, delta, 20000, np.random.default_rng(7)
    )
    _, values = enumerate_supports(obj, 2)
    np.testing.assert_allclose(
        probs, np.exp(-eps * values / (2 * delta)) / np.exp(-eps * values / (2 * delta)).sum()
    )
    assert probs.max() < 0.5  # a spread-out distribution, so the test has power
    index = {S: i for i, S in enumerate(supports)}
    counts = np.bincount([index[tuple(d)] for d in draws], minlength=len(supports))
    assert chisquare(counts, 20000 * probs).pvalue > 1e-3
    # a wrong distribution (one support's weight doubled) is rejected by the same test
    wrong = probs.copy()
    wrong[np.argmax(probs)] *= 1.2
    assert chisquare(counts, 20000 * wrong / wrong.sum()).pvalue < 1e-3


def test_top_r_sampler_is_exact_mechanism_when_r_is_everything_and_matches_its_law():
    _, _, _, _, obj, _ = _problem(n=120, p=6, s=2, seed=3)
    eps, delta = 0.5, sensitivity("least_squares", 120, 2, 1.1, 0.5, 0.5)
    supports, values = enumerate_supports(obj, 2)
    full = TopRSampler(SupportMIP(obj, 2), eps, delta, R=math.comb(6, 2))
    np.testing.assert_allclose(
        [full.support_probability(S) for S in supports],
        em_probabilities(values, eps, delta),
        rtol=1e-9,
    )
    part = TopRSampler(SupportMIP(obj, 2), eps, delta, R=4)
    law = np.array([part.support_probability(S) for S in supports])
    assert law.sum() == pytest.approx(1.0)
    index = {S: i for i, S in enumerate(supports)}
    draws = part.sample(20000, np.random.default_rng(11))
    counts = np.bincount([index[tuple(d)] for d in draws], minlength=len(supports))
    assert chisquare(counts, 20000 * law).pvalue > 1e-3


def test_top_r_default_neighbourhood_is_the_true_top_r():
    _, _, _, _, obj, _ = _problem(n=150, p=6, s=2, seed=5)
    supports, values = enumerate_supports(obj, 2)
    sampler = TopRSampler(SupportMIP(obj, 2), 1.0, 0.01)  # R = 1 + s(p-s) + 1 = 10
    assert sampler.R == 10
    np.testing.assert_allclose([v for _, v in sampler.top], np.sort(values)[:10], rtol=1e-9)


def test_mistakes_sampler_group_weights():
    _, _, _, _, obj, _ = _problem(n=120, p=7, s=2, seed=4)
    eps, delta = 1.0, sensitivity("least_squares", 120, 2, 1.1, 0.5, 0.5)
    ms = MistakesSampler(SupportMIP(obj, 2), eps, delta, within="uniform")
    assert list(ms.sizes) == [1, 2 * 5, 1 * 10]
    w = ms.sizes * np.exp(-eps * np.array([v for _, v in ms.levels]) / (2 * delta))
    np.testing.assert_allclose(ms.probs, w / w.sum())
    draws = ms.sample(3000, np.random.default_rng(0))
    k = np.array([len(set(d) - set(ms.center)) for d in draws])
    counts = np.bincount(k, minlength=3)
    assert chisquare(counts, 3000 * ms.probs).pvalue > 1e-3


def test_mcmc_chains_approach_the_mechanism():
    _, _, _, _, obj, _ = _problem(n=120, p=6, s=2, seed=3)
    eps, delta = 0.5, sensitivity("least_squares", 120, 2, 1.1, 0.5, 0.5)
    supports, values = enumerate_supports(obj, 2)
    probs = em_probabilities(values, eps, delta)
    draws = mcmc_exponential_mechanism(obj, 2, eps, delta, 400, 60, np.random.default_rng(5))
    index = {S: i for i, S in enumerate(supports)}
    freq = np.bincount([index[tuple(d)] for d in draws], minlength=len(supports)) / 400
    assert 0.5 * np.abs(freq - probs).sum() < 0.15  # total variation after 60 swap steps


def test_hinge_objective_is_minimal_and_mip_finds_enumerated_best():
    _, _, Xc, yc, obj, _ = _problem(n=120, p=6, s=2, loss="hinge")
    val, coef, _ = obj.solve((1, 3))
    rng = np.random.default_rng(0)
    XS = Xc[:, [1, 3]]
    for _ in range(200):  # feasible perturbations never do better
        b = coef + rng.normal(scale=0.05, size=2)
        b *= min(1.0, 1.1 / np.linalg.norm(b))
        other = np.maximum(1 - yc * (XS @ b), 0).mean() + 5.0 / len(yc) * b @ b
        assert other >= val - 1e-6
    supports, values = enumerate_supports(obj, 2)
    S, v = SupportMIP(obj, 2).best()
    assert v == pytest.approx(values.min(), rel=1e-6)
    with pytest.raises(ValueError, match="labels"):
        HingeObjective(Xc, np.arange(len(yc), dtype=float))


def test_f1_and_data_generator():
    X, y, truth = make_sparse_data(50, 10, 3, rng=np.random.default_rng(0))
    assert X.shape == (50, 10) and list(truth) == [1, 3, 5]
    assert support_f1(np.array([1, 3, 7]), truth) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="2s <= p"):
        make_sparse_data(50, 4, 3)


@pytest.mark.parametrize(
    "method", ["dpbss-top-r", "dpbss-mistakes", "dpbss-mcmc", "dpbss-lasso", "dpbss-exact-em"]
)
def test_benchmark_end_to_end(method):
    bench = get_benchmark("dpbss-support-recovery")(
        {"n": 300, "p": 8, "s": 2, "n_trials": 2, "n_draws": 5}
    )
    ctx = InMemoryRunContext(seed=0)
    cfg = {"dpbss-mcmc": {"n_iter": 50}, "dpbss-top-r": {"R": 4}}.get(method, {})
    bench.run(ctx, get_method(method)(cfg))
    assert 0.0 <= ctx.summary["exact_recovery"] <= 1.0 and 0.0 <= ctx.summary["f1"] <= 1.0
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1] == 2
    assert "mistakes_histogram" in ctx.artifacts


def test_bad_config_is_rejected():
    with pytest.raises(ConfigError, match="epsilon"):
        get_benchmark("dpbss-support-recovery")({"epsilon": 0})
    with pytest.raises(ConfigError, match="within"):
        get_method("dpbss-mistakes")({"within": "worst"})


@pytest.mark.parametrize("method,cfg", [("dpbss-exact-em", {}), ("dpbss-top-r", {"R": 3})])
def test_benchmark_hinge_classification(method, cfg):
    bench = get_benchmark("dpbss-support-recovery")(
        {"loss": "hinge", "n": 200, "p": 6, "s": 2, "n_trials": 2, "n_draws": 5, "epsilon": 5.0}
    )
    ctx = InMemoryRunContext(seed=0)
    bench.run(ctx, get_method(method)(cfg))
    assert 0.0 <= ctx.summary["exact_recovery"] <= 1.0 and ctx.summary["f1"] > 0.0


def test_plugins_are_registered_under_their_slugs():
    from workers.core.registry import _BENCHMARKS, _METHODS

    assert _BENCHMARKS["dpbss-support-recovery"] is DPBSSBenchmark
    assert all(_METHODS[name] is cls for name, cls in METHODS.items())
    assert all(cls.benchmarks == ("dpbss-support-recovery",) for cls in METHODS.values())


def test_large_p_paths_agree_with_the_small_p_ones(monkeypatch):
    """p = 10^4 avoids p x p matrices: X by an AR(1) recursion (same Toeplitz law) and L(S)
    from column blocks of X instead of the Gram matrix; both must agree with the dense paths."""
    from workers.benchmarks.dpbss import data as data_mod
    from workers.methods.dpbss import objective as obj_mod

    monkeypatch.setattr(data_mod, "CHOLESKY_MAX_P", 3)
    X, _, _ = make_sparse_data(20_000, 6, 2, rho=0.6, rng=np.random.default_rng(0))
    idx = np.arange(6)
    np.testing.assert_allclose(np.cov(X.T), 0.6 ** np.abs(idx[:, None] - idx[None, :]), atol=0.03)
    _, _, Xc, yc, dense, _ = _problem(p=8, s=2)
    monkeypatch.setattr(obj_mod, "GRAM_MAX_P", 3)
    lazy = LeastSquaresObjective(Xc, yc, lam=5.0, r=1.1)
    assert lazy.G is None and dense.G is not None
    for S in [(0, 1), (2, 5), (3, 7)]:
        assert lazy.value(S) == pytest.approx(dense.value(S), rel=1e-10)
        np.testing.assert_allclose(lazy.cut(S)[1], dense.cut(S)[1], rtol=1e-9, atol=1e-14)
