"""Regret definition, arm sets and synthetic instances."""

import numpy as np
import pytest

from workers.benchmarks.cash.arms import ArmSet, sequences_from_traces
from workers.benchmarks.cash.regret import normalized_regret, paper_normalized_loss
from workers.benchmarks.cash.synthetic import INSTANCES, synthetic_sequences


def test_regret_closed_form_bounds_and_monotone():
    rewards = np.array([0.2, 0.5, 0.4, 0.9, 0.1])
    regret = normalized_regret(rewards, y_star=1.0, y_min=0.0)
    np.testing.assert_allclose(regret, [0.8, 0.5, 0.5, 0.1, 0.1])
    rng = np.random.default_rng(0)
    for _ in range(20):
        r = rng.uniform(0.3, 0.7, size=50)
        reg = normalized_regret(r, y_star=r.max() + rng.uniform(0, 0.1), y_min=r.min())
        assert np.all((reg >= 0) & (reg <= 1))
        assert np.all(np.diff(reg) <= 0)


def test_regret_edge_cases():
    assert normalized_regret(np.array([0.5, 0.5]), 0.5, 0.5).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="y_min"):
        normalized_regret(np.array([0.5]), 0.4, 0.6)
    with pytest.raises(ValueError, match="rewards"):
        normalized_regret(np.array([0.9]), 0.8, 0.0)


def test_paper_normalized_loss_unit_is_median_of_first_pulls():
    loss = paper_normalized_loss(
        np.array([0.6, 0.8, 1.0]), y_star=1.0, first_pulls=np.array([0.6, 0.8, 0.9])
    )
    np.testing.assert_allclose(loss, [0.4 / 0.2, 0.2 / 0.2, 0.0])


def test_arm_set_pulls_sequences_in_order():
    arms = ArmSet(("a", "b"), np.array([[0.1, 0.2, 0.3], [0.9, 0.0, 0.5]]))
    assert [arms.pull(0), arms.pull(1), arms.pull(0), arms.pull(1)] == [0.1, 0.9, 0.2, 0.0]
    assert arms.y_star == 0.9 and arms.y_min == 0.0 and arms.best_arms().tolist() == [1]
    with pytest.raises(ValueError, match="shape"):
        ArmSet(("a",), np.zeros((2, 3)))


def test_sequences_from_traces_are_permutations_then_refills():
    rng = np.random.default_rng(0)
    trace = np.arange(5.0)
    seq = sequences_from_traces([trace, trace[:2]], horizon=12, rng=rng)
    assert seq.shape == (2, 12)
    assert sorted(seq[0, :5]) == list(trace) and sorted(seq[0, 5:10]) == list(trace)
    assert sorted(seq[1, :2]) == [0.0, 1.0]
    again = sequences_from_traces([trace, trace[:2]], horizon=12, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(seq, again)


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_synthetic_instances_are_bounded(name):
    names, seq = synthetic_sequences(name, 2000, np.random.default_rng(0))
    assert seq.shape == (len(names), 2000)
    for dist, row in zip(INSTANCES[name].values(), seq, strict=True):
        assert row.max() <= dist.upper + 1e-12 and row.min() >= 0.0


def test_skewed_max_best_arm_has_lower_mean_but_higher_max():
    names, seq = synthetic_sequences("skewed_max", 20000, np.random.default_rng(0))
    i_steady, i_high = names.index("steady"), names.index("high_ceiling")
    assert seq[i_high].mean() < seq[i_steady].mean()
    assert np.quantile(seq[i_high], 0.99) > seq[i_steady].max()


def test_unknown_instance():
    with pytest.raises(ValueError, match="instance"):
        synthetic_sequences("nope", 10, np.random.default_rng(0))
