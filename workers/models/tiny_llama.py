"""The project's small Llama-architecture language models.

`TinyLlamaConfig` names everything that determines a trained model (corpus, tokenizer, shape,
training budget, seed); `get_or_train_tiny_llama(config, ctx)` returns a directory in Hugging
Face format (``AutoTokenizer`` / ``AutoModelForCausalLM.from_pretrained(path)`` load it),
training it on first use and reusing it afterwards: the cache key is a hash of the config.
Other plugins (watermarks, Meta-RFFT, NBL) call this to get a model without a network.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import torch
from pydantic import Field

from workers.core.config import PluginConfig

CACHE_NAME = "tiny_llama"
_TOKENIZED: dict[
    tuple[str, int], tuple
] = {}  # (corpus sha256, vocab) -> (tokenizer, train ids, valid ids)


class TinyLlamaConfig(PluginConfig):
    """Everything that determines a trained tiny Llama. Defaults: ~1.3M parameters, ~1 min on one core."""

    corpus: str = Field(
        "stdlib",
        pattern="^(stdlib|stdlib_docstrings|files)$",
        description="Training text: Python stdlib source, its docstrings, or user files",
    )
    files: tuple[str, ...] = Field(
        (), max_length=1000, description="Text or JSONL ('text' field) paths for corpus=files"
    )
    max_chars: int = Field(
        1_500_000, ge=10_000, le=500_000_000, description="Corpus size in characters"
    )
    vocab_size: int = Field(2048, ge=260, le=65536, description="BPE vocabulary size")
    hidden_size: int = Field(128, ge=16, le=4096, description="Model width d")
    num_layers: int = Field(4, ge=1, le=64, description="Decoder layers")
    num_heads: int = Field(
        4, ge=1, le=64, description="Attention heads (hidden_size must divide evenly)"
    )
    intermediate_size: int = Field(
        344, ge=16, le=16384, description="SwiGLU MLP width (about 8/3 d)"
    )
    seq_len: int = Field(128, ge=8, le=4096, description="Training context length")
    batch_size: int = Field(16, ge=1, le=1024, description="Sequences per step")
    steps: int = Field(300, ge=1, le=1_000_000, description="Optimizer steps")
    lr: float = Field(3e-3, gt=0, le=1.0, description="Peak AdamW learning rate")
    weight_decay: float = Field(0.1, ge=0, le=1.0, description="AdamW weight decay")
    warmup: int = Field(20, ge=0, le=100_000, description="Linear warmup steps")
    seed: int = Field(0, ge=0, le=2**31 - 1, description="Seed for init and batch sampling")

    def cache_key(self) -> str:
        payload = json.dumps(self.model_dump(), sort_keys=True).encode()
        return hashlib.sha256(payload).hexdigest()[:16]


def tiny_test_config(**overrides: Any) -> TinyLlamaConfig:
    """A model that trains in a few seconds on one core: for tests only."""
    base = dict(
        max_chars=60_000,
        vocab_size=300,
        hidden_size=32,
        num_layers=4,
        num_heads=4,
        intermediate_size=64,
        seq_len=32,
        batch_size=8,
        steps=40,
        lr=1e-2,
        warmup=4,
    )
    base.update(overrides)
    return TinyLlamaConfig(**base)


def build_llama(config: TinyLlamaConfig, vocab_size: int, *, bos_id: int, eos_id: int, pad_id: int):
    """A randomly initialised `LlamaForCausalLM` of the configured shape (untied head)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    if config.hidden_size % config.num_heads:
        raise ValueError(
            f"hidden_size {config.hidden_size} is not divisible by num_heads {config.num_heads}"
        )
    torch.manual_seed(config.seed)
    cfg = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_layers,
        num_attention_heads=config.num_heads,
        num_key_value_heads=config.num_heads,
        max_position_embeddings=max(256, config.seq_len * 4),
        tie_word_embeddings=False,
        bos_token_id=bos_id,
        eos_token_id=eos_id,
        pad_token_id=pad_id,
    )
    return LlamaForCausalLM(cfg)


