"""Evaluation helpers: held-out perplexity and lm-evaluation-harness style multiple choice.

Multiple choice follows lm-evaluation-harness (``loglikelihood`` requests): each choice is a
continuation of the context, scored by the sum of its tokens' log-probabilities given the
context; ``acc`` takes the argmax of that sum, ``acc_norm`` the argmax of the sum divided by
the continuation's length in characters (the harness's ``completion_len = len(choice)``) and
``acc_bytes`` divided by its UTF-8 length in bytes (the harness's ``acc_bytes``). Context and continuation are tokenised together and split
where the context ends, and a context's trailing spaces move to the continuation, as the
harness does, so BPE merges across the boundary do not favour any choice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from workers.models.lm.data import sequential_windows


@torch.no_grad()
def stream_nll(
    model,
    stream: torch.Tensor,
    *,
    seq_len: int = 128,
    batch_size: int = 8,
    max_windows: int | None = None,
    device: str | torch.device = "cpu",
) -> dict[str, float]:
    """Mean next-token NLL (nats) and perplexity over non-overlapping windows of `stream`."""
    model.eval()
    windows = sequential_windows(stream, seq_len, max_windows)
    total, count = 0.0, 0
    for i in range(0, windows.shape[0], batch_size):
        batch = windows[i : i + batch_size].to(device)
        logits = model(input_ids=batch[:, :-1], use_cache=False).logits
        loss = F.cross_entropy(
            logits.reshape(-1, logits.shape[-1]).float(), batch[:, 1:].reshape(-1), reduction="sum"
        )
        total += float(loss)
        count += batch[:, 1:].numel()
    nll = total / count
    return {"nll": nll, "ppl": math.exp(min(nll, 50.0)), "tokens": float(count)}


def perplexity(model, tokenizer, texts: Sequence[str], **kwargs) -> dict[str, float]:
    """Perplexity of `model` on held-out `texts` (documents joined with EOS)."""
    from workers.models.lm.data import encode_documents

    return stream_nll(model, encode_documents(tokenizer, texts), **kwargs)


@dataclass(frozen=True)
class MCItem:
    """One multiple-choice question: the context, the candidate continuations, the gold index."""

    context: str
    choices: tuple[str, ...]
    gold: int

    def __post_init__(self) -> None:
        if len(self.choices) < 2:
            raise ValueError("choices: a multiple-choice item needs at least two choices")
        if not 0 <= self.gold < len(self.choices):
            raise ValueError(f"gold: index {self.gold} outside 0..{len(self.choices) - 1}")


def _split_pair(tokenizer, context: str, continuation: str) -> tuple[list[int], list[int]]:
    n_spaces = len(context) - len(context.rstrip(" "))
    if n_spaces:
        continuation = context[-n_spaces:] + continuation
        context = context[:-n_spaces]
    whole = tokenizer(context + continuation, add_special_tokens=False)["input_ids"]
    ctx = tokenizer(context, add_special_tokens=False)["input_ids"]
    if len(whole) > len(ctx):
        return whole[: len(ctx)], whole[len(ctx) :]
    # BPE merged the whole continuation into the context's last tokens (e.g. "\n" + spaces):
    # the joint split leaves nothing to score, so encode the two parts separately
    return ctx, tokenizer(continuation, add_special_tokens=False)["input_ids"]


@torch.no_grad()
def loglikelihood(
    model,
    tokenizer,
    requests: Sequence[tuple[str, str]],
    *,
    max_len: int = 256,
    device: str | torch.device = "cpu",
) -> list[tuple[float, bool]]:
    """(sum log p(continuation | context), is_greedy) for each (context, continuation) request."""
    model.eval()
    bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    out = []
    for context, continuation in requests:
        ctx, cont = _split_pair(tokenizer, context, continuation)
        if not cont:
            raise ValueError(f"continuation {continuation!r} encodes to no tokens")
        if len(cont) >= max_len:
            raise ValueError(f"continuation of {len(cont)} tokens does not fit max_len={max_len}")
        ids = ([bos] + ctx + cont)[
            -(max_len + 1) :
        ]  # left-truncate the context, as the harness does
        inp = torch.tensor([ids[:-1]], device=device)
        logprobs = F.log_softmax(
            model(input_ids=inp, use_cache=False).logits[0, -len(cont) :].float(), dim=-1
        )
        target = torch.tensor(cont, device=device)
        ll = float(logprobs.gather(1, target[:, None]).sum())
        greedy = bool((logprobs.argmax(-1) == target).all())
        out.append((ll, greedy))
    return out


def score_multiple_choice(model, tokenizer, items: Sequence[MCItem], **kwargs) -> dict[str, float]:
    """acc, acc_norm (per character), acc_bytes (per byte) and their standard errors over `items`."""
    if not items:
        raise ValueError("items: need at least one multiple-choice item")
    requests = [(it.context, ch) for it in items for ch in it.choices]
    lls = [ll for ll, _ in loglikelihood(model, tokenizer, requests, **kwargs)]
    acc, acc_norm, acc_bytes, pos = [], [], [], 0

    def hit(values: list[float], gold: int) -> float:
        return float(max(range(len(values)), key=values.__getitem__) == gold)

    for it in items:
        scores = lls[pos : pos + len(it.choices)]
        pos += len(it.choices)
        acc.append(hit(scores, it.gold))
        per_char = [s / max(1, len(ch)) for s, ch in zip(scores, it.choices, strict=True)]
        acc_norm.append(hit(per_char, it.gold))
        per_byte = [s / max(1, len(ch.encode())) for s, ch in zip(scores, it.choices, strict=True)]
        acc_bytes.append(hit(per_byte, it.gold))
    n = len(items)

    def stderr(
        xs: list[float],
    ) -> float:  # sample standard error of the mean, as the harness reports
        if n < 2:
            return float("nan")
        m = sum(xs) / n
        return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)

    return {
        "acc": sum(acc) / n,
        "acc_stderr": stderr(acc),
        "acc_norm": sum(acc_norm) / n,
        "acc_norm_stderr": stderr(acc_norm),
        "acc_bytes": sum(acc_bytes) / n,
        "acc_bytes_stderr": stderr(acc_bytes),
        "n": float(n),
    }
