"""Bandit policies on toy reward sequences: hand-computed scores, initialisation, rescaling."""

import math

import numpy as np
import pytest

from workers.benchmarks.cash.policy import argmax_random_tie, minmax_rescale
from workers.methods.bandit_baselines import (
    UCB1,
    QoMaxETC,
    QuantileUCB,
    RandomArm,
    RoundRobin,
    qomax,
)
from workers.methods.maxucb import MaxUCB


def test_minmax_rescale_matches_sklearn_and_bounds():
    from sklearn.preprocessing import MinMaxScaler

    values = np.array([0.3, 0.9, 0.5, 0.31, 0.77])
    ours = minmax_rescale(values, 0.01, 0.99)
    ref = MinMaxScaler(feature_range=(0.01, 0.99)).fit_transform(values.reshape(-1, 1))[:, 0]
    np.testing.assert_allclose(ours, ref)
    assert ours.min() == pytest.approx(0.01) and ours.max() == pytest.approx(0.99)
    # constant observations: sklearn maps everything to the lower end
    np.testing.assert_allclose(minmax_rescale(np.full(3, 0.7), 0.01, 0.99), 0.01)
    with pytest.raises(ValueError, match="low"):
        minmax_rescale(values, 0.5, 0.5)


def test_maxucb_pulls_every_arm_once_first_in_order():
    policy = MaxUCB(4)
    chosen = []
    for t in range(1, 5):
        arm = policy.select(t)
        chosen.append(arm)
        policy.update(arm, [0.9, 0.1, 0.5, 0.2][arm])
    assert chosen == [0, 1, 2, 3]


def test_maxucb_score_by_hand():
    # arm 0 saw 0.5 and 0.7, arm 1 saw 0.6; all observations span [0.5, 0.7]
    policy = MaxUCB(2, alpha=0.5)
    for arm, r in [(0, 0.5), (1, 0.6), (0, 0.7)]:
        policy.update(arm, r)
    t = 4
    scaled = {0.5: 0.01, 0.6: 0.5, 0.7: 0.99}  # 0.01 + 0.98 * (r - 0.5) / 0.2
    expected = np.array(
        [
            scaled[0.7] + (0.5 * math.log(t) / 2) ** 2,
            scaled[0.6] + (0.5 * math.log(t) / 1) ** 2,
        ]
    )
    np.testing.assert_allclose(policy.scores(t), expected)
    # 0.99 + 0.1201 = 1.110 vs 0.5 + 0.4805 = 0.980: arm 0 wins
    assert policy.select(t) == 0


def test_maxucb_bonus_makes_rarely_pulled_arm_win():
    # with a large alpha the bonus (alpha ln t / n_i)^2 dominates and the less-pulled arm is chosen
    policy = MaxUCB(2, alpha=3.0)
    for arm, r in [(0, 1.0), (1, 0.0), (0, 0.9), (0, 0.95)]:
        policy.update(arm, r)
    s = policy.scores(5)
    assert s[1] == pytest.approx(0.01 + (3.0 * math.log(5)) ** 2)
    assert policy.select(5) == 1


def test_maxucb_scores_are_scale_invariant():
    # min-max rescaling over all observations makes the policy invariant to affine reward changes
    rng = np.random.default_rng(0)
    rewards = rng.uniform(size=(3, 40))
    a, b = MaxUCB(3), MaxUCB(3)
    for t in range(1, 40):
        arm_a, arm_b = a.select(t), b.select(t)
        assert arm_a == arm_b
        n = a.counts[arm_a]
        a.update(arm_a, rewards[arm_a, n])
        b.update(arm_b, 100.0 * rewards[arm_b, n] - 7.0)


def test_maxucb_rejects_bad_arguments():
    with pytest.raises(ValueError, match="alpha"):
        MaxUCB(3, alpha=-1)
    with pytest.raises(ValueError, match="n_arms"):
        MaxUCB(0)
    policy = MaxUCB(2)
    with pytest.raises(ValueError, match="t=3"):
        policy.select(3)  # round is 1, not 3
    with pytest.raises(ValueError, match="arm"):
        policy.update(2, 0.5)
    with pytest.raises(ValueError, match="reward"):
        policy.update(0, float("nan"))


