"""Platform glue: the `mellow` method on the `mellow_aqa` benchmark.

The benchmark calls `fit(train_items, clips, ctx)`, then `score(items, clips, ctx)` (one array of
option scores per multiple-choice item, higher = more likely) and `answer(item, clips)` for the
run page's examples. Outside the platform use `workers.methods.mellow.Mellow` directly.
"""

from __future__ import annotations

import numpy as np
import torch

from workers.benchmarks.mellow_aqa.paper import MELLOW_PAPER
from workers.core import Method, register_method
from workers.methods.mellow.config import MellowConfig
from workers.methods.mellow.decoder import load_decoder, tiny_lm_config
from workers.methods.mellow.encoder import AudioEncoder
from workers.methods.mellow.model import Mellow
from workers.methods.mellow.pretrain import pretrain_encoder
from workers.methods.mellow.training import (
    MelBank,
    TokenCache,
    gather_scores,
    option_rows,
    train_loop,
)


def build_encoder(cfg, sample_rate: int) -> AudioEncoder:
    return AudioEncoder(
        sample_rate=sample_rate,
        n_mels=cfg.n_mels,
        hop=cfg.hop,
        n_fft=cfg.n_fft,
        d=cfg.enc_dim,
        depths=tuple(cfg.enc_depths),
        heads=cfg.enc_heads,
        patch=(cfg.patch_mels, cfg.patch_frames),
    )


def decoder_for(cfg, ctx, seed: int):
    tiny = tiny_lm_config(
        cfg.lm_hidden, cfg.lm_layers, cfg.lm_heads, cfg.lm_vocab, cfg.lm_pretrain_steps
    ).model_copy(update={"max_chars": cfg.lm_corpus_chars})
    return load_decoder(
        cfg.decoder_source, cfg.decoder_init, path=cfg.decoder_path, tiny=tiny, ctx=ctx, seed=seed
    )


@register_method
class MellowMethod(Method):
    name = "mellow"
    title = "Mellow (small audio-language model)"
    description = (
        "Audio encoder on log-mels for each of two clips, a projection into the decoder's embedding "
        "space, and a small causal LM that reads [clip 1; sep; clip 2; sep; prompt] and writes the "
        "answer; trained on ReasonAQA-style items, multiple choice scored by log-likelihood."
    )
    benchmarks = ("mellow_aqa",)
    paper = MELLOW_PAPER
    Config = MellowConfig

    model: Mellow | None = None

    def fit(self, train, clips, ctx) -> None:
        cfg: MellowConfig = self.config
        rng = np.random.default_rng([ctx.seed, 101])
        torch.manual_seed(ctx.seed)
        lm, self.tokenizer = decoder_for(cfg, ctx, ctx.seed)
        sr = next(iter(clips.values())).sample_rate
        encoder = build_encoder(cfg, sr)
        eos = self.tokenizer.eos_token_id
        self.model = Mellow(
            encoder,
            lm,
            sep_token_id=eos,
            eos_token_id=eos,
            pad_token_id=self.tokenizer.pad_token_id,
            projection=cfg.projection,
            pool=cfg.pool,
            projection_dropout=cfg.projection_dropout,
        ).to(ctx.device)
        self.tokens = TokenCache(self.tokenizer)
        self.bank = MelBank(clips, encoder.logmel, encoder.time_stride, ctx.device)
        pretrain_encoder(
            encoder,
            self.bank,
            clips,
            train,
            steps=cfg.encoder_pretrain_steps,
            batch_size=64,
            lr=3e-3,
            seed=ctx.seed,
            ctx=ctx,
        )
        n_params = sum(p.numel() for p in self.model.parameters())
        ctx.log(
            f"mellow: {n_params / 1e6:.2f}M parameters (encoder {sum(p.numel() for p in encoder.parameters()) / 1e6:.2f}M), "
            f"{len(train)} training items, prefix {self.prefix_tokens()} tokens per clip"
        )
        prompts = [self.tokens(it.prompt(cfg.prompt_choices)) for it in train]
        targets = [self.tokens(" " + it.answer) + [eos] for it in train]

        def batch_loss(idx: np.ndarray) -> torch.Tensor:
            pa, pb = self._prefixes([train[i] for i in idx])
            return self.model(pa, pb, [prompts[i] for i in idx], [targets[i] for i in idx])

        self.losses = train_loop(
            self.model,
            len(train),
            batch_loss,
            steps=cfg.steps,
            batch_size=min(cfg.batch_size, len(train)),
            lr=cfg.lr,
            weight_decay=cfg.weight_decay,
            warmup=cfg.warmup,
            rng=rng,
            ctx=ctx,
            name="mellow",
            progress_span=(0.2, 0.9),
        )

    def prefix_tokens(self) -> int:
        enc = self.model.encoder
        frames = self.bank.mel.shape[-1]
        n = frames // enc.time_stride * enc.freq_tokens
        return 1 + -(-n // self.model.pool)

    def _prefixes(self, items) -> tuple[torch.Tensor, torch.Tensor]:
        mels, where = self.bank.get([it.clip_a for it in items] + [it.clip_b for it in items])
        prefix = self.model.audio_prefix(mels)
        n = len(items)
        return prefix[where[:n]], prefix[where[n:]]

    @torch.no_grad()
    def score(self, items, clips, ctx) -> list[np.ndarray]:
        cfg: MellowConfig = self.config
        self.model.eval()
        rows = option_rows(items, self.tokens, self.tokenizer.eos_token_id, cfg.prompt_choices)
        values: list[float] = []
        for start in range(0, len(rows), cfg.score_batch):
            ctx.check_cancelled()
            chunk = rows[start : start + cfg.score_batch]
            pa, pb = self._prefixes([items[i] for i, _, _ in chunk])
            values += self.model.sequence_logprob(
                pa, pb, [p for _, p, _ in chunk], [t for _, _, t in chunk]
            ).tolist()
        return gather_scores(items, rows, values)

    @torch.no_grad()
    def answer(self, item, clips) -> str:
        pa, pb = self._prefixes([item])
        ids = self.model.generate(pa, pb, self.tokens(item.prompt(self.config.prompt_choices)))
        return self.tokenizer.decode(ids, skip_special_tokens=True).strip()
