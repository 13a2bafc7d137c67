"""The decoder LM: the project's tiny Llama (pre-trained here on English prose, or randomly
initialised for the ablation), or any local Hugging Face causal LM directory (SmolLM2-135M on a
GPU worker, as the paper). Nothing is downloaded: a missing directory is an error."""

from __future__ import annotations

from pathlib import Path

import torch

from workers.models.tiny_llama import TinyLlamaConfig, build_llama, get_or_train_tiny_llama


def tiny_lm_config(
    hidden: int, layers: int, heads: int, vocab: int, steps: int, seed: int = 0
) -> TinyLlamaConfig:
    """English docstrings of the standard library: the closest offline stand-in for the web text
    SmolLM2 was pre-trained on (captions and questions are English prose)."""
    return TinyLlamaConfig(
        corpus="stdlib_docstrings",
        max_chars=1_500_000,
        vocab_size=vocab,
        hidden_size=hidden,
        num_layers=layers,
        num_heads=heads,
        intermediate_size=int(hidden * 8 / 3) // 8 * 8,
        seq_len=128,
        batch_size=16,
        steps=steps,
        lr=3e-3,
        warmup=max(1, steps // 15),
        seed=seed,
    )


def _reinit(model, seed: int):
    """Same architecture and tokenizer, fresh weights: the 'no LM pre-training' ablation."""
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(model.config)


def load_decoder(
    source: str,
    init: str,
    *,
    path: str = "",
    tiny: TinyLlamaConfig | None = None,
    ctx=None,
    seed: int = 0,
):
    """(causal LM, tokenizer). source: 'tiny' | 'hf_dir'; init: 'pretrained' | 'random'."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if source == "tiny":
        lm_dir = get_or_train_tiny_llama(tiny, ctx)
        tokenizer = AutoTokenizer.from_pretrained(lm_dir)
        if init == "random":
            model = build_llama(
                tiny.model_copy(update={"seed": seed}),
                len(tokenizer),
                bos_id=tokenizer.bos_token_id,
                eos_id=tokenizer.eos_token_id,
                pad_id=tokenizer.pad_token_id,
            )
        else:
            model = AutoModelForCausalLM.from_pretrained(lm_dir, dtype=torch.float32)
    elif source == "hf_dir":
        lm_dir = Path(path)
        if not (lm_dir / "config.json").is_file():
            raise FileNotFoundError(f"decoder_path: {lm_dir} is not a Hugging Face model directory")
        tokenizer = AutoTokenizer.from_pretrained(lm_dir)
        model = AutoModelForCausalLM.from_pretrained(lm_dir, dtype=torch.float32)
        if init == "random":
            model = _reinit(model, seed)
    else:
        raise ValueError(f"decoder_source must be 'tiny' or 'hf_dir', got {source!r}")
    if tokenizer.pad_token_id is None:  # SmolLM2 has none; Mellow adds one too
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer
