"""Meta-RFFT data on any Hugging Face causal LM (the paper fine-tunes pre-trained LLMs, Sec. 4).

`HFCausalLM` wraps a `transformers` causal LM and its own tokenizer behind the interface
`metarfft_lengthgen` uses for the char-level model (`lm.CharLM`): the same (prompt, target)
texts are tokenised with the model's tokenizer, the loss is on the target tokens only, the
optimiser loop is the shared `lm.fit_pairs`, and greedy decoding stops at the first newline
(the end of an answer in both formats). Usable on its own:

    lm = HFCausalLM.from_pretrained("/models/qwen2.5-0.5b", device="cuda", dtype="bfloat16")
    lm.train(lambda rng, k: pairs, steps=100, batch=8, lr=2e-5, rng=np.random.default_rng(0))
    lm.complete(["R:...\\nQ:12+34\\nA:"], max_new=64)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from transformers import StoppingCriteria, StoppingCriteriaList

from workers.methods.metarfft.lm import fit_pairs, pad_pairs

DTYPES = ("float32", "bfloat16", "auto")


class _StopAtNewline(StoppingCriteria):
    """Per-row stop once the generated text holds a newline (works for any tokenizer, whether
    or not '\\n' is a token of its own)."""

    def __init__(self, tokenizer: Any, start: int) -> None:
        self.tokenizer, self.start = tokenizer, start

    def __call__(self, input_ids: torch.Tensor, scores: Any, **kwargs: Any) -> torch.Tensor:
        texts = self.tokenizer.batch_decode(input_ids[:, self.start :], skip_special_tokens=True)
        return torch.tensor(["\n" in t for t in texts], device=input_ids.device)


class HFCausalLM:
    """A Hugging Face causal LM fine-tuned and decoded on Meta-RFFT (prompt, target) texts."""

    def __init__(self, model: Any, tokenizer: Any) -> None:
        if not hasattr(model, "generate") or not callable(getattr(tokenizer, "encode", None)):
            raise TypeError(
                "model/tokenizer: need a transformers causal LM with generate() and its tokenizer"
            )
        self.model, self.tokenizer = model, tokenizer
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id
        self.pad_id = int(pad) if pad is not None else 0  # padded positions are masked anyway
        eos = tokenizer.eos_token_id
        self.eos_id = int(eos) if eos is not None else None

    @classmethod
    def from_pretrained(
        cls, path: str | Path, *, device: str | torch.device = "cpu", dtype: str = "float32"
    ) -> HFCausalLM:
        """Load a local model directory (never a hub download: `local_files_only=True`)."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if dtype not in DTYPES:
            raise ValueError(f"dtype: must be one of {DTYPES}, got {dtype!r}")
        path = Path(path)
        if not (path / "config.json").is_file():
            raise FileNotFoundError(
                f"model_path: {str(path)!r} is not a local Hugging Face model directory "
                "(no config.json); hub names are not downloaded"
            )
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
        model = AutoModelForCausalLM.from_pretrained(
            path, dtype=torch_dtype, local_files_only=True
        ).to(device)
        model.eval()
        return cls(model, tokenizer)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    # -- tokenisation ----------------------------------------------------------------------------
    def encode_prompt(self, text: str) -> list[int]:
        # the prompt starts the sequence: let the tokenizer add what the model expects (BOS)
        return list(self.tokenizer(text, add_special_tokens=True)["input_ids"])

    def encode_target(self, text: str) -> list[int]:
        # tokenised on its own so the loss boundary is exact and matches decoding after a prompt
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def n_tokens(self, text: str) -> int:
        return len(self.encode_target(text))

    def make_batch(
        self, pairs: Sequence[tuple[str, str]]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return pad_pairs(
            [(self.encode_prompt(p), self.encode_target(t)) for p, t in pairs], self.pad_id
        )

    # -- training and decoding -------------------------------------------------------------------
    def train(
        self,
        sample: Callable[[np.random.Generator, int], list[tuple[str, str]]],
        *,
        steps: int,
        batch: int,
        lr: float,
        rng: np.random.Generator,
        on_step: Callable[[int, float], None] | None = None,
    ) -> None:
        fit_pairs(
            self.model,
            self.make_batch,
            sample,
            steps=steps,
            batch=batch,
            lr=lr,
            rng=rng,
            on_step=on_step,
        )

    @torch.no_grad()
    def complete(self, prompts: Sequence[str], max_new: int) -> list[str]:
        """Greedy continuations up to the first newline, `max_new` tokens at most. Prompts are
        grouped by token length so no padding (and no position shift) is needed."""
        if max_new < 1:
            raise ValueError(f"max_new: must be >= 1, got {max_new}")
        self.model.eval()
        encoded = [self.encode_prompt(p) for p in prompts]
        groups: dict[int, list[int]] = {}
        for i, ids in enumerate(encoded):
            groups.setdefault(len(ids), []).append(i)
        out: dict[int, str] = {}
        for width, idx in groups.items():
            ids = torch.tensor([encoded[i] for i in idx], dtype=torch.long, device=self.device)
            gen = self.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                do_sample=False,
                max_new_tokens=max_new,
                eos_token_id=self.eos_id,
                pad_token_id=self.pad_id,
                stopping_criteria=StoppingCriteriaList([_StopAtNewline(self.tokenizer, width)]),
            )
            texts = self.tokenizer.batch_decode(gen[:, width:], skip_special_tokens=True)
            for text, i in zip(texts, idx, strict=True):
                out[i] = text.split("\n", 1)[0]
        return [out[i] for i in range(len(prompts))]

    # -- adaptation starts from the pre-trained weights for every held-out task ------------------
    def snapshot(self) -> dict[str, torch.Tensor]:
        """A CPU copy of the weights (no second model on the accelerator)."""
        return {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}

    def restore(self, state: dict[str, torch.Tensor]) -> None:
        self.model.load_state_dict(state)


def from_context_model(obj: Any) -> HFCausalLM | None:
    """`HFCausalLM` for a platform model exposing `.model` / `.tokenizer` (e.g. the
    `hf_local` / `project` adapters); None when `obj` is None."""
    if obj is None:
        return None
    if not (hasattr(obj, "model") and hasattr(obj, "tokenizer")):
        raise TypeError(
            f"ctx.model: fine-tuning needs a local Hugging Face model with .model and "
            f".tokenizer (an hf_local or project model), got {type(obj).__name__}"
        )
    return HFCausalLM(obj.model, obj.tokenizer)
