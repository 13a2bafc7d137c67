"""Logit distillation of a small "analog" student from a teacher causal LM (same tokenizer).

Loss per token (Hinton et al. 2015): alpha * T^2 * KL(softmax(z_t / T) || softmax(z_s / T))
+ (1 - alpha) * CE(z_s, next token). alpha = 1 is pure logit distillation, alpha = 0 ordinary
pre-training (the "trained from scratch" analog the distilled one is compared with).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from workers.models.lm.data import random_windows
from workers.models.lm.train import warmup_cosine


def distillation_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    targets: torch.Tensor,
    *,
    temperature: float = 1.0,
    alpha: float = 1.0,
) -> torch.Tensor:
    """Mean per-token distillation loss; logits are (..., vocab), targets (...)."""
    if student_logits.shape != teacher_logits.shape:
        raise ValueError(
            f"student and teacher logits differ in shape: {tuple(student_logits.shape)} vs "
            f"{tuple(teacher_logits.shape)} (the two models must share a tokenizer)"
        )
    if not 0.0 <= alpha <= 1.0 or temperature <= 0:
        raise ValueError(
            f"alpha must be in [0, 1] and temperature > 0 (got {alpha}, {temperature})"
        )
    v = student_logits.shape[-1]
    s = student_logits.reshape(-1, v).float()
    loss = torch.zeros((), device=s.device)
    if alpha > 0:
        t = teacher_logits.reshape(-1, v).float()
        kl = F.kl_div(
            F.log_softmax(s / temperature, -1),
            F.log_softmax(t / temperature, -1),
            log_target=True,
            reduction="batchmean",
        )
        loss = loss + alpha * temperature**2 * kl
    if alpha < 1:
        loss = loss + (1 - alpha) * F.cross_entropy(s, targets.reshape(-1))
    return loss


def distill(
    student,
    teacher,
    train_ids: torch.Tensor,
    *,
    steps: int,
    batch_size: int,
    seq_len: int,
    lr: float = 3e-3,
    temperature: float = 1.0,
    alpha: float = 1.0,
    warmup: int = 10,
    seed: int = 0,
    device: str | torch.device = "cpu",
    callback: Callable[[int, int, float], None] | None = None,
) -> list[float]:
    """Train `student` on random windows of `train_ids` against `teacher`'s logits; returns losses."""
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(student.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.1)
    teacher.eval()
    student.to(device).train()
    losses = []
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = lr * warmup_cosine(step, steps, warmup)
        batch = random_windows(train_ids, batch_size, seq_len, gen).to(device)
        with torch.no_grad():
            t_logits = (
                teacher(input_ids=batch[:, :-1], use_cache=False).logits if alpha > 0 else None
            )
        s_logits = student(input_ids=batch[:, :-1], use_cache=False).logits
        loss = distillation_loss(
            s_logits,
            t_logits if t_logits is not None else s_logits.detach(),
            batch[:, 1:],
            temperature=temperature,
            alpha=alpha,
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
        if callback is not None:
            callback(step + 1, steps, losses[-1])
    student.eval()
    return losses
