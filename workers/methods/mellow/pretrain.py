"""Audio-encoder pre-training by supervised tagging, the stand-in for HTSAT's AudioSet tagging.

Mellow starts from an HTSAT encoder pre-trained on AudioSet (multi-label sound-event tagging);
no such weights can be downloaded here, so for synthetic clips the encoder is first trained to
tag the *training* clips (never test clips) from their generator labels: which event types,
pitch classes, loudness classes and duration classes occur, the event count and the rhythm,
with a multi-label binary cross-entropy over clip-level features, as AudioSet tagging.
Real clips carry no tags; for them this step is skipped (use pre-trained weights instead).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from workers.benchmarks.mellow_aqa.synth import DURATIONS_S, EVENT_TYPES, LEVELS_DB, PITCH_CENTRES
from workers.methods.mellow.training import MelBank, train_loop

TAGS = (
    [f"type:{t}" for t in EVENT_TYPES]
    + [f"pitch:{p}" for p in PITCH_CENTRES]
    + [f"level:{lv}" for lv in LEVELS_DB]
    + [f"duration:{d}" for d in DURATIONS_S]
    + [f"count:{k}" for k in range(1, 5)]
    + ["rhythm:regular", "rhythm:irregular"]
)
_INDEX = {t: i for i, t in enumerate(TAGS)}


def clip_tags(spec) -> np.ndarray:
    y = np.zeros(len(TAGS), dtype=np.float32)
    for e in spec.events:
        y[_INDEX[f"type:{e.type}"]] = 1
        y[_INDEX[f"level:{e.level_class}"]] = 1
        y[_INDEX[f"duration:{e.duration_class}"]] = 1
        if e.pitch_class:
            y[_INDEX[f"pitch:{e.pitch_class}"]] = 1
    y[_INDEX[f"count:{min(spec.n_events, 4)}"]] = 1
    if spec.rhythm:
        y[_INDEX[f"rhythm:{spec.rhythm}"]] = 1
    return y


class _Tagger(nn.Module):
    def __init__(self, encoder: nn.Module) -> None:
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(2 * encoder.d_out, len(TAGS))

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        tokens = self.encoder(mel=mel)
        return self.head(torch.cat([tokens[:, 0], tokens[:, 1:].amax(dim=1)], dim=-1))


def pretrain_encoder(
    encoder: nn.Module,
    bank: MelBank,
    clips: dict,
    train_items,
    *,
    steps: int,
    batch_size: int,
    lr: float,
    seed: int,
    ctx=None,
) -> list[float]:
    """Tag the training clips for `steps` steps; returns the losses ([] when nothing to tag)."""
    ids = sorted({c for it in train_items for c in (it.clip_a, it.clip_b)})
    ids = [c for c in ids if getattr(clips[c], "spec", None) is not None]
    if steps <= 0 or not ids:
        if ctx is not None and steps > 0:
            ctx.log("encoder pre-training skipped: the training clips carry no tags (real audio)")
        return []
    tagger = _Tagger(encoder).to(bank.mel.device)
    y = torch.tensor(np.stack([clip_tags(clips[c].spec) for c in ids]), device=bank.mel.device)

    def loss(idx: np.ndarray) -> torch.Tensor:
        mel, where = bank.get([ids[i] for i in idx])
        return F.binary_cross_entropy_with_logits(tagger(mel)[where], y[idx])

    losses = train_loop(
        tagger,
        len(ids),
        loss,
        steps=steps,
        batch_size=min(batch_size, len(ids)),
        lr=lr,
        weight_decay=0.01,
        warmup=max(1, steps // 10),
        rng=np.random.default_rng([seed, 202]),
        ctx=ctx,
        name="encoder_tagging",
        progress_span=(0.0, 0.2),
    )
    if ctx is not None:
        ctx.log(
            f"encoder pre-trained by tagging {len(ids)} training clips for {steps} steps: "
            f"BCE {np.mean(losses[:10]):.3f} -> {np.mean(losses[-10:]):.3f}"
        )
    return losses
