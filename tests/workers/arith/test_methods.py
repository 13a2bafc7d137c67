import json

import numpy as np
import pytest
import torch

from workers.benchmarks.arith_circuits.compressor import ColumnLayout
from workers.benchmarks.arith_circuits.design import DesignSpec
from workers.benchmarks.arith_circuits.problem import WiringProblem
from workers.benchmarks.arith_circuits.verify import test_vectors as make_vectors
from workers.benchmarks.arith_circuits.verilog import iverilog_available, iverilog_check, to_verilog
from workers.core import ConfigError, InMemoryRunContext, get_benchmark, get_method
from workers.methods.arith_baselines.wiring import default_wiring, greedy_column, greedy_wiring
from workers.methods.arith_das.das import ArithDAS, sinkhorn


def test_greedy_column_puts_earliest_on_compressors_and_latest_on_carry_in():
    lay = ColumnLayout(n_in=6, n_fa=1, n_ha=1)
    arrivals = np.array([5.0, 1.0, 3.0, 0.5, 9.0, 2.0])
    perm = greedy_column(lay, arrivals)
    # FA gets the three earliest (0.5, 1.0, 2.0) with 2.0 on ci; HA gets 3.0, 5.0; 9.0 passes
    assert perm.tolist() == [3, 1, 5, 2, 0, 4]


def test_greedy_beats_default_wiring_on_8bit():
    for tree in ("wallace", "dadda"):
        p = WiringProblem(DesignSpec(8, False, tree, "sklansky"))
        assert p.delay(greedy_wiring(p)) < p.delay(default_wiring(p))


def test_sinkhorn_is_doubly_stochastic():
    P = sinkhorn(torch.randn(5, 5), 50)
    assert torch.allclose(P.sum(0), torch.ones(5), atol=1e-4)
    assert torch.allclose(P.sum(1), torch.ones(5), atol=1e-4)


def test_relaxed_delay_matches_exact_sta_for_hard_edges():
    """With one-hot edge logits, low temperatures and a sharp smooth-max, the relaxation is exact STA."""
    p = WiringProblem(DesignSpec(6, True, "dadda", "sklansky"))
    das = ArithDAS(beta=0.005, sinkhorn_iters=20)
    g = torch.Generator().manual_seed(0)
    random_theta = {
        (j, c): torch.randn(p.tree.heights[j][c], p.tree.heights[j][c], generator=g)
        for j, c in das._searchable(p)
    }
    wiring = das.decode(p, random_theta)
    theta = {}
    for j, c in random_theta:
        n = p.tree.heights[j][c]
        th = torch.zeros(n, n)
        th[torch.as_tensor(wiring[j][c]), torch.arange(n)] = 50.0
        theta[(j, c)] = th
    soft = das.soft_delay(p, theta, tau=1.0, gen=None)
    assert float(soft) == pytest.approx(p.delay(wiring), abs=0.1)
    decoded = das.decode(p, theta)
    assert all(np.array_equal(decoded[j][c], wiring[j][c]) for j, c in theta)


def test_das_improves_on_its_default_start():
    p = WiringProblem(DesignSpec(6, False, "dadda", "ripple"))
    das = ArithDAS(steps=25, init="default", seed=0)
    w = das.optimise(p)
    assert p.delay(w) < p.delay(default_wiring(p))
    assert das.history[-1][2] == pytest.approx(p.delay(w))


@pytest.mark.skipif(not iverilog_available(), reason="iverilog not installed")
def test_icarus_agrees_and_catches_a_broken_design():
    from workers.benchmarks.arith_circuits.design import build

    spec = DesignSpec(4, True, "wallace", "brent_kung")
    p = WiringProblem(spec)
    net = build(spec, greedy_wiring(p))
    vectors, expected, _ = make_vectors(spec, 0, np.random.default_rng(0))
    assert iverilog_check(net, vectors, expected) == 0
    expected = expected.copy()
    expected[:5] ^= np.uint64(1)
    assert iverilog_check(net, vectors, expected) == 5
    assert "module top(" in to_verilog(net)


@pytest.mark.parametrize(
    "method,cfg",
    [
        ("arith-default-wiring", {}),
        ("arith-greedy-wiring", {}),
        ("arith-random-wiring", {"tries": 2}),
        ("arith-das", {"steps": 4}),
    ],
)
def test_benchmark_end_to_end(method, cfg):
    bench = get_benchmark("arith-multiplier")(
        {"bits": 4, "unit": "mac", "adders": ["ripple", "sklansky"]}
    )
    ctx = InMemoryRunContext(seed=1)
    bench.run(ctx, get_method(method)(cfg))
    s = ctx.summary
    assert s["hypervolume"] > 0 and s["functional_errors"] == 0
    assert ctx.progress_updates[-1][:2] == (4, 4)
    assert len([k for k in ctx.artifacts if k.startswith("verilog/")]) == 4
    data = json.loads(ctx.artifacts["designs.json"][0])
    assert len(data["designs"]) == 4 and data["pareto"]
    assert ctx.artifacts["pareto.plotly.json"][1] == "application/vnd.plotly+json"


def test_config_validation_names_the_field():
    with pytest.raises(ConfigError, match="bits"):
        get_benchmark("arith-multiplier")({"bits": 64})
    with pytest.raises(ConfigError, match="adders"):
        get_benchmark("arith-multiplier")({"adders": ["carry_skip"]})


def test_benchmark_honours_cancellation():
    from workers.core import RunCancelled

    ctx = InMemoryRunContext(seed=0, cancel_after=1)
    with pytest.raises(RunCancelled):
        get_benchmark("arith-multiplier")({"bits": 4}).run(
            ctx, get_method("arith-das")({"steps": 20})
        )
