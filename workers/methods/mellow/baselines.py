"""The paper's two kinds of baseline, trained on the same items as Mellow.

* `CaptionOnlyLM` (`caption_only_lm`): the same decoder LM with the clips' captions in place of
  the audio, as MMAU's "LLM + audio caption" rows; with `captions="none"` it sees the question
  alone, which measures how much the answer priors of the generated questions give away.
* `AudioClassifier` (`audio_classifier`): the same audio encoder and a classifier that scores
  each option from [clip embeddings, question, option] with no language modelling; it learns
  from the multiple-choice items only (open answers have nothing to classify).
"""

from __future__ import annotations

import re

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from workers.benchmarks.mellow_aqa.paper import MELLOW_PAPER
from workers.core import Method, register_method
from workers.methods.mellow.config import CaptionOnlyConfig, ClassifierConfig
from workers.methods.mellow.encoder import AudioEncoder
from workers.methods.mellow.plugin import build_encoder, decoder_for
from workers.methods.mellow.pretrain import pretrain_encoder
from workers.methods.mellow.training import (
    MelBank,
    TokenCache,
    gather_scores,
    summed_logprob,
    target_logits,
    train_loop,
)


class CaptionOnlyLM(nn.Module):
    """A causal LM over text only: loss and summed log-likelihood of targets after a prompt."""

    def __init__(self, lm: nn.Module, pad_token_id: int) -> None:
        super().__init__()
        self.lm, self.pad = lm, pad_token_id

    def _batch(self, prompts, targets):
        seqs = [p + t for p, t in zip(prompts, targets, strict=True)]
        length = max(map(len, seqs))
        dev = next(self.parameters()).device
        ids = torch.full((len(seqs), length), self.pad, dtype=torch.long, device=dev)
        mask = torch.zeros_like(ids)
        labels = torch.full_like(ids, -100)
        for i, (p, t) in enumerate(zip(prompts, targets, strict=True)):
            ids[i, : len(p) + len(t)] = torch.tensor(p + t)
            mask[i, : len(p) + len(t)] = 1
            labels[i, len(p) : len(p) + len(t)] = torch.tensor(t)
        return ids, mask, labels

    def _targets(self, prompts, targets):
        ids, mask, labels = self._batch(prompts, targets)
        hidden = self.lm.base_model(input_ids=ids, attention_mask=mask).last_hidden_state
        return target_logits(self.lm, hidden, labels)

    def forward(self, prompts, targets) -> torch.Tensor:
        logits, tokens, _ = self._targets(prompts, targets)
        return F.cross_entropy(logits, tokens)

    @torch.no_grad()
    def sequence_logprob(self, prompts, targets) -> torch.Tensor:
        return summed_logprob(*self._targets(prompts, targets), len(prompts))


@register_method
class CaptionOnlyMethod(Method):
    name = "caption_only_lm"
    title = "Caption-only text LM (baseline)"
    description = (
        "The same decoder LM, fine-tuned on the same questions, reading the clips' "
        "captions instead of the audio (or nothing: captions='none')."
    )
    benchmarks = ("mellow_aqa",)
    is_baseline = True
    paper = MELLOW_PAPER
    Config = CaptionOnlyConfig

    def context(self, item, clips) -> str:
        if self.config.captions == "none":
            return ""
        a = clips[item.clip_a].caption
        if item.clip_a == item.clip_b:
            return f"Audio caption: {a}\n"
        return f"Caption of the first clip: {a}\nCaption of the second clip: {clips[item.clip_b].caption}\n"

    def fit(self, train, clips, ctx) -> None:
        cfg: CaptionOnlyConfig = self.config
        torch.manual_seed(ctx.seed)
        lm, self.tokenizer = decoder_for(cfg, ctx, ctx.seed)
        self.model = CaptionOnlyLM(lm, self.tokenizer.pad_token_id).to(ctx.device)
        self.tokens = TokenCache(self.tokenizer)
        eos = self.tokenizer.eos_token_id
        prompts = [
            self.tokens(self.context(it, clips) + it.prompt(cfg.prompt_choices)) for it in train
        ]
        targets = [self.tokens(" " + it.answer) + [eos] for it in train]
        self.losses = train_loop(
            self.model,
            len(train),
            lambda idx: self.model([prompts[i] for i in idx], [targets[i] for i in idx]),
            steps=cfg.steps,
            batch_size=min(cfg.batch_size, len(train)),
            lr=cfg.lr,
            weight_decay=cfg.weight_decay,
            warmup=cfg.warmup,
            rng=np.random.default_rng([ctx.seed, 101]),
            ctx=ctx,
            name="caption_lm",
            progress_span=(0.0, 0.9),
        )

    @torch.no_grad()
    def score(self, items, clips, ctx) -> list[np.ndarray]:
        eos = self.tokenizer.eos_token_id
        rows = []
        for i, item in enumerate(items):
            prompt = self.tokens(
                self.context(item, clips) + item.prompt(self.config.prompt_choices)
            )
            rows += [(i, prompt, self.tokens(" " + o) + [eos]) for o in item.options]
        values: list[float] = []
        for s in range(0, len(rows), self.config.score_batch):
            chunk = rows[s : s + self.config.score_batch]
            values += self.model.sequence_logprob(
                [p for _, p, _ in chunk], [t for _, _, t in chunk]
            ).tolist()
        return gather_scores(items, rows, values)

    @torch.no_grad()
    def answer(self, item, clips) -> str:
        return item.options[int(np.argmax(self.score([item], clips, None)[0]))]


