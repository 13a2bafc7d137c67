"""Behaviour over seeds: MaxUCB concentrates its pulls on the arm with the clearly higher maximum."""

import numpy as np

from workers.benchmarks.cash.arms import ArmSet
from workers.benchmarks.cash.regret import normalized_regret
from workers.methods.bandit_baselines import UCB1
from workers.methods.maxucb import MaxUCB


def play(policy, arms: ArmSet, T: int) -> np.ndarray:
    rewards = np.empty(T)
    for t in range(1, T + 1):
        arm = policy.select(t)
        rewards[t - 1] = arms.pull(arm)
        policy.update(arm, rewards[t - 1])
    return rewards


def instance(rng, T):
    # arm 2's support reaches 0.95; the others stop at 0.6-0.7. Bounded, light-tailed (Beta).
    lows, highs = [0.3, 0.4, 0.5, 0.2], [0.6, 0.7, 0.95, 0.65]
    seq = np.stack(
        [lo + (hi - lo) * rng.beta(3.0, 1.5, T) for lo, hi in zip(lows, highs, strict=True)]
    )
    return ArmSet(("a", "b", "best", "d"), seq)


def test_maxucb_concentrates_on_the_arm_with_higher_max():
    T, shares, finals = 200, [], []
    for seed in range(10):
        arms = instance(np.random.default_rng(seed), T)
        rewards = play(MaxUCB(4, rng=np.random.default_rng(100 + seed)), arms, T)
        shares.append(arms.counts[2] / T)
        finals.append(normalized_regret(rewards, arms.y_star, arms.y_min)[-1])
    assert np.mean(shares) > 0.8, shares
    assert min(shares) > 0.6, shares
    assert np.mean(finals) < 0.1


def test_maxucb_beats_ucb1_when_the_best_max_has_a_lower_mean():
    # "best" has a higher ceiling but a lower mean than "steady": the CASH situation MaxUCB targets
    T, share_max, share_ucb = 300, [], []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        seq = np.stack([0.70 + 0.16 * rng.beta(5, 2, T), 0.40 + 0.55 * rng.beta(3, 1.5, T)])
        for policy, out in ((MaxUCB(2), share_max), (UCB1(2), share_ucb)):
            arms = ArmSet(("steady", "best"), seq)
            play(policy, arms, T)
            out.append(arms.counts[1] / T)
    assert np.mean(share_max) > 0.7 > np.mean(share_ucb), (share_max, share_ucb)
