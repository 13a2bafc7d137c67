"""FastSVERL's learned outcome characteristic (Beechey & Simsek, NeurIPS 2025, outcome explanations).

The outcome characteristic of an explained state s_e is the expected return from s_e when the
agent acts with the behaviour characteristic pi_C(.|s_e) in s_e and with its policy pi elsewhere:

    pi_hat(a | s, s_e, C) = pi_C(a | s_e)  if s == s_e,   pi(a | s)  otherwise,
    v(C)(s_e)             = sum_a pi_C(a | s_e) Q(s_e, a | s_e, C),

with Q(., . | s_e, C) the action-value of pi_hat. As in the paper's official code, Q is one
network conditioned on (s_e, C) (a goal-conditioned DQN-style critic; input [s, s_e, C], one
output per action) trained off-policy from the agent's transitions (s, a, r, s', done) with
explained states s_e and coalitions C (uniform) drawn per sample and a Polyak target network:

    target = r + gamma (1 - done) sum_a' pi_hat(a' | s', s_e, C) Q_target(s', a' | s_e, C)

(the expected next-action value; the paper's code samples a' ~ pi_hat, same fixed point, lower
variance here). Because the per-sample data never needs the explained quantity, any behaviour
policy's experience works; no importance weights are needed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
from torch import nn

from workers.methods.sverl_fastsverl.fastsverl import CharFn, ShapleySampler, mlp

PolicyFn = Callable[[torch.Tensor], torch.Tensor]  # states (N, d) -> pi(.|s) (N, A)


class OutcomeCharacteristicModel(nn.Module):
    """Q(s, a | s_e, C): action-values of the conditioned policy pi_hat."""

    def __init__(self, d: int, n_actions: int, hidden: int = 128) -> None:
        super().__init__()
        if d < 1 or n_actions < 1:
            raise ValueError(f"d and n_actions must be >= 1, got d={d}, n_actions={n_actions}")
        self.d, self.n_actions = d, n_actions
        self.net = mlp(3 * d, n_actions, hidden)

    def forward(
        self, states: torch.Tensor, e_states: torch.Tensor, masks: torch.Tensor
    ) -> torch.Tensor:
        return self.net(torch.cat([states, e_states, masks.float()], -1))


def conditioned_policy(
    states: torch.Tensor,
    e_states: torch.Tensor,
    masks: torch.Tensor,
    policy: PolicyFn,
    policy_char: CharFn,
) -> torch.Tensor:
    """pi_hat(.|s, s_e, C): the behaviour characteristic in s_e, the agent's policy elsewhere."""
    same = (states == e_states).all(-1, keepdim=True)
    return torch.where(same, policy_char(e_states, masks), policy(states))


class LearnedOutcomeCharacteristic:
    """Callable v(C)(s_e) = sum_a pi_C(a|s_e) Q(s_e, a | s_e, C) from a trained critic."""

    def __init__(
        self, model: OutcomeCharacteristicModel, policy: PolicyFn, policy_char: CharFn
    ) -> None:
        self.model, self.policy, self.policy_char = model, policy, policy_char

    @torch.no_grad()
    def __call__(self, e_states: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        pi_c = self.policy_char(e_states, masks)
        q = self.model(e_states, e_states, masks)
        return (pi_c * q).sum(-1, keepdim=True)


def train_outcome_characteristic(
    model: OutcomeCharacteristicModel,
    obs: torch.Tensor,
    actions: torch.Tensor,
    rewards: torch.Tensor,
    next_obs: torch.Tensor,
    dones: torch.Tensor,
    explained: torch.Tensor,
    policy: PolicyFn,
    policy_char: CharFn,
    gamma: float,
    updates: int,
    batch: int = 128,
    lr: float = 1e-3,
    tau: float = 0.05,
    p_self: float = 0.5,
    gen: torch.Generator | None = None,
    callback: Callable[[int, float], None] | None = None,
) -> LearnedOutcomeCharacteristic:
    """Fit Q(., . | s_e, C) by expected-SARSA TD on transitions; returns the characteristic.

    explained: pool of explained states s_e (e.g. the on-policy buffer, so s_e follows the
    steady-state distribution). With probability p_self the sample's own state is used as s_e:
    the TD fixed point does not depend on how (s, s_e) pairs are drawn, but v(C)(s_e) is read
    at s = s_e, which uniform pairing would reach only once per |states| samples.
    """
    n = len(obs)
    for name, t in (
        ("actions", actions),
        ("rewards", rewards),
        ("next_obs", next_obs),
        ("dones", dones),
    ):
        if len(t) != n:
            raise ValueError(f"{name} has {len(t)} rows, obs has {n}")
    if n == 0 or len(explained) == 0:
        raise ValueError("need at least one transition and one explained state")
    if not 0 < gamma < 1 or not 0 < tau <= 1 or not 0 <= p_self <= 1:
        raise ValueError(f"need 0<gamma<1, 0<tau<=1, 0<=p_self<=1; got {gamma}, {tau}, {p_self}")
    gen = gen or torch.Generator().manual_seed(0)
    sampler = ShapleySampler(obs.shape[1], gen) if obs.shape[1] >= 2 else None
    target = copy.deepcopy(model)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    actions, dones = actions.long(), dones.float()
    for step in range(updates):
        idx = torch.randint(n, (batch,), generator=gen)
        s, s2 = obs[idx], next_obs[idx]
        e = explained[torch.randint(len(explained), (batch,), generator=gen)]
        own = torch.rand(batch, generator=gen) < p_self
        e = torch.where(own[:, None], s, e)
        C = sampler.uniform(batch) if sampler else torch.rand(batch, 1, generator=gen) < 0.5
        with torch.no_grad():
            pi2 = conditioned_policy(s2, e, C, policy, policy_char)
            v2 = (pi2 * target(s2, e, C)).sum(-1)
            y = rewards[idx] + gamma * (1 - dones[idx]) * v2
        q = model(s, e, C).gather(1, actions[idx, None]).squeeze(1)
        loss = (q - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():  # Polyak target update (the paper's tau)
            for p_t, p in zip(target.parameters(), model.parameters(), strict=True):
                p_t.lerp_(p, tau)
        if callback:
            callback(step, float(loss.detach()))
    model.eval()
    return LearnedOutcomeCharacteristic(model, policy, policy_char)
