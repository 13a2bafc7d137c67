"""The pretraining loop for causal LMs: any optimizer, warmup + cosine schedule, progress callback."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from workers.models.lm.data import random_windows
from workers.models.lm.evaluate import stream_nll

# callback(step, total_steps, metrics) is called after every logged step; it may raise to cancel.
Callback = Callable[[int, int, dict[str, float]], None]


@dataclass
class TrainResult:
    history: list[dict[str, float]] = field(default_factory=list)  # one row per logged step
    final_val_nll: float = math.nan
    tokens_seen: int = 0
    mean_step_s: float = math.nan
    diverged: bool = False  # loss became non-finite; training stopped there (LR sweeps hit this)


def warmup_cosine(step: int, total: int, warmup: int, min_ratio: float = 0.1) -> float:
    """LR multiplier: linear warmup, then cosine decay to `min_ratio` (as in the LLaMA recipes)."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def train_causal_lm(
    model,
    optimizer: torch.optim.Optimizer,
    train_ids: torch.Tensor,
    valid_ids: torch.Tensor,
    *,
    steps: int,
    batch_size: int,
    seq_len: int,
    warmup: int = 10,
    grad_clip: float = 1.0,
    eval_every: int = 50,
    eval_windows: int = 16,
    log_every: int = 5,
    seed: int = 0,
    device: str | torch.device = "cpu",
    callback: Callback | None = None,
) -> TrainResult:
    """Train `model` for `steps` steps on random windows of `train_ids`.

    Logs train loss (nats/token) every `log_every` steps and validation NLL every `eval_every`
    steps and at the end, each row keyed by `step` and `tokens`.
    """
    if steps < 1 or batch_size < 1 or seq_len < 2:
        raise ValueError(
            f"steps, batch_size, seq_len must be positive (got {steps}, {batch_size}, {seq_len})"
        )
    gen = torch.Generator().manual_seed(seed)
    base_lrs = [g["lr"] for g in optimizer.param_groups]
    result = TrainResult()
    step_times: list[float] = []
    model.to(device)
    for step in range(steps):
        model.train()
        scale = warmup_cosine(step, steps, warmup)
        for g, lr in zip(optimizer.param_groups, base_lrs, strict=False):
            g["lr"] = lr * scale
        batch = random_windows(train_ids, batch_size, seq_len, gen).to(device)
        t0 = time.perf_counter()
        logits = model(input_ids=batch[:, :-1], use_cache=False).logits
        loss = F.cross_entropy(
            logits.reshape(-1, logits.shape[-1]).float(), batch[:, 1:].reshape(-1)
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        step_times.append(time.perf_counter() - t0)
        result.tokens_seen += batch_size * seq_len
        last = step == steps - 1
        if step % log_every == 0 or last or (step + 1) % eval_every == 0:
            row = {
                "step": float(step + 1),
                "tokens": float(result.tokens_seen),
                "train_loss": float(loss.detach()),
                "lr_scale": scale,
            }
            if (step + 1) % eval_every == 0 or last:
                row["val_nll"] = stream_nll(
                    model, valid_ids, seq_len=seq_len, max_windows=eval_windows, device=device
                )["nll"]
                result.final_val_nll = row["val_nll"]
            result.history.append(row)
            if callback is not None:
                callback(step + 1, steps, row)
        if not math.isfinite(float(loss.detach())):
            result.diverged = True
            result.final_val_nll = math.nan
            break
    for g, lr in zip(optimizer.param_groups, base_lrs, strict=False):
        g["lr"] = lr
    # skip the first steps' timing: allocator warm-up is not the optimizer's cost
    timed = step_times[min(3, len(step_times) - 1) :]
    result.mean_step_s = sum(timed) / len(timed)
    return result


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Bytes held in the optimizer's state tensors (momenta etc.), after at least one step."""
    return sum(
        v.numel() * v.element_size()
        for s in optimizer.state.values()
        for v in s.values()
        if isinstance(v, torch.Tensor)
    )
