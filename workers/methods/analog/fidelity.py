"""Analog fidelity: how closely a small model reproduces a large one (Upadhyay et al.'s proposal).

* next-token agreement: fraction of held-out positions where the argmax tokens coincide;
* KL(teacher || student): mean per-token KL divergence of the next-token distributions;
* task-profile rank correlation: Spearman correlation of per-task accuracies over a suite;
* interpretability transfer: Spearman correlation, across concepts, of linear-probe accuracies
  trained separately on each model's hidden states (see probes.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F

from workers.models.lm.data import sequential_windows


@torch.no_grad()
def next_token_fidelity(
    teacher,
    student,
    stream: torch.Tensor,
    *,
    seq_len: int = 128,
    max_windows: int = 16,
    batch_size: int = 8,
    device: str | torch.device = "cpu",
) -> dict[str, float]:
    """Top-1 agreement and mean KL(teacher || student) over held-out windows."""
    windows = sequential_windows(stream, seq_len, max_windows)
    agree, kl, n = 0.0, 0.0, 0
    for i in range(0, windows.shape[0], batch_size):
        x = windows[i : i + batch_size, :-1].to(device)
        t = teacher(input_ids=x, use_cache=False).logits.float()
        s = student(input_ids=x, use_cache=False).logits.float()
        if t.shape != s.shape:
            raise ValueError("teacher and student must share a tokenizer (logit shapes differ)")
        agree += float((t.argmax(-1) == s.argmax(-1)).sum())
        lt, ls = F.log_softmax(t, -1), F.log_softmax(s, -1)
        kl += float((lt.exp() * (lt - ls)).sum())
        n += x.numel()
    return {"agreement": agree / n, "kl": kl / n}


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman rank correlation (NaN when fewer than 3 points or a constant side)."""
    from scipy.stats import spearmanr

    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return math.nan
    return float(spearmanr(a, b).statistic)
