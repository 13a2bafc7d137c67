import itertools

import numpy as np
import pytest

from workers.benchmarks.arith_circuits.adders import ADDERS, final_adder
from workers.benchmarks.arith_circuits.cells import unit_library
from workers.benchmarks.arith_circuits.compressor import dadda_tree, wallace_tree
from workers.benchmarks.arith_circuits.design import DesignSpec, build, initial_heights
from workers.benchmarks.arith_circuits.netlist import Netlist
from workers.benchmarks.arith_circuits.pareto import hypervolume_2d, pareto_front
from workers.benchmarks.arith_circuits.problem import WiringProblem
from workers.benchmarks.arith_circuits.verify import count_errors
from workers.benchmarks.arith_circuits.verify import test_vectors as make_vectors


def test_full_and_half_adder_truth_tables():
    net = Netlist(unit_library())
    x = net.add_input("x", 3)
    s, co = net.add_gate("FA", *x)
    hs, hco = net.add_gate("HA", x[0], x[1])
    net.set_output("p", [s, co, hs, hco])
    v = np.arange(8, dtype=np.uint64)
    got = net.simulate({"x": v})["p"]
    for i in range(8):
        a, b, c = (i >> 0) & 1, (i >> 1) & 1, (i >> 2) & 1
        want = ((a + b + c) & 1) | (((a + b + c) >> 1) << 1) | (((a + b) & 1) << 2) | ((a & b) << 3)
        assert int(got[i]) == want


def test_sta_uses_pin_dependent_delays():
    lib = unit_library()
    net = Netlist(lib)
    x = net.add_input("x", 3)
    s, co = net.add_gate("FA", *x)
    net.set_output("p", [s, co])
    # a late signal on the fast ci pin: sum = max(0 + 3.0, 0 + 3.0, 2 + 1.8) = 3.8
    t = net.arrival_times({"x": [0.0, 0.0, 2.0]})
    assert t[s] == pytest.approx(3.8) and t[co] == pytest.approx(3.4)
    # the same late signal on pin a is slower: 2 + 3.0
    t = net.arrival_times({"x": [2.0, 0.0, 0.0]})
    assert t[s] == pytest.approx(5.0)
    assert net.area() == lib["FA"].area


@pytest.mark.parametrize("kind", ADDERS)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8])
def test_final_adders_add_exhaustively(kind, n):
    net = Netlist(unit_library())
    a, b = net.add_input("a", n), net.add_input("b", n)
    net.set_output("p", final_adder(net, [[a[i], b[i]] for i in range(n)], kind))
    grid = np.arange(1 << n, dtype=np.uint64)
    va, vb = np.repeat(grid, 1 << n), np.tile(grid, 1 << n)
    got = net.simulate({"a": va, "b": vb})["p"]
    assert np.array_equal(got, (va + vb) & np.uint64((1 << n) - 1))


def test_prefix_adders_are_faster_than_ripple_at_16_bits():
    delays = {}
    for kind in ADDERS:
        net = Netlist(unit_library())
        a, b = net.add_input("a", 16), net.add_input("b", 16)
        net.set_output("p", final_adder(net, [[a[i], b[i]] for i in range(16)], kind))
        delays[kind] = net.delay()
    assert delays["kogge_stone"] <= delays["sklansky"] < delays["ripple"]
    assert delays["brent_kung"] < delays["ripple"]


