"""Mellow (Deshmukh et al. 2025): two audio clips and a text prompt in, text out.

The decoder reads the prefix

    [ P(E(a1)) ; e_sep ; P(E(a2)) ; e_sep ; emb(prompt) ]

where E is the audio encoder (clip latent + time tokens), P the projection followed by the
clip-latent-preserving average pool (Sec. 3 of the paper; `downsample`), e_sep the embedding of
the separator token, and emb the LM's own token embeddings. Training minimises the next-token
cross-entropy of the answer (+ end-of-text) only; the prefix is never a target. Multiple choice
is scored MMAU / lm-eval style: the summed log-likelihood of each option's tokens (+ eos).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from workers.methods.mellow.encoder import AudioEncoder
from workers.methods.mellow.projection import build_projection, downsample
from workers.methods.mellow.training import summed_logprob, target_logits


class Mellow(nn.Module):
    def __init__(
        self,
        encoder: AudioEncoder,
        lm: nn.Module,
        *,
        sep_token_id: int,
        eos_token_id: int,
        pad_token_id: int,
        projection: str = "mlp",
        pool: int = 1,
        projection_dropout: float = 0.5,
    ) -> None:
        super().__init__()
        self.encoder, self.lm = encoder, lm
        d_lm = lm.get_input_embeddings().embedding_dim
        self.projection = build_projection(projection, encoder.d_out, d_lm, projection_dropout)
        self.pool = pool
        self.sep_token_id, self.eos_token_id, self.pad_token_id = (
            sep_token_id,
            eos_token_id,
            pad_token_id,
        )

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def audio_prefix(self, mel: torch.Tensor) -> torch.Tensor:
        """(N, n_mels, frames) -> (N, 1 + T'/pool, d_lm)."""
        return downsample(self.projection(self.encoder(mel=mel)), self.pool)

    def _embed(self, ids: list[int]) -> torch.Tensor:
        return self.lm.get_input_embeddings()(
            torch.tensor(ids, dtype=torch.long, device=self.device)
        )

    def assemble(
        self,
        prefix_a: torch.Tensor,
        prefix_b: torch.Tensor,
        prompts: list[list[int]],
        targets: list[list[int]],
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Right-padded (inputs_embeds, attention_mask, labels); labels are -100 off the target."""
        sep = self._embed([self.sep_token_id])
        rows, labels = [], []
        for pa, pb, prompt, target in zip(prefix_a, prefix_b, prompts, targets, strict=True):
            text = self._embed(prompt + target)
            rows.append(torch.cat([pa, sep, pb, sep, text], dim=0))
            n_ctx = pa.shape[0] + pb.shape[0] + 2 + len(prompt)
            labels.append([-100] * n_ctx + list(target))
        length = max(r.shape[0] for r in rows)
        d = rows[0].shape[1]
        embeds = rows[0].new_zeros(len(rows), length, d)
        mask = torch.zeros(len(rows), length, dtype=torch.long, device=self.device)
        lab = torch.full((len(rows), length), -100, dtype=torch.long, device=self.device)
        for i, (r, lbl) in enumerate(zip(rows, labels, strict=True)):
            embeds[i, : r.shape[0]], mask[i, : r.shape[0]] = r, 1
            lab[i, : len(lbl)] = torch.tensor(lbl, dtype=torch.long)
        return embeds, mask, lab

    def _targets(self, prefix_a, prefix_b, prompts, targets):
        embeds, mask, labels = self.assemble(prefix_a, prefix_b, prompts, targets)
        hidden = self.lm.base_model(inputs_embeds=embeds, attention_mask=mask).last_hidden_state
        return target_logits(self.lm, hidden, labels)

    def forward(
        self,
        prefix_a: torch.Tensor,
        prefix_b: torch.Tensor,
        prompts: list[list[int]],
        targets: list[list[int]],
    ) -> torch.Tensor:
        """Mean next-token cross-entropy over the answer tokens of the batch."""
        logits, tokens, _ = self._targets(prefix_a, prefix_b, prompts, targets)
        return F.cross_entropy(logits, tokens)

    @torch.no_grad()
    def sequence_logprob(
        self,
        prefix_a: torch.Tensor,
        prefix_b: torch.Tensor,
        prompts: list[list[int]],
        targets: list[list[int]],
    ) -> torch.Tensor:
        """Summed log p(target | audio, prompt) per row."""
        return summed_logprob(*self._targets(prefix_a, prefix_b, prompts, targets), len(prompts))

    @torch.no_grad()
    def generate(
        self,
        prefix_a: torch.Tensor,
        prefix_b: torch.Tensor,
        prompt: list[int],
        max_new_tokens: int = 32,
    ) -> list[int]:
        """Greedy decoding for one example (the run page shows it beside the scored choice)."""
        embeds, _, _ = self.assemble(prefix_a[:1], prefix_b[:1], [prompt], [[]])
        out: list[int] = []
        for _ in range(max_new_tokens):
            nxt = int(self.lm(inputs_embeds=embeds).logits[0, -1].argmax())
            if nxt == self.eos_token_id:
                break
            out.append(nxt)
            embeds = torch.cat([embeds, self._embed([nxt])[None]], dim=1)
        return out
