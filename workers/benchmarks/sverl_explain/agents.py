"""Tiny DQN and PPO agents (CPU, seconds) whose behaviour, values and outcomes are explained.

Both expose the explained quantities on batches of observations:
  probs(obs)  -> (N, A) the policy pi(a|s) (DQN: epsilon-greedy on Q; PPO: the actor)
  value(obs)  -> (N, 1) the prediction V(s) (DQN: sum_a pi(a|s) Q(s, a); PPO: the critic)
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import torch
from torch import nn


def mlp(d_in: int, d_out: int, hidden: int = 64) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(d_in, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, d_out),
    )


def _obs(x) -> torch.Tensor:
    return torch.as_tensor(np.asarray(x), dtype=torch.float32)


class Agent:
    n_actions: int

    def probs(self, obs: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def act(self, obs: np.ndarray, rng: np.random.Generator) -> tuple[int, float]:
        with torch.no_grad():
            p = self.probs(_obs(obs)[None])[0].numpy().astype(float)
        p = p / p.sum()
        a = int(rng.choice(len(p), p=p))
        return a, float(np.log(p[a]))


class DQNAgent(Agent):
    """Deep Q-network (Mnih et al. 2015): replay buffer, target network, epsilon-greedy."""

    def __init__(
        self,
        env: gym.Env,
        steps: int = 3000,
        gamma: float = 0.99,
        lr: float = 1e-3,
        epsilon: float = 0.1,
        batch: int = 64,
        target_every: int = 100,
        seed: int = 0,
    ) -> None:
        self.n_actions = env.action_space.n
        self.gamma, self.epsilon = gamma, epsilon
        d = int(np.prod(env.observation_space.shape))
        torch.manual_seed(seed)
        self.q = mlp(d, self.n_actions)
        self._train(env, steps, lr, batch, target_every, seed)

    def _train(self, env, steps, lr, batch, target_every, seed) -> None:
        rng = np.random.default_rng(seed)
        target = copy.deepcopy(self.q)
        opt = torch.optim.Adam(self.q.parameters(), lr=lr)
        buf: list[tuple] = []
        obs, _ = env.reset(seed=seed)
        for t in range(steps):
            eps = max(self.epsilon, 1.0 - t / (0.5 * steps))  # linear decay over the first half
            if rng.random() < eps:
                a = int(rng.integers(self.n_actions))
            else:
                with torch.no_grad():
                    a = int(self.q(_obs(obs)[None]).argmax())
            nobs, r, term, trunc, _ = env.step(a)
            buf.append((obs, a, r, nobs, float(term)))
            buf = buf[-20000:]
            obs = nobs
            if term or trunc:
                obs, _ = env.reset()
            if len(buf) >= batch:
                idx = rng.integers(len(buf), size=batch)
                o, a_, r_, no, done = (
                    np.array(x) for x in zip(*(buf[i] for i in idx), strict=False)
                )
                with torch.no_grad():
                    y = _obs(r_) + self.gamma * (1 - _obs(done)) * target(_obs(no)).max(1).values
                qa = self.q(_obs(o)).gather(1, torch.as_tensor(a_)[:, None])[:, 0]
                loss = nn.functional.smooth_l1_loss(qa, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            if t % target_every == 0:
                target.load_state_dict(self.q.state_dict())

    def probs(self, obs: torch.Tensor) -> torch.Tensor:
        q = self.q(obs)
        greedy = nn.functional.one_hot(q.argmax(-1), self.n_actions).float()
        return self.epsilon / self.n_actions + (1 - self.epsilon) * greedy

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return (self.probs(obs) * self.q(obs)).sum(-1, keepdim=True)


class PPOAgent(Agent):
    """Proximal policy optimisation (Schulman et al. 2017): clipped surrogate, GAE, separate critic."""

    def __init__(
        self,
        env: gym.Env,
        iterations: int = 30,
        rollout: int = 256,
        epochs: int = 4,
        gamma: float = 0.99,
        lam: float = 0.95,
        clip: float = 0.2,
        lr: float = 3e-3,
        entropy: float = 0.01,
        seed: int = 0,
    ) -> None:
        self.n_actions = env.action_space.n
        d = int(np.prod(env.observation_space.shape))
        torch.manual_seed(seed)
        self.actor, self.critic = mlp(d, self.n_actions), mlp(d, 1)
        opt = torch.optim.Adam(
            list(self.actor.parameters()) + list(self.critic.parameters()), lr=lr
        )
        rng = np.random.default_rng(seed)
        obs, _ = env.reset(seed=seed)
        for _ in range(iterations):
            obs_l, A, LP, R, D, TR = [], [], [], [], [], []
            for _ in range(rollout):
                a, lp = self.act(obs, rng)
                nobs, r, term, trunc, _ = env.step(a)
                (
                    obs_l.append(obs),
                    A.append(a),
                    LP.append(lp),
                    R.append(r),
                    D.append(float(term)),
                    TR.append(term or trunc),
                )
                obs = nobs
                if term or trunc:
                    obs, _ = env.reset()
            O_t = _obs(np.array(obs_l))
            with torch.no_grad():
                V = self.critic(O_t)[:, 0].numpy()
                v_last = float(self.critic(_obs(obs)[None])[0, 0])
            adv, gae = np.zeros(rollout), 0.0
            for t in reversed(range(rollout)):  # GAE(lambda); bootstrap through truncation only
                v_next = v_last if t == rollout - 1 else V[t + 1]
                cont = 0.0 if D[t] else 1.0
                if TR[t] and not D[t]:
                    v_next, cont_gae = V[t], 0.0
                else:
                    cont_gae = cont
                delta = R[t] + gamma * cont * v_next - V[t]
                gae = delta + gamma * lam * cont_gae * gae
                adv[t] = gae
            ret = _obs(adv + V)
            adv_t = _obs((adv - adv.mean()) / (adv.std() + 1e-8))
            A_t, LP_t = torch.as_tensor(A), _obs(LP)
            for _ in range(epochs):
                logp = torch.log_softmax(self.actor(O_t), -1)
                ratio = (logp.gather(1, A_t[:, None])[:, 0] - LP_t).exp()
                pg = -torch.min(ratio * adv_t, ratio.clamp(1 - clip, 1 + clip) * adv_t).mean()
                ent = -(logp.exp() * logp).sum(-1).mean()
                vloss = ((self.critic(O_t)[:, 0] - ret) ** 2).mean()
                loss = pg + 0.5 * vloss - entropy * ent
                opt.zero_grad()
                loss.backward()
                opt.step()

    def probs(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.actor(obs), -1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs)


def train_agent(kind: str, env: gym.Env, budget: int, seed: int) -> Agent:
    """`budget` = environment steps (DQN) or PPO steps (iterations x 256)."""
    if kind == "dqn":
        return DQNAgent(env, steps=budget, seed=seed)
    if kind == "ppo":
        return PPOAgent(env, iterations=max(1, budget // 256), seed=seed)
    raise ValueError(f"agent must be 'dqn' or 'ppo', not {kind!r}")


def rollout_states(
    env: gym.Env, policy, n: int, rng: np.random.Generator, seed: int = 0, transitions: bool = False
):
    """n on-policy steps: states, actions and log pi(a|s) of the acting policy (for off-policy
    weights), episode returns and, with transitions=True, (rewards, next states, terminated)
    as a fifth item (time-limit truncation is not termination: the MDP itself has no horizon)."""
    S, A, LP, R, S2, D = [], [], [], [], [], []
    obs, _ = env.reset(seed=seed)
    ep_ret, returns = 0.0, []
    for _ in range(n):
        a, lp = policy(obs, rng)
        S.append(obs), A.append(a), LP.append(lp)
        obs, r, term, trunc, _ = env.step(a)
        R.append(r), S2.append(obs), D.append(term)
        ep_ret += r
        if term or trunc:
            returns.append(ep_ret)
            ep_ret = 0.0
            obs, _ = env.reset()
    out = (np.array(S, dtype=np.float32), np.array(A), np.array(LP, dtype=np.float32), returns)
    if transitions:
        trans = (np.array(R, dtype=np.float32), np.array(S2, dtype=np.float32), np.array(D))
        return out + (trans,)
    return out
