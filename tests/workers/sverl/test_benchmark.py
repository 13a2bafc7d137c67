import json

import numpy as np
import pytest
import torch

from workers.benchmarks.sverl_explain.agents import DQNAgent, PPOAgent
from workers.benchmarks.sverl_explain.envs import GridWorld, Mastermind
from workers.benchmarks.sverl_explain.exact import outcome_table
from workers.core import ConfigError, InMemoryRunContext, get_benchmark, get_method


def test_mastermind_clues_and_episode():
    assert Mastermind.clues(np.array([1, 2]), np.array([2, 1])) == (0, 2)
    assert Mastermind.clues(np.array([1, 1]), np.array([1, 2])) == (1, 0)
    env = Mastermind(2, 2, 2)
    obs, _ = env.reset(seed=3)
    assert obs.shape == (8,) and (obs == -1).all()
    goal = env.goal.copy()
    a = int(np.flatnonzero((env.codes == goal).all(1))[0])
    obs, r, term, trunc, _ = env.step(a)
    assert term and r == 1.0 and obs[3] == 2  # exact = 2 in the first row


def test_gridworld_outcome_grand_coalition_is_policy_value():
    env = GridWorld(3, 2)
    trans = env.transitions()
    S, A = trans[2].shape
    pi = np.random.default_rng(0).dirichlet(np.ones(A), size=S)
    out = outcome_table(trans, pi, np.repeat(pi[None], 4, 0), 0.9)
    # acting with pi itself everywhere: every coalition's outcome is V^pi
    P = np.zeros((S, S))
    for s in range(S):
        for a in range(A):
            if trans[1][s, a] >= 0:
                P[s, trans[1][s, a]] += pi[s, a]
    V = np.linalg.solve(np.eye(S) - 0.9 * P, (pi * trans[2]).sum(1))
    assert np.allclose(out[:, :, 0], V[None], atol=1e-8)
    # an always-"right" action at the state next to the goal earns the goal reward at once
    s = int(np.flatnonzero((trans[0] == [2, 1]).all(1))[0])
    tab = np.repeat(pi[None], 4, 0)
    tab[3, s] = np.eye(A)[2]  # +1 along axis 1
    assert outcome_table(trans, pi, tab, 0.9)[3, s, 0] == pytest.approx(6.0)


def test_agents_expose_probabilities_and_values():
    env = GridWorld(3, 2)
    for agent in (DQNAgent(env, steps=80, seed=0), PPOAgent(env, iterations=1, rollout=64, seed=0)):
        x = torch.as_tensor(env.states, dtype=torch.float32)
        p = agent.probs(x)
        assert p.shape == (len(env.states), 4) and torch.allclose(
            p.sum(1), torch.ones(len(env.states))
        )
        assert agent.value(x).shape == (len(env.states), 1)


SMALL = {"agent_budget": 512, "buffer_steps": 300}
FAST = {"char_updates": 60, "shapley_updates": 60, "eval_every": 20, "hidden": 32}


@pytest.mark.parametrize(
    "method,bench",
    [
        ("sverl-fastsverl", {}),
        ("sverl-fastsverl-offpolicy", {"agent": "dqn"}),
        ("sverl-sampling", {"env": "mastermind", "mm_guesses": 1, "explanation": "prediction"}),
        ("sverl-enumeration", {"explanation": "prediction"}),
        ("sverl-fastsverl", {"explanation": "outcome", "grid_n": 3}),
        ("sverl-fastsverl", {"explanation": "outcome", "grid_n": 3, "learned": True}),
    ],
)
def test_benchmark_end_to_end(method, bench):
    cfg = dict(FAST, permutations=2) if method == "sverl-sampling" else dict(FAST)
    learned = bench.pop("learned", False)
    if bench.get("explanation") == "outcome":
        cfg.update(outcome_characteristic="learned" if learned else "exact", outcome_updates=60)
    ctx = InMemoryRunContext(seed=0)
    get_benchmark("sverl-explain")({**SMALL, **bench}).run(ctx, get_method(method)(cfg))
    s = ctx.summary
    assert np.isfinite(s["shapley_mse"]) and s["shapley_mse"] >= 0
    assert (
        s["efficiency_gap"] < 1e-3  # exact characteristic: efficiency against the ground truth
        if bench.get("explanation") == "outcome" and not learned
        else np.isfinite(s["efficiency_gap"])
    )
    if learned:
        assert ctx.series("outcome_char_loss") and ctx.series("policy_char_loss")
    assert ctx.progress_updates[-1][:2] == (5, 5)
    assert json.loads(ctx.artifacts["explanations.plotly.json"][0])["data"]
    if method.startswith("sverl-fastsverl"):
        curve = ctx.series("train_shapley_mse")
        assert curve and curve[-1][0] == FAST["shapley_updates"] - 1


def test_more_updates_reduce_error():
    errs = []
    for n in (5, 400):
        ctx = InMemoryRunContext(seed=0)
        get_benchmark("sverl-explain")({**SMALL, "explanation": "outcome", "grid_n": 3}).run(
            ctx,
            get_method("sverl-fastsverl")(
                dict(FAST, shapley_updates=n, outcome_characteristic="exact")
            ),
        )
        errs.append(ctx.summary["shapley_mse"])
    assert errs[1] < 0.5 * errs[0]


def test_config_validation():
    with pytest.raises(ConfigError, match="outcome"):
        get_benchmark("sverl-explain")({"env": "mastermind", "explanation": "outcome"})
    with pytest.raises(ConfigError, match="grid_d"):
        get_benchmark("sverl-explain")({"grid_d": 40})


def test_benchmark_honours_cancellation():
    from workers.core import RunCancelled

    ctx = InMemoryRunContext(seed=0, cancel_after=2)
    with pytest.raises(RunCancelled):
        get_benchmark("sverl-explain")(SMALL).run(ctx, get_method("sverl-fastsverl")(FAST))