def test_ucb1_score_by_hand():
    policy = UCB1(2, rescale=True)
    for arm, r in [(0, 0.2), (1, 0.6), (0, 0.4)]:
        policy.update(arm, r)
    # rescaled to [0, 1] over [0.2, 0.6]: arm 0 -> {0, 0.5}, arm 1 -> {1}
    expected = np.array(
        [0.25 + math.sqrt(2 * math.log(4) / 2), 1.0 + math.sqrt(2 * math.log(4) / 1)]
    )
    np.testing.assert_allclose(policy.scores(4), expected)
    assert policy.select(4) == 1


def test_ucb1_prefers_high_mean_over_high_max():
    # arm 0: steady 0.8; arm 1: mostly 0.5 with one 0.9. UCB1 (means) exploits arm 0,
    # MaxUCB (maxima) exploits arm 1.
    seqs = {0: [0.8] * 200, 1: ([0.9] + [0.5] * 199)}
    for policy, favourite in ((UCB1(2), 0), (MaxUCB(2), 1)):
        counts = [0, 0]
        for t in range(1, 201):
            arm = policy.select(t)
            policy.update(arm, seqs[arm][counts[arm]])
            counts[arm] += 1
        assert counts[favourite] > 150, (type(policy).__name__, counts)


def test_qomax_matches_brute_force():
    samples = np.array([3.0, 1.0, 2.0, 9.0, 0.0, 4.0, 5.0, 5.0, 1.0, 7.0, 8.0, 6.0])
    # batches of 3: maxima 3, 9, 5, 8 -> median 6.5
    assert qomax(samples, batches=4, batch_size=3, q=0.5) == pytest.approx(6.5)
    assert qomax(samples, batches=4, batch_size=3, q=1.0) == pytest.approx(9.0)
    with pytest.raises(ValueError, match="samples"):
        qomax(samples[:5], batches=2, batch_size=3)


def test_qomax_etc_explores_then_commits():
    policy = QoMaxETC(3, batches=2, batch_size=2)
    means = [0.3, 0.8, 0.5]
    rng = np.random.default_rng(1)
    arms = []
    for t in range(1, 31):
        arm = policy.select(t)
        arms.append(arm)
        policy.update(arm, means[arm] + 0.01 * rng.standard_normal())
    assert sorted(arms[:12]) == [0] * 4 + [1] * 4 + [2] * 4  # b * n = 4 pulls each
    assert set(arms[12:]) == {1} and policy.committed == 1


def test_quantile_ucb_score_by_hand():
    policy = QuantileUCB(2, tau=0.5, alpha=0.25)
    for arm, r in [(0, 0.0), (1, 1.0), (0, 0.5), (0, 1.0)]:
        policy.update(arm, r)
    expected = np.array(
        [0.5 + math.sqrt(0.25 * math.log(5) / 3), 1.0 + math.sqrt(0.25 * math.log(5) / 1)]
    )
    np.testing.assert_allclose(policy.scores(5), expected)


def test_round_robin_and_random():
    rr = RoundRobin(3)
    picks = []
    for t in range(1, 8):
        picks.append(rr.select(t))
        rr.update(picks[-1], 0.0)
    assert picks == [0, 1, 2, 0, 1, 2, 0]
    a, b = RandomArm(5, rng=np.random.default_rng(3)), RandomArm(5, rng=np.random.default_rng(3))
    assert [a.select() for _ in range(20)] == [b.select() for _ in range(20)]
    counts = np.zeros(5)
    r = RandomArm(5, rng=np.random.default_rng(0))
    for _ in range(2000):
        arm = r.select()
        r.update(arm, 0.0)
        counts[arm] += 1
    assert counts.min() > 300  # roughly uniform (expected 400 each)


def test_argmax_tie_breaking():
    assert argmax_random_tie(np.array([1.0, 3.0, 3.0]), None) == 1
    picks = {
        argmax_random_tie(np.array([1.0, 3.0, 3.0]), np.random.default_rng(s)) for s in range(30)
    }
    assert picks == {1, 2}
