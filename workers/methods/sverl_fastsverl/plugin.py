"""Platform glue for FastSVERL (on-policy and off-policy)."""

from __future__ import annotations

from typing import Literal

import torch
from pydantic import Field

from workers.benchmarks.sverl_explain.benchmark import SverlMethod
from workers.benchmarks.sverl_explain.task import Explainer, ExplanationTask
from workers.core import PluginConfig, RunContext, register_method
from workers.methods.sverl_fastsverl.fastsverl import (
    CharacteristicModel,
    CharFn,
    FastSVERL,
    importance_weights,
    train_characteristic,
)
from workers.methods.sverl_fastsverl.outcome import (
    OutcomeCharacteristicModel,
    train_outcome_characteristic,
)


class FastSVERLConfig(PluginConfig):
    char_updates: int = Field(800, ge=1, le=1_000_000, description="Characteristic-model updates.")
    shapley_updates: int = Field(800, ge=1, le=1_000_000, description="Shapley-model updates.")
    hidden: int = Field(128, ge=8, le=2048, description="Hidden width of both networks.")
    batch: int = Field(128, ge=2, le=8192, description="Minibatch size.")
    lr: float = Field(1e-3, gt=0, le=1, description="Adam learning rate.")
    clip: float = Field(
        10.0, gt=0, le=1000, description="Importance-weight clip (off-policy only)."
    )
    eval_every: int = Field(
        100, ge=1, le=100_000, description="Log the error vs exact every k updates."
    )
    outcome_characteristic: Literal["learned", "exact"] = Field(
        "learned",
        description="Outcome explanations: learn the outcome characteristic (paper) or use the exact one.",
    )
    outcome_updates: int = Field(
        1500, ge=1, le=1_000_000, description="TD updates of the learned outcome characteristic."
    )
    tau: float = Field(
        0.05, gt=0, le=1, description="Polyak rate of the outcome critic's target network."
    )


def learn_characteristic(
    task: ExplanationTask, cfg, off_policy: bool, gen: torch.Generator, ctx: RunContext
) -> CharFn:
    """The characteristic the Shapley model explains: for outcome explanations the exact one
    (if configured) or FastSVERL's learned outcome characteristic; else the learned
    behaviour/prediction characteristic."""
    if task.explanation == "outcome":
        if getattr(cfg, "outcome_characteristic", "learned") == "exact":
            return task.characteristic
        return learn_outcome_characteristic(task, cfg, off_policy, gen, ctx)
    return _learn_conditional(task, task.f, cfg, off_policy, gen, ctx, "char_loss")


def _learn_conditional(
    task: ExplanationTask, f, cfg, off_policy: bool, gen: torch.Generator, ctx, metric: str
) -> CharFn:
    """Behaviour/prediction characteristic g(s, C) ~ E[f(s') | s'_C = s_C] from experience."""
    idx = task.off_idx if off_policy else task.buffer_idx
    states, targets = task.states_tensor(idx), torch.as_tensor(f[idx])
    weights = None
    if off_policy:
        tgt = torch.as_tensor(task.target_logp[idx, task.off_actions])
        weights = importance_weights(tgt, torch.as_tensor(task.off_logp), cfg.clip)
    model = CharacteristicModel(task.d, targets.shape[1], cfg.hidden)

    def cb(step: int, loss: float) -> None:
        if step % cfg.eval_every == 0:
            task.check_cancelled()
            ctx.log_metrics(step, **{metric: loss})

    train_characteristic(
        model,
        states,
        targets,
        cfg.char_updates,
        cfg.batch,
        cfg.lr,
        weights=_per_sample(weights, len(idx)),
        gen=gen,
        callback=cb,
    )
    model.eval()

    def char(s: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return model(s, m)

    return char


def learn_outcome_characteristic(
    task: ExplanationTask, cfg, off_policy: bool, gen: torch.Generator, ctx: RunContext
) -> CharFn:
    """FastSVERL outcome characteristic: a learned behaviour characteristic pi_C, then the
    (s_e, C)-conditioned critic trained by TD on the experience's transitions."""
    if task.policy is None or task.transitions is None:
        raise ValueError("outcome explanations need task.policy and task.transitions")
    pi = torch.as_tensor(task.target_logp).exp()
    policy_char = _learn_conditional(
        task, pi.numpy(), cfg, off_policy, gen, ctx, "policy_char_loss"
    )
    obs, actions, rewards, next_obs, dones = (
        task.off_transitions if off_policy else task.transitions
    )
    explained = task.states_tensor(task.buffer_idx)  # s_e ~ steady-state distribution
    model = OutcomeCharacteristicModel(task.d, pi.shape[1], cfg.hidden)

    def cb(step: int, loss: float) -> None:
        if step % cfg.eval_every == 0:
            task.check_cancelled()
            ctx.log_metrics(step, outcome_char_loss=loss)

    return train_outcome_characteristic(
        model,
        obs,
        actions,
        rewards,
        next_obs,
        dones,
        explained,
        task.policy,
        policy_char,
        task.gamma,
        cfg.outcome_updates,
        cfg.batch,
        cfg.lr,
        cfg.tau,
        gen=gen,
        callback=cb,
    )


def _per_sample(weights: torch.Tensor | None, n: int) -> torch.Tensor | None:
    return None if weights is None else weights.reshape(n)


@register_method
class FastSVERLMethod(SverlMethod):
    name = "sverl-fastsverl"
    title = "FastSVERL"
    description = "Learned characteristic + FastSHAP-style Shapley model (on-policy experience)."
    Config = FastSVERLConfig
    off_policy = False

    def explain(self, task: ExplanationTask, ctx: RunContext) -> Explainer:
        cfg = self.config
        gen = torch.Generator().manual_seed(ctx.seed)
        char = learn_characteristic(task, cfg, self.off_policy, gen, ctx)
        idx = task.off_idx if self.off_policy else task.buffer_idx
        weights = None
        if self.off_policy:
            tgt = torch.as_tensor(task.target_logp[idx, task.off_actions])
            weights = importance_weights(tgt, torch.as_tensor(task.off_logp), cfg.clip)  # type: ignore[attr-defined]
        est = FastSVERL(
            task.d,
            task.out_dim,
            cfg.hidden,
            cfg.shapley_updates,
            cfg.batch,
            cfg.lr,  # type: ignore[attr-defined]
            seed=ctx.seed,
        )

        def cb(step: int, loss: float) -> None:
            if step % cfg.eval_every == 0 or step == cfg.shapley_updates - 1:  # type: ignore[attr-defined]
                task.check_cancelled()
                ctx.log_metrics(step, shapley_loss=loss)
                task.report(step, est.shapley, "train")

        est.fit(task.states_tensor(idx), char, weights=weights, callback=cb)
        return est.shapley


@register_method
class FastSVERLOffPolicyMethod(FastSVERLMethod):
    name = "sverl-fastsverl-offpolicy"
    title = "FastSVERL (off-policy)"
    description = "FastSVERL trained on a behaviour policy's experience with clipped, self-normalised importance weights."
    off_policy = True