def test_tree_heights_and_known_dadda_counts():
    h8 = initial_heights(DesignSpec(8))
    assert h8 == [1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    d = dadda_tree(h8)
    # Dadda's 8x8 reduction: 4 stages, 35 full adders and 7 half adders (Dadda 1965; Townsend 2003)
    assert d.n_stages == 4 and d.counts() == (35, 7)
    for tree in (d, wallace_tree(h8)):
        assert max(tree.heights[-1]) <= 2
        # bit conservation: every FA removes one bit (3 -> 2), every HA none, bits leaving the top are dropped
        assert sum(tree.heights[0]) - sum(tree.counts()[0:1]) >= sum(tree.heights[-1])
    assert (
        wallace_tree(initial_heights(DesignSpec(16))).n_stages == 6
    )  # ceil-2/3 sequence 16->11->8->6->4->3->2


def _wirings(problem, rng):
    from workers.methods.arith_baselines.wiring import default_wiring, greedy_wiring, random_wiring

    return {
        "default": default_wiring(problem),
        "random": random_wiring(problem, rng),
        "greedy": greedy_wiring(problem),
    }


@pytest.mark.parametrize("mac", [False, True])
def test_every_4bit_design_is_exhaustively_correct(mac):
    rng = np.random.default_rng(0)
    for tree, adder in itertools.product(("wallace", "dadda"), ADDERS):
        spec = DesignSpec(4, mac, tree, adder)
        problem = WiringProblem(spec)
        vectors, expected, exhaustive = make_vectors(spec, 0, rng)
        assert exhaustive and len(expected) == 256
        for name, wiring in _wirings(problem, rng).items():
            net = build(spec, wiring)
            assert count_errors(net, vectors, expected) == 0, (spec.label, name)
            assert net.delay() == pytest.approx(problem.delay(wiring))


def test_8bit_designs_exhaustively_correct_including_an_optimised_one():
    from workers.methods.arith_das.das import ArithDAS

    rng = np.random.default_rng(1)
    spec = DesignSpec(8, False, "dadda", "ripple")
    problem = WiringProblem(spec)
    das = ArithDAS(steps=6, eval_every=2, init="random", init_scale=1.0, seed=3)
    designs = dict(_wirings(problem, rng), das=das.optimise(problem))
    vectors, expected, exhaustive = make_vectors(spec, 0, rng)
    assert exhaustive and len(expected) == 65536
    for name, wiring in designs.items():
        assert count_errors(build(spec, wiring), vectors, expected) == 0, name
    # the check can fail: swap two gates' inputs and the multiplier breaks
    net = build(spec, designs["das"])
    g = next(g for g in net.gates if g.cell == "FA")
    g.ins = (g.ins[0], g.ins[0], g.ins[2])
    assert count_errors(net, vectors, expected) > 0


def test_wide_designs_on_random_vectors():
    rng = np.random.default_rng(2)
    for spec in (
        DesignSpec(16, True, "wallace", "kogge_stone"),
        DesignSpec(32, False, "dadda", "brent_kung"),
    ):
        problem = WiringProblem(spec)
        from workers.methods.arith_baselines.wiring import greedy_wiring

        vectors, expected, exhaustive = make_vectors(spec, 300, rng)
        assert not exhaustive
        assert count_errors(build(spec, greedy_wiring(problem)), vectors, expected) == 0


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="bits"):
        DesignSpec(1)
    with pytest.raises(ValueError, match="adder"):
        DesignSpec(8, adder="carry_select")
    problem = WiringProblem(DesignSpec(4))
    wiring = problem.identity()
    wiring[1][3] = np.zeros_like(wiring[1][3])
    with pytest.raises(ValueError, match=r"wiring\[1\]\[3\]"):
        problem.delay(wiring)


def test_pareto_front_and_hypervolume_against_brute_force():
    pts = np.array([[1, 5], [2, 3], [3, 4], [4, 1], [2, 3], [5, 5]], dtype=float)
    front = pareto_front(pts)
    assert [tuple(pts[i]) for i in front] == [(1, 5), (2, 3), (4, 1)]
    ref = (6.0, 6.0)
    # brute force: fraction of a fine grid of the reference box that some point dominates
    xs = np.linspace(0, 6, 601)[:-1] + 0.005
    X, Y = np.meshgrid(xs, xs)
    dom = np.zeros_like(X, dtype=bool)
    for x, y in pts:
        dom |= (X >= x) & (Y >= y)
    assert hypervolume_2d(pts, ref) == pytest.approx(dom.mean() * 36, rel=1e-3)
    assert hypervolume_2d(pts, ref) == pytest.approx(5 * 1 + 4 * 2 + 2 * 2)
    assert hypervolume_2d(np.array([[7.0, 1.0]]), ref) == 0.0
