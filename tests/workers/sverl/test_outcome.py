"""FastSVERL's learned outcome characteristic against the exact one on a small gridworld."""

import numpy as np
import pytest
import torch

from workers.benchmarks.sverl_explain.agents import rollout_states
from workers.benchmarks.sverl_explain.envs import GridWorld
from workers.benchmarks.sverl_explain.exact import coalitions, conditional_table, outcome_table
from workers.methods.sverl_fastsverl.fastsverl import FastSVERL
from workers.methods.sverl_fastsverl.outcome import (
    OutcomeCharacteristicModel,
    conditioned_policy,
    train_outcome_characteristic,
)

GAMMA = 0.9


@pytest.fixture(scope="module")
def gridworld_outcome():
    env = GridWorld(3, 2)
    states, nxt, rew, start = env.transitions()
    rng = np.random.default_rng(0)
    # a state-dependent stochastic policy that mostly heads for the goal (actions +0, -0, +1, -1)
    pi = 0.6 * rng.dirichlet(np.ones(4), size=len(states)) + 0.4 * np.array([0.5, 0, 0.5, 0])
    index = {s.tobytes(): i for i, s in enumerate(states.astype(np.float32))}

    def act(obs, r):
        p = pi[index[obs.astype(np.float32).tobytes()]]
        a = int(r.choice(4, p=p))
        return a, float(np.log(p[a]))

    S, A, _, _, (R, S2, D) = rollout_states(env, act, 3000, rng, seed=1, transitions=True)
    weights = np.bincount([index[s.tobytes()] for s in S], minlength=len(states)).astype(float)
    # exact behaviour characteristic pi_C on the steady-state distribution, and exact outcome
    pol_tab = conditional_table(states.astype(np.float32), np.maximum(weights, 1e-12), pi)
    exact = outcome_table((states, nxt, rew, start), pi, pol_tab, GAMMA)[:, :, 0]
    X = torch.as_tensor(states, dtype=torch.float32)

    def rows(s: torch.Tensor) -> np.ndarray:  # the goal (terminal, never bootstrapped) -> -1
        return np.array([index.get(r.tobytes(), -1) for r in s.numpy().astype(np.float32)])

    pi_ext = np.vstack([pi, np.full(4, 0.25)])

    def policy(s):
        return torch.as_tensor(pi_ext[rows(s)], dtype=torch.float32)

    def policy_char(s, m):
        k = (m.long() << torch.arange(m.shape[1])).sum(1).numpy()
        return torch.as_tensor(pol_tab[k, rows(s)], dtype=torch.float32)

    tr = [torch.as_tensor(x) for x in (S, A.astype(np.int64), R, S2, D.astype(np.float32))]
    return X, exact, policy, policy_char, tr, weights


def test_conditioned_policy_switches_only_at_explained_state():
    s = torch.tensor([[0.0, 1.0], [2.0, 2.0]])
    e = torch.tensor([[0.0, 1.0], [0.0, 1.0]])
    out = conditioned_policy(
        s,
        e,
        torch.ones(2, 2, dtype=torch.bool),
        lambda x: torch.zeros(len(x), 3),
        lambda x, m: torch.ones(len(x), 3),
    )
    assert out.tolist() == [[1, 1, 1], [0, 0, 0]]


def test_learned_outcome_characteristic_approaches_exact(gridworld_outcome):
    X, exact, policy, policy_char, tr, weights = gridworld_outcome
    torch.manual_seed(0)
    model = OutcomeCharacteristicModel(2, 4, hidden=64)
    masks = torch.as_tensor(coalitions(2))

    def table(char):
        return np.stack([char(X, m.expand(len(X), 2)).numpy()[:, 0] for m in masks])

    explained = X[torch.as_tensor(np.repeat(np.arange(len(X)), weights.astype(int)))]
    from workers.methods.sverl_fastsverl.outcome import LearnedOutcomeCharacteristic

    before = table(LearnedOutcomeCharacteristic(model, policy, policy_char))
    char = train_outcome_characteristic(
        model,
        *tr,
        explained,
        policy,
        policy_char,
        GAMMA,
        updates=1000,
        batch=128,
        gen=torch.Generator().manual_seed(0),
    )
    after = table(char)
    scale = (exact**2).mean()
    rel_after = ((after - exact) ** 2).mean() / scale
    rel_before = ((before - exact) ** 2).mean() / scale
    assert rel_after < 0.05 and rel_after < 0.05 * rel_before
    # the coalitions' ordering is learned too: v(F) - v(empty) per state, correlated with exact
    gain, gain_exact = after[-1] - after[0], exact[-1] - exact[0]
    assert np.corrcoef(gain, gain_exact)[0, 1] > 0.8

    # Shapley model on the learned outcome characteristic: efficiency holds against it
    est = FastSVERL(2, 1, hidden=32, updates=200, batch=64, seed=0).fit(X, char)
    phi = est.shapley(X).numpy()[:, :, 0]
    assert np.allclose(phi.sum(1), after[-1] - after[0], atol=1e-4)


def test_outcome_training_rejects_bad_input(gridworld_outcome):
    X, _, policy, policy_char, tr, _ = gridworld_outcome
    with pytest.raises(ValueError, match="rewards"):
        train_outcome_characteristic(
            OutcomeCharacteristicModel(2, 4),
            tr[0],
            tr[1],
            tr[2][:5],
            tr[3],
            tr[4],
            X,
            policy,
            policy_char,
            GAMMA,
            updates=1,
        )