def count_parameters(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def train_tiny_llama(
    config: TinyLlamaConfig,
    out_dir: str | Path,
    ctx=None,
    *,
    optimizer_factory=None,
    eval_every: int = 0,
    eval_windows: int = 16,
) -> dict:
    """Build the corpus, train tokenizer and model, save both to `out_dir` (HF format).

    `optimizer_factory(model, lr) -> torch.optim.Optimizer` replaces the default AdamW (the
    SinkGD benchmark passes its optimizers here). Validation NLL is measured every `eval_every`
    steps (0 = five times per run) on `eval_windows` held-out windows. Returns the training record that is also saved
    as ``training.json``.
    """
    from workers.models.lm.corpus import build_corpus
    from workers.models.lm.data import encode_documents
    from workers.models.lm.tokenizer import train_bpe_tokenizer
    from workers.models.lm.train import optimizer_state_bytes, train_causal_lm

    out_dir = Path(out_dir)
    device = ctx.device if ctx is not None else torch.device("cpu")
    corpus = build_corpus(
        config.corpus, max_chars=config.max_chars, files=config.files, valid_fraction=0.1
    )
    if ctx is not None:
        ctx.record_dataset(
            f"corpus-{config.corpus}",
            corpus.sha256,
            "python stdlib" if config.corpus != "files" else "user files",
        )
        ctx.log(
            f"corpus: {len(corpus.train)} train / {len(corpus.valid)} valid documents, {corpus.n_chars} chars"
        )
    key = (corpus.sha256, config.vocab_size)
    if (
        key not in _TOKENIZED
    ):  # sweeps train many models on one corpus: tokenise it once per process
        tokenizer = train_bpe_tokenizer(corpus.train, config.vocab_size)
        _TOKENIZED.clear()
        _TOKENIZED[key] = (
            tokenizer,
            encode_documents(tokenizer, corpus.train),
            encode_documents(tokenizer, corpus.valid),
        )
    tokenizer, train_ids, valid_ids = _TOKENIZED[key]
    model = build_llama(
        config,
        len(tokenizer),
        bos_id=tokenizer.bos_token_id,
        eos_id=tokenizer.eos_token_id,
        pad_id=tokenizer.pad_token_id,
    )
    if optimizer_factory is None:
        optimizer = torch.optim.AdamW(
            model.parameters(), lr=config.lr, betas=(0.9, 0.95), weight_decay=config.weight_decay
        )
    else:
        optimizer = optimizer_factory(model, config.lr)

    def callback(step: int, total: int, row: dict) -> None:
        if ctx is not None:
            ctx.check_cancelled()
            ctx.progress(step, total, f"train loss {row['train_loss']:.3f}")
            ctx.log_metrics(step, **{k: v for k, v in row.items() if k != "step"})

    result = train_causal_lm(
        model,
        optimizer,
        train_ids,
        valid_ids,
        steps=config.steps,
        batch_size=config.batch_size,
        seq_len=config.seq_len,
        warmup=config.warmup,
        eval_every=eval_every or max(1, config.steps // 5),
        eval_windows=eval_windows,
        seed=config.seed,
        device=device,
        callback=callback,
    )
    record = {
        "config": config.model_dump(),
        "corpus_sha256": corpus.sha256,
        "parameters": count_parameters(model),
        "train_tokens": int(train_ids.numel()),
        "valid_tokens": int(valid_ids.numel()),
        "tokens_seen": result.tokens_seen,
        "final_val_nll": result.final_val_nll,
        "final_val_ppl": math.exp(result.final_val_nll)
        if math.isfinite(result.final_val_nll)
        else math.nan,
        "mean_step_s": result.mean_step_s,
        "optimizer_state_bytes": optimizer_state_bytes(optimizer),
        "diverged": result.diverged,
        "history": result.history,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    model.to("cpu").save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    (out_dir / "training.json").write_text(json.dumps(record, indent=1))
    return record


def default_cache_dir() -> Path:
    return Path(os.environ.get("CRUCIBLE_DATA_DIR", "var/data")) / CACHE_NAME


def get_or_train_tiny_llama(
    config: TinyLlamaConfig | dict | None = None, ctx=None, *, cache_dir: str | Path | None = None
) -> Path:
    """Path of a trained model for `config`, training and caching it on first use.

    The cache lives in ``ctx.data_path("tiny_llama")`` (or `cache_dir`, or the data dir) under the
    config hash; training writes to a temporary directory and renames it, so concurrent runs never
    see a half-written model.
    """
    if config is None:
        config = TinyLlamaConfig()
    elif isinstance(config, dict):
        config = TinyLlamaConfig(**config)
    if cache_dir is not None:
        root = Path(cache_dir)
    elif ctx is not None:
        root = ctx.data_path(CACHE_NAME)
    else:
        root = default_cache_dir()
    root.mkdir(parents=True, exist_ok=True)
    final = root / config.cache_key()
    if (final / "training.json").is_file():
        if ctx is not None:
            ctx.log(f"reusing cached tiny llama {final}")
        return final
    tmp = Path(tempfile.mkdtemp(prefix=f".{config.cache_key()}-", dir=root))
    try:
        train_tiny_llama(config, tmp, ctx)
        try:
            os.replace(tmp, final)
        except OSError:  # another run finished first: keep theirs
            if not (final / "training.json").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def load_tiny_llama(path: str | Path, device: str | torch.device = "cpu", dtype: str = "float32"):
    """(model, tokenizer) from a directory saved by `train_tiny_llama` (or any HF causal LM).

    `dtype="auto"` keeps a real model's stored precision (bf16 on a GPU worker).
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    torch_dtype = "auto" if dtype == "auto" else getattr(torch, dtype)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype).to(device)
    model.eval()
    return model, tokenizer
