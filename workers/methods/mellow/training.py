"""Shared training machinery: cached log-mels and tokens, the AdamW loop, option scoring batches."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from workers.benchmarks.mellow_aqa.audio import LogMel


class MelBank:
    """Log-mel of every clip, computed once per run (the encoder's first layer is the
    learned per-bin normalisation, so caching the fixed STFT part loses nothing)."""

    def __init__(self, clips: dict, logmel: LogMel, time_stride: int, device: torch.device) -> None:
        self.index = {cid: i for i, cid in enumerate(sorted(clips))}
        wav = torch.from_numpy(np.stack([clips[c].wav for c in sorted(clips)]))
        mels = []
        with torch.no_grad():
            for chunk in wav.split(256):
                mels.append(logmel(chunk))
        mel = torch.cat(mels)
        pad = (-mel.shape[-1]) % time_stride
        if pad:
            mel = torch.nn.functional.pad(mel, (0, pad), value=float(mel.min()))
        self.mel = mel.to(device)

    def get(self, clip_ids: list[str]) -> tuple[torch.Tensor, list[int]]:
        """Mels of the distinct clips among clip_ids and, per id, its row in that tensor: single-clip
        questions pass one clip twice and it is encoded once."""
        distinct = list(dict.fromkeys(clip_ids))
        rows = torch.tensor([self.index[c] for c in distinct], device=self.mel.device)
        where = {c: i for i, c in enumerate(distinct)}
        return self.mel[rows], [where[c] for c in clip_ids]


class TokenCache:
    def __init__(self, tokenizer) -> None:
        self.tokenizer, self._cache = tokenizer, {}

    def __call__(self, text: str) -> list[int]:
        if text not in self._cache:
            self._cache[text] = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return self._cache[text]


def lr_multiplier(step: int, total: int, warmup: int, min_ratio: float = 0.1) -> float:
    """Linear warmup then cosine decay to min_ratio."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def train_loop(
    model: torch.nn.Module,
    n_items: int,
    batch_loss: Callable[[np.ndarray], torch.Tensor],
    *,
    steps: int,
    batch_size: int,
    lr: float,
    weight_decay: float,
    warmup: int,
    rng: np.random.Generator,
    ctx=None,
    name: str = "train",
    grad_clip: float = 1.0,
    progress_span: tuple[float, float] = (0.0, 1.0),
) -> list[float]:
    """AdamW over shuffled epochs of item indices; logs `<name>_loss` and reports progress."""
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    opt = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=lr,
        betas=(0.9, 0.98),
    )
    order, pos, losses = rng.permutation(n_items), 0, []
    model.train()
    for step in range(steps):
        if pos + batch_size > n_items:
            order, pos = rng.permutation(n_items), 0
        idx = order[pos : pos + batch_size]
        pos += batch_size
        for group in opt.param_groups:
            group["lr"] = lr * lr_multiplier(step, steps, warmup)
        loss = batch_loss(idx)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, grad_clip)
        opt.step()
        losses.append(float(loss.detach()))
        if ctx is not None and (step % 10 == 0 or step == steps - 1):
            ctx.check_cancelled()
            ctx.log_metrics(step, **{f"{name}_loss": float(np.mean(losses[-10:]))})
            lo, hi = progress_span
            ctx.progress(
                lo + (hi - lo) * (step + 1) / steps, 1.0, f"{name} step {step + 1}/{steps}"
            )
    model.eval()
    return losses


def option_rows(
    items, tokens: TokenCache, eos_id: int, with_choices: bool = False
) -> list[tuple[int, list[int], list[int]]]:
    """(item index, prompt ids, option ids + eos) for every option of every item."""
    rows = []
    for i, item in enumerate(items):
        prompt = tokens(item.prompt(with_choices))
        for option in item.options:
            rows.append((i, prompt, tokens(" " + option) + [eos_id]))
    return rows


def gather_scores(items, rows, values: list[float]) -> list[np.ndarray]:
    out = [np.zeros(len(item.options)) for item in items]
    counters = [0] * len(items)
    for (i, _, _), v in zip(rows, values, strict=True):
        out[i][counters[i]] = v
        counters[i] += 1
    return out


def target_logits(lm, hidden: torch.Tensor, labels: torch.Tensor):
    """LM-head logits only where the next token is a target (labels != -100), the target tokens
    and each one's row: the head over the whole vocabulary at every prefix position would
    dominate the cost of a small model."""
    nxt = labels[:, 1:]
    keep = nxt != -100
    logits = lm.get_output_embeddings()(hidden[:, :-1][keep]).float()
    rows = torch.arange(labels.shape[0], device=labels.device)[:, None].expand_as(nxt)[keep]
    return logits, nxt[keep], rows


def summed_logprob(
    logits: torch.Tensor, tokens: torch.Tensor, rows: torch.Tensor, n: int
) -> torch.Tensor:
    picked = torch.log_softmax(logits, -1).gather(-1, tokens[:, None])[:, 0]
    return torch.zeros(n, device=logits.device).index_add_(0, rows, picked)