_WORD = re.compile(r"[a-z0-9]+")


class WordVocab:
    def __init__(self, texts: list[str]) -> None:
        words = sorted({w for t in texts for w in _WORD.findall(t.lower())})
        self.index = {w: i + 1 for i, w in enumerate(words)}  # 0 = unknown / padding

    def __len__(self) -> int:
        return len(self.index) + 1

    def encode(self, texts: list[str], device) -> tuple[torch.Tensor, torch.Tensor]:
        ids = [[self.index.get(w, 0) for w in _WORD.findall(t.lower())] or [0] for t in texts]
        offsets = torch.tensor([0] + [len(x) for x in ids[:-1]], device=device).cumsum(0)
        return torch.tensor([i for x in ids for i in x], device=device), offsets


class AudioClassifier(nn.Module):
    """score(option) = MLP([z_a, z_b, z_a - z_b, q, o, q * o]); softmax over a question's options."""

    def __init__(self, encoder: AudioEncoder, vocab_size: int, text_dim: int, hidden: int) -> None:
        super().__init__()
        self.encoder = encoder
        self.text = nn.EmbeddingBag(vocab_size, text_dim, mode="mean")
        d = 2 * encoder.d_out  # clip latent + max over tokens
        self.audio_proj = nn.Linear(d, text_dim)
        self.head = nn.Sequential(
            nn.Linear(6 * text_dim, hidden),
            nn.GELU(),
            nn.Linear(hidden, hidden),
            nn.GELU(),
            nn.Linear(hidden, 1),
        )

    def embed_audio(self, mel: torch.Tensor) -> torch.Tensor:
        tokens = self.encoder(mel=mel)
        return self.audio_proj(torch.cat([tokens[:, 0], tokens[:, 1:].amax(dim=1)], dim=-1))

    def forward(self, za, zb, q, o) -> torch.Tensor:
        return self.head(torch.cat([za, zb, za - zb, q, o, q * o], dim=-1))[..., 0]


@register_method
class AudioClassifierMethod(Method):
    name = "audio_classifier"
    title = "Audio encoder + option classifier (baseline)"
    description = (
        "The same audio encoder with a classifier over the answer options (no language "
        "model): trained with cross-entropy over each question's options."
    )
    benchmarks = ("mellow_aqa",)
    is_baseline = True
    paper = MELLOW_PAPER
    Config = ClassifierConfig

    def fit(self, train, clips, ctx) -> None:
        cfg: ClassifierConfig = self.config
        torch.manual_seed(ctx.seed)
        mcq = [it for it in train if it.is_mcq]
        if not mcq:
            raise ValueError(
                "audio_classifier: the training items contain no multiple-choice questions"
            )
        self.vocab = WordVocab([it.question for it in mcq] + [o for it in mcq for o in it.options])
        encoder = build_encoder(cfg, next(iter(clips.values())).sample_rate)
        self.model = AudioClassifier(encoder, len(self.vocab), cfg.text_dim, cfg.hidden).to(
            ctx.device
        )
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
        ctx.log(f"audio_classifier: {len(mcq)} multiple-choice training items of {len(train)}")
        self.losses = train_loop(
            self.model,
            len(mcq),
            lambda idx: self._loss([mcq[i] for i in idx], ctx.device),
            steps=cfg.steps,
            batch_size=min(cfg.batch_size, len(mcq)),
            lr=cfg.lr,
            weight_decay=cfg.weight_decay,
            warmup=cfg.warmup,
            rng=np.random.default_rng([ctx.seed, 101]),
            ctx=ctx,
            name="classifier",
            progress_span=(0.2, 0.9),
        )

    def _logits(self, items, device) -> list[torch.Tensor]:
        mels, where = self.bank.get([it.clip_a for it in items] + [it.clip_b for it in items])
        z = self.model.embed_audio(mels)
        n = len(items)
        za, zb = z[where[:n]], z[where[n:]]
        q = self.model.text(*self.vocab.encode([it.question for it in items], device))
        counts = [len(it.options) for it in items]
        o = self.model.text(*self.vocab.encode([x for it in items for x in it.options], device))
        rep = torch.repeat_interleave(
            torch.arange(n, device=device), torch.tensor(counts, device=device)
        )
        return list(self.model(za[rep], zb[rep], q[rep], o).split(counts))

    def _loss(self, items, device) -> torch.Tensor:
        logits = self._logits(items, device)
        return torch.stack(
            [
                F.cross_entropy(lg[None], torch.tensor([it.answer_index], device=device))
                for lg, it in zip(logits, items, strict=True)
            ]
        ).mean()

    @torch.no_grad()
    def score(self, items, clips, ctx) -> list[np.ndarray]:
        out = []
        for s in range(0, len(items), 256):
            out += [
                lg.cpu().numpy() for lg in self._logits(items[s : s + 256], self.bank.mel.device)
            ]
        return out

    @torch.no_grad()
    def answer(self, item, clips) -> str:
        return item.options[int(np.argmax(self.score([item], clips, None)[0]))]
