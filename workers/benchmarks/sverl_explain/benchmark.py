"""Platform benchmark: Shapley explanations of a DQN/PPO agent against exact enumeration.

Protocol: train the agent (gridworld or Mastermind), collect on-policy experience (and
off-policy experience from mu = half agent, half uniform), compute the exact characteristic
on the visited states from the empirical steady-state distribution and the exact Shapley
values by enumerating all 2^d coalitions (timed), then hand the method an ExplanationTask via
`method.explain(task, ctx) -> explainer`. Score: mean-squared error of the explainer's Shapley
values against the exact ones over the visited states (weighted by visit frequency), the
efficiency gap, and wall-clock costs (exact vs the method's training + inference).
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
import torch
from pydantic import Field, model_validator

from workers.benchmarks.sverl_explain.agents import rollout_states, train_agent
from workers.benchmarks.sverl_explain.envs import GridWorld, make_env
from workers.benchmarks.sverl_explain.exact import (
    conditional_table,
    outcome_table,
    shapley_from_table,
)
from workers.benchmarks.sverl_explain.paper import FASTSVERL_PAPER
from workers.benchmarks.sverl_explain.task import Explainer, ExplanationTask
from workers.core import (
    Benchmark,
    DatasetSpec,
    Method,
    MetricSpec,
    PluginConfig,
    RunContext,
    register_benchmark,
)


class SverlMethod(Method):
    """Interface of the methods on this benchmark."""

    benchmarks = ("sverl-explain",)
    paper = FASTSVERL_PAPER

    def explain(self, task: ExplanationTask, ctx: RunContext) -> Explainer:
        raise NotImplementedError


class SverlConfig(PluginConfig):
    env: Literal["gridworld", "mastermind"] = Field("gridworld", description="Environment.")
    grid_n: int = Field(4, ge=2, le=10, description="Gridworld side length n.")
    grid_d: int = Field(
        2, ge=2, le=12, description="Gridworld dimension d (= number of state features)."
    )
    mm_code_size: int = Field(2, ge=1, le=4, description="Mastermind code length.")
    mm_guesses: int = Field(
        2, ge=1, le=3, description="Mastermind guesses (d = guesses x (code + 2))."
    )
    mm_pegs: int = Field(2, ge=2, le=4, description="Mastermind colours.")
    agent: Literal["dqn", "ppo"] = Field("ppo", description="How the explained agent is trained.")
    agent_budget: int = Field(2560, ge=256, le=1_000_000, description="Agent training steps.")
    explanation: Literal["behaviour", "prediction", "outcome"] = Field(
        "behaviour",
        description="Explain the policy, the value, or the outcome (return; gridworld only, scored against the exact outcome characteristic).",
    )
    buffer_steps: int = Field(
        2000, ge=200, le=1_000_000, description="Experience steps collected for explanation."
    )
    gamma: float = Field(0.99, gt=0, lt=1, description="Discount for outcome explanations.")

    @model_validator(mode="after")
    def _outcome_needs_gridworld(self):
        if self.explanation == "outcome" and self.env != "gridworld":
            raise ValueError(
                "explanation 'outcome' needs env 'gridworld' (its MDP is enumerated exactly)"
            )
        return self


@register_benchmark
class SverlBenchmark(Benchmark):
    name = "sverl-explain"
    title = "FastSVERL: Shapley explanations of RL agents vs exact enumeration"
    description = __doc__ or ""
    paper = FASTSVERL_PAPER
    Config = SverlConfig
    datasets = (
        DatasetSpec(
            "sverl-experience",
            "generator",
            "Experience of agents trained in the run (gridworld, Mastermind).",
        ),
    )
    metrics = (
        MetricSpec(
            "shapley_mse",
            "min",
            primary=True,
            description="MSE of Shapley values vs exact enumeration (visit-weighted).",
        ),
        MetricSpec(
            "shapley_rel_err", "min", description="shapley_mse / mean squared exact Shapley value."
        ),
        MetricSpec(
            "efficiency_gap",
            "min",
            description="Mean |sum_i phi_i - (v(F) - v(empty))| with the exact characteristic.",
        ),
        MetricSpec("method_seconds", "min", "s", description="Method's training + inference time."),
        MetricSpec(
            "exact_seconds",
            "min",
            "s",
            description="Time of exact characteristic + Shapley enumeration.",
        ),
        MetricSpec("speedup", "max", "x", description="exact_seconds / method_seconds."),
        MetricSpec(
            "inference_ms_per_state",
            "min",
            "ms",
            description="Explaining one more state after training.",
        ),
        MetricSpec(
            "agent_return", "max", description="Mean episode return of the explained agent."
        ),
    )

    def run(self, ctx: RunContext, method: Method) -> None:
        if not isinstance(method, SverlMethod):
            raise TypeError(f"method {method.name!r} does not implement SverlMethod.explain")
        cfg: SverlConfig = self.config  # type: ignore[assignment]
        torch.manual_seed(ctx.seed)
        rng = np.random.default_rng(ctx.seed)
        if cfg.env == "gridworld":
            env = make_env("gridworld", n=cfg.grid_n, d=cfg.grid_d)
        else:
            env = make_env(
                "mastermind",
                code_size=cfg.mm_code_size,
                num_guesses=cfg.mm_guesses,
                num_pegs=cfg.mm_pegs,
            )
        ctx.progress(0, 5, "training agent")
        agent = train_agent(cfg.agent, env, cfg.agent_budget, ctx.seed)
        env_seed = int(rng.integers(2**31))  # distinct from the agent's RNG streams
        S, A_on, _, returns, T_on = rollout_states(
            env, agent.act, cfg.buffer_steps, rng, seed=env_seed, transitions=True
        )
        A = env.action_space.n

        def mu(obs, r):  # behaviour policy for the off-policy variant: half agent, half uniform
            with torch.no_grad():
                p = (
                    agent.probs(torch.as_tensor(obs, dtype=torch.float32)[None])[0]
                    .numpy()
                    .astype(float)
                )
            p = 0.5 * p / p.sum() + 0.5 / A
            a = int(r.choice(A, p=p))
            return a, float(np.log(p[a]))

        S_off, A_off, LP_off, _, T_off = rollout_states(
            env, mu, cfg.buffer_steps, rng, seed=env_seed + 1, transitions=True
        )
        states, inv = np.unique(np.concatenate([S, S_off]), axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        on_idx, off_idx = inv[: len(S)], inv[len(S) :]
        X = torch.as_tensor(states, dtype=torch.float32)
        with torch.no_grad():
            probs = agent.probs(X).numpy().astype(float)
            values = agent.value(X).numpy().astype(float)
        weights = np.bincount(on_idx, minlength=len(states)).astype(float)
        ctx.log(
            f"{len(states)} unique states, d={states.shape[1]}, agent return {np.mean(returns):.2f}"
        )
        ctx.progress(1, 5, "exact enumeration")

        t0 = time.perf_counter()
        if cfg.explanation == "outcome":
            table, f = self._outcome(env, agent, states, weights, probs, cfg.gamma)
        else:
            f = probs if cfg.explanation == "behaviour" else values
            table = conditional_table(states, np.maximum(weights, 1e-12), f)
        exact_phi = shapley_from_table(table)
        exact_seconds = time.perf_counter() - t0

        w_eval = weights / weights.sum()
        visited = weights > 0

        def mse(phi: np.ndarray) -> float:
            return float(
                (w_eval[visited] * ((phi[visited] - exact_phi[visited]) ** 2).mean((1, 2))).sum()
            )

        def report(step: int, fn: Explainer, phase: str) -> None:
            with torch.no_grad():
                ctx.log_metrics(step, **{f"{phase}_shapley_mse": mse(fn(X).numpy())})

        task = ExplanationTask(
            d=states.shape[1],
            out_dim=f.shape[1],
            explanation=cfg.explanation,
            states=states.astype(np.float32),
            buffer_idx=on_idx,
            f=f.astype(np.float32),
            off_idx=off_idx,
            off_actions=A_off,
            off_logp=LP_off,
            target_logp=np.log(np.maximum(probs, 1e-12)).astype(np.float32),
            exact_table=table if cfg.explanation == "outcome" else None,
            policy=_frozen(agent.probs),
            transitions=_transitions(S, A_on, T_on),
            off_transitions=_transitions(S_off, A_off, T_off),
            gamma=cfg.gamma,
            report=report,
            check_cancelled=ctx.check_cancelled,
        )
        ctx.progress(2, 5, "method")
        t0 = time.perf_counter()
        explainer = method.explain(task, ctx)
        with torch.no_grad():
            phi = explainer(X).numpy()
        method_seconds = time.perf_counter() - t0
        ctx.progress(4, 5, "scoring")
        t0 = time.perf_counter()
        with torch.no_grad():
            explainer(X)
        inference_ms = 1000 * (time.perf_counter() - t0) / len(states)

        err = mse(phi)
        gap = np.abs(phi.sum(1) - (table[-1] - table[0]))[visited].mean()
        scale = float((w_eval[visited] * (exact_phi[visited] ** 2).mean((1, 2))).sum())
        ctx.log_summary(
            shapley_mse=err,
            shapley_rel_err=err / max(scale, 1e-12),
            efficiency_gap=float(gap),
            method_seconds=method_seconds,
            exact_seconds=exact_seconds,
            speedup=exact_seconds / max(method_seconds, 1e-9),
            inference_ms_per_state=inference_ms,
            agent_return=float(np.mean(returns)) if returns else float("nan"),
        )
        ctx.save_artifact(
            "explanations.plotly.json", explanation_figure(states, phi, exact_phi, weights)
        )
        ctx.progress(5, 5, "done")

    @staticmethod
    def _outcome(env, agent, states, weights, probs, gamma):
        if not isinstance(env, GridWorld):
            raise ValueError("outcome explanations need the gridworld")
        trans = env.transitions()
        all_states = trans[0].astype(np.float32)
        with torch.no_grad():
            pi_all = agent.probs(torch.as_tensor(all_states)).numpy().astype(float)
        pos = {s.tobytes(): i for i, s in enumerate(all_states)}
        where = np.array([pos[s.astype(np.float32).tobytes()] for s in states])
        # behaviour characteristic pi_C(.|s), exact under the visited-state distribution
        pol_tab = conditional_table(states, np.maximum(weights, 1e-12), probs)
        full = np.repeat(pi_all[None], pol_tab.shape[0], 0)
        full[:, where] = pol_tab
        out = outcome_table(trans, pi_all, full, gamma)[:, where]
        return out, out[-1]


def _frozen(fn):
    def policy(states: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return fn(states).float()

    return policy


def _transitions(S, A, T) -> tuple:
    """(obs, actions, rewards, next_obs, terminated) as tensors."""
    R, S2, D = T
    return tuple(
        torch.as_tensor(x)
        for x in (S, np.asarray(A, dtype=np.int64), R, S2, np.asarray(D, dtype=np.float32))
    )


def explanation_figure(states: np.ndarray, phi: np.ndarray, exact: np.ndarray, weights: np.ndarray):
    """Approximate vs exact Shapley values (first output) for the most visited states."""
    import plotly.graph_objects as go

    top = np.argsort(-weights)[: min(6, len(states))]
    fig = go.Figure()
    feats = [f"x{i}" for i in range(states.shape[1])]
    for k, s in enumerate(top):
        label = "s=" + ",".join(str(int(v)) for v in states[s])
        fig.add_trace(
            go.Bar(
                x=feats,
                y=exact[s, :, 0],
                name=f"{label} exact",
                offsetgroup=2 * k,
                marker_color="lightgray",
            )
        )
        fig.add_trace(
            go.Bar(x=feats, y=phi[s, :, 0], name=f"{label} method", offsetgroup=2 * k + 1)
        )
    fig.update_layout(
        barmode="group",
        title="Shapley values (first output): method vs exact",
        xaxis_title="state feature",
        yaxis_title="phi",
    )
    return fig
