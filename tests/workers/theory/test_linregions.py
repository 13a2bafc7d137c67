"""Linear-region counters: hand-built disagreement examples, brute force and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workers.benchmarks.linregions.plugin import LinRegionsBenchmark
from workers.core import InMemoryRunContext
from workers.methods.linregions import plugin as methods
from workers.methods.linregions.counting import enumerate_regions, enumerate_regions_bruteforce
from workers.methods.linregions.examples import EXAMPLES, EXPECTED
from workers.methods.linregions.network import ReLUNetwork
from workers.methods.linregions.regions import DEFINITIONS, count_linear_regions
from workers.methods.linregions.sampling import grid_counts

# the plugin classes directly (the registry's discovery imports every team's plugins, which is slow)
METHODS = {
    cls.name: cls
    for cls in (methods.IncrementalCounter, methods.BruteForceCounter, methods.GridCounter)
}


def get_benchmark(name):
    assert name == LinRegionsBenchmark.name
    return LinRegionsBenchmark


def get_method(name):
    return METHODS[name]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_match_hand_derived_counts(name):
    counts = count_linear_regions(EXAMPLES[name](), box=3.0)
    for key, expected in zip(DEFINITIONS, EXPECTED[name], strict=True):
        if expected is not None:
            assert getattr(counts, key) == expected, key


def test_examples_separate_the_definitions():
    c = {name: count_linear_regions(build(), box=3.0) for name, build in EXAMPLES.items()}
    assert c["opposite_hyperplanes"].nonempty > c["opposite_hyperplanes"].full_dim
    assert c["cancelling_neurons"].full_dim > c["cancelling_neurons"].connected
    assert c["relu_of_min"].convex_maximal > c["relu_of_min"].connected
    assert c["relu_of_min"].nonempty > c["relu_of_min"].full_dim
    assert c["hat_function"].connected > c["hat_function"].distinct_affine


@pytest.mark.parametrize(
    "d,widths,seed", [(2, [3], 0), (2, [2, 2], 1), (3, [3, 2], 2), (1, [2, 2], 3)]
)
def test_incremental_equals_bruteforce(d, widths, seed):
    net = ReLUNetwork.random(d, widths, np.random.default_rng(seed))
    for kind in ("nonempty", "full"):
        inc = {c.pattern for c in enumerate_regions(net, kind, box=3.0)}
        bf = {c.pattern for c in enumerate_regions_bruteforce(net, kind, box=3.0)}
        assert inc == bf


def test_full_dim_cells_agree_with_dense_sampling():
    rng = np.random.default_rng(4)
    net = ReLUNetwork.random(2, [3, 3], rng)
    cells = enumerate_regions(net, "full", box=3.0)
    exact = {c.pattern for c in cells}
    # every exact cell is real: its witness has the cell's pattern and f = G x + g there
    for c in cells:
        assert tuple(net.patterns(c.witness)[0]) == c.pattern
        np.testing.assert_allclose(net.forward(c.witness)[0], c.G @ c.witness + c.g, atol=1e-9)
    # every sampled point lies in one of them (lower-dimensional regions have measure zero)
    pts = rng.uniform(-3, 3, size=(20000, 2))
    seen = {tuple(p) for p in net.patterns(pts)}
    assert seen <= exact
    assert len(seen) >= len(exact) - 2  # only slivers thinner than the sample spacing may be missed


def test_counts_match_grid_on_a_network_without_slivers():
    net = EXAMPLES["relu_of_min"]()
    exact = count_linear_regions(net, box=3.0)
    grid = grid_counts(net, box=3.0, resolution=101)
    assert grid == {
        "full_dim": exact.full_dim,
        "connected": exact.connected,
        "distinct_affine": exact.distinct_affine,
    }


@pytest.mark.parametrize("n_lines", [3, 4])
def test_one_layer_on_plane_matches_arrangement_formula(n_lines):
    # n generic lines cut R^2 into 1 + n + C(n, 2) cells (unbounded domain)
    net = ReLUNetwork.random(2, [n_lines], np.random.default_rng(10 + n_lines))
    assert len(enumerate_regions(net, "full", box=None)) == 1 + n_lines + math.comb(n_lines, 2)


def test_from_torch_matches_forward():
    import torch

    torch.manual_seed(0)
    seq = torch.nn.Sequential(
        torch.nn.Linear(2, 4),
        torch.nn.ReLU(),
        torch.nn.Linear(4, 3),
        torch.nn.ReLU(),
        torch.nn.Linear(3, 1),
    )
    net = ReLUNetwork.from_torch(seq)
    x = np.random.default_rng(0).normal(size=(5, 2))
    with torch.no_grad():
        ref = seq(torch.tensor(x, dtype=torch.float32)).numpy()
    np.testing.assert_allclose(net.forward(x), ref, atol=1e-5)


def test_bad_input_is_rejected():
    net = EXAMPLES["hat_function"]()
    with pytest.raises(ValueError, match="kind"):
        enumerate_regions(net, "maximal")
    with pytest.raises(ValueError, match="box"):
        enumerate_regions(net, "full", box=-1.0)
    with pytest.raises(ValueError, match="layer 1"):
        ReLUNetwork(
            [np.ones((2, 2)), np.ones((2, 3))],
            [np.zeros(2), np.zeros(2)],
            np.ones((1, 2)),
            np.zeros(1),
        )


def test_benchmark_end_to_end_and_grid_baseline():
    bench = get_benchmark("linregions-counting")(
        {"width_min": 2, "width_max": 2, "n_nets": 1, "plot_resolution": 30}
    )
    ctx = InMemoryRunContext(seed=0)
    bench.run(ctx, get_method("linregions-incremental")())
    assert ctx.summary["rel_error"] == 0.0 and ctx.summary["examples_correct"] == 1.0
    done, total, _ = ctx.progress_updates[-1]
    assert done == total
    assert {"runtime", "examples", "regions_random", "regions_relu_of_min"} <= set(ctx.artifacts)
    ctx2 = InMemoryRunContext(seed=0)
    get_benchmark("linregions-counting")(
        {"width_min": 2, "width_max": 2, "n_nets": 1, "input_dim": 1}
    ).run(ctx2, get_method("linregions-grid")({"resolution": 40}))
    assert ctx2.summary["rel_error"] >= 0.0 and "regions_random" not in ctx2.artifacts
