"""Video reward metrics in the paper's families, computed on the small model's videos.

* subject_consistency: cosine similarity of frame features from a small frame encoder the
  project trains (on colour and shape), each frame against the first and the previous frame
  (VBench's definition), averaged.
* motion_smoothness: 1 - mean absolute error of frame interpolation: every inner frame is
  predicted from its two neighbours, each warped half-way along the estimated motion (global
  translation flow from foreground-centroid tracking), and compared with the real frame.
* dynamic_degree: mean optical-flow magnitude (the same global flow), in pixels per frame;
  exactly 0 for a static video.
* quality: an imaging-quality proxy, 1 - the corruption level (blur, ghosting, noise) that a
  small critic trained on corrupted dataset frames predicts, averaged over frames.
* text_consistency: the mean probability a video classifier trained on the dataset gives the
  prompt's four attributes; `text_accuracy` is 1 when it predicts all four correctly.

`oracle_score` is the ground-truth judgement used for calibration (and as a held-out check):
how well the video matches the best rendering of the prompt's attributes from any start
position, 1 - MSE(best) / MSE(background vs best rendering) (1 = perfect, <= 0 = unrelated).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from workers.benchmarks.video_dlbs.data import (
    BACKGROUND,
    N_CLASSES,
    VideoSpec,
    corrupt,
    render,
    sample_videos,
)

METRICS = (
    "subject_consistency",
    "motion_smoothness",
    "dynamic_degree",
    "quality",
    "text_consistency",
)
CACHE_NAME = "video_dlbs_judges"


class FrameNet(nn.Module):
    """Per-frame CNN: globally pooled features (subject identity), colour/shape heads and a
    corruption-level head (the quality critic)."""

    def __init__(self, width: int = 16, feat: int = 32) -> None:
        super().__init__()
        w = width
        self.trunk = nn.Sequential(
            nn.Conv2d(3, w, 3, 2, 1),
            nn.SiLU(),
            nn.Conv2d(w, 2 * w, 3, 2, 1),
            nn.SiLU(),
            nn.Conv2d(2 * w, feat, 3, 1, 1),
            nn.SiLU(),
        )
        self.colour = nn.Linear(feat, N_CLASSES[0])
        self.shape = nn.Linear(feat, N_CLASSES[1])
        self.level = nn.Sequential(
            nn.Conv2d(feat, feat, 3, 1, 1),
            nn.SiLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(feat, 1),
        )

    def forward(self, frames: torch.Tensor):
        h = self.trunk(frames * 2 - 1)
        f = h.amax(dim=(2, 3))  # max-pool: the shape is small, mean pooling would drown it
        return f, self.colour(f), self.shape(f), self.level(h).squeeze(1)


class VideoClassifier(nn.Module):
    """Frames stacked as channels -> CNN -> colour, shape, direction and speed logits."""

    def __init__(self, frames: int = 8, width: int = 32) -> None:
        super().__init__()
        w = width
        self.net = nn.Sequential(
            nn.Conv2d(3 * frames, w, 3, 2, 1),
            nn.SiLU(),
            nn.Conv2d(w, w, 3, 2, 1),
            nn.SiLU(),
            nn.Conv2d(w, 2 * w, 3, 2, 1),
            nn.SiLU(),
            nn.AdaptiveMaxPool2d(1),
            nn.Flatten(),
        )
        self.heads = nn.ModuleList(nn.Linear(2 * w, n) for n in N_CLASSES)

    def forward(self, videos: torch.Tensor) -> list[torch.Tensor]:
        h = self.net(videos.flatten(1, 2) * 2 - 1)
        return [head(h) for head in self.heads]


@dataclass(frozen=True)
class JudgeConfig:
    frames: int = 8
    size: int = 32
    steps: int = 500
    batch: int = 32
    seed: int = 1234

    def cache_key(self) -> str:
        return hashlib.sha256(
            json.dumps({"format": 1, **asdict(self)}, sort_keys=True).encode()
        ).hexdigest()[:16]


def train_judges(cfg: JudgeConfig) -> tuple[FrameNet, VideoClassifier, dict]:
    spec = VideoSpec(cfg.frames, cfg.size)
    gen = torch.Generator().manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    frame_net, clf = FrameNet(), VideoClassifier(cfg.frames)
    opt = torch.optim.Adam([*frame_net.parameters(), *clf.parameters()], lr=2e-3)
    for _ in range(cfg.steps):
        video, attrs = sample_videos(cfg.batch, spec, gen)
        level = torch.rand(cfg.batch, generator=gen) * (torch.rand(cfg.batch, generator=gen) < 0.7)
        bad = corrupt(video, level, gen)
        pick = torch.randint(cfg.frames, (cfg.batch, 2), generator=gen)  # two frames per video
        frames = bad[torch.arange(cfg.batch)[:, None], pick].flatten(0, 1)
        _, lc, ls, lv = frame_net(frames)
        loss = (
            F.cross_entropy(lc, attrs[:, 0].repeat_interleave(2))
            + F.cross_entropy(ls, attrs[:, 1].repeat_interleave(2))
            + 4 * F.mse_loss(torch.sigmoid(lv), level.repeat_interleave(2))
        )
        mild = corrupt(video, level * 0.6, gen)
        logits = clf(mild)
        loss = loss + sum(F.cross_entropy(lg, attrs[:, i]) for i, lg in enumerate(logits))
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        video, attrs = sample_videos(256, spec, gen)
        acc = [
            float((lg.argmax(1) == attrs[:, i]).float().mean()) for i, lg in enumerate(clf(video))
        ]
        _, _, _, lv = frame_net(corrupt(video, torch.full((256,), 0.5), gen).flatten(0, 1))
        level_mae = float((torch.sigmoid(lv) - 0.5).abs().mean())
    frame_net.eval()
    clf.eval()
    frame_net.requires_grad_(False)
    clf.requires_grad_(False)
    return frame_net, clf, {"classifier_accuracy": acc, "quality_level_mae_at_0.5": level_mae}


def get_or_train_judges(
    cfg: JudgeConfig, root: Path, log=None
) -> tuple[FrameNet, VideoClassifier, dict]:
    final = root / cfg.cache_key()
    if (final / "judges.json").is_file():
        frame_net, clf = FrameNet(), VideoClassifier(cfg.frames)
        state = torch.load(final / "judges.pt", map_location="cpu", weights_only=True)
        frame_net.load_state_dict(state["frame"])
        clf.load_state_dict(state["clf"])
        for net in (frame_net, clf):
            net.eval()
            net.requires_grad_(False)
        if log:
            log(f"reusing cached reward networks {final}")
        return frame_net, clf, json.loads((final / "judges.json").read_text())
    frame_net, clf, record = train_judges(cfg)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{cfg.cache_key()}-", dir=root))
    try:
        torch.save({"frame": frame_net.state_dict(), "clf": clf.state_dict()}, tmp / "judges.pt")
        (tmp / "judges.json").write_text(json.dumps(record))
        try:
            os.replace(tmp, final)
        except OSError:
            if not (final / "judges.json").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    if log:
        log(f"trained reward networks: attribute accuracy {record['classifier_accuracy']}")
    return frame_net, clf, record


# -- motion estimation ----------------------------------------------------------------------
def foreground(videos: torch.Tensor) -> torch.Tensor:
    """[N, F, H, W] foreground weight: how far the brightest channel is above the background."""
    return ((videos.amax(dim=2) - BACKGROUND) / 0.3).clamp(0, 1)


def centroids(videos: torch.Tensor) -> torch.Tensor:
    """[N, F, 2] (x, y) foreground centroids (the frame centre for an empty frame)."""
    fg = foreground(videos)
    H, W = fg.shape[-2:]
    mass = fg.sum(dim=(2, 3))
    ys = torch.arange(H, dtype=fg.dtype).view(1, 1, H, 1)
    xs = torch.arange(W, dtype=fg.dtype).view(1, 1, 1, W)
    cx = (fg * xs).sum(dim=(2, 3)) / mass.clamp(min=1e-6)
    cy = (fg * ys).sum(dim=(2, 3)) / mass.clamp(min=1e-6)
    empty = mass < 1e-3
    cx = torch.where(empty, (W - 1) / 2, cx)
    cy = torch.where(empty, (H - 1) / 2, cy)
    return torch.stack([cx, cy], dim=-1)


def flow(videos: torch.Tensor) -> torch.Tensor:
    """[N, F-1, 2] global translation flow between consecutive frames."""
    c = centroids(videos)
    return c[:, 1:] - c[:, :-1]


def shift(frames: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """Translate frames [M, 3, H, W] by d [M, 2] pixels (bilinear; background fills in)."""
    M, _, H, W = frames.shape
    theta = torch.zeros(M, 2, 3, dtype=frames.dtype)
    theta[:, 0, 0] = 1
    theta[:, 1, 1] = 1
    theta[:, 0, 2] = -d[:, 0] * 2 / W
    theta[:, 1, 2] = -d[:, 1] * 2 / H
    grid = F.affine_grid(theta, frames.shape, align_corners=False)
    out = F.grid_sample(frames - BACKGROUND, grid, align_corners=False, padding_mode="zeros")
    return out + BACKGROUND


def motion_smoothness(videos: torch.Tensor) -> torch.Tensor:
    N, Fr = videos.shape[:2]
    if Fr < 3:
        return torch.ones(N)
    c = centroids(videos)
    prev, nxt, mid = videos[:, :-2], videos[:, 2:], videos[:, 1:-1]
    half = (c[:, 2:] - c[:, :-2]) / 2  # [N, F-2, 2]
    a = shift(prev.flatten(0, 1), half.flatten(0, 1))
    b = shift(nxt.flatten(0, 1), -half.flatten(0, 1))
    pred = ((a + b) / 2).view_as(mid)
    return 1 - (pred - mid).abs().mean(dim=(1, 2, 3, 4))


def dynamic_degree(videos: torch.Tensor) -> torch.Tensor:
    return flow(videos).norm(dim=-1).mean(dim=1)


# -- the reward model -------------------------------------------------------------------------
class VideoRewards:
    """All metrics of a batch of videos for given prompt attributes."""

    def __init__(self, frame_net: FrameNet, clf: VideoClassifier, spec: VideoSpec) -> None:
        self.frame_net, self.clf, self.spec = frame_net, clf, spec

    @torch.no_grad()
    def subject_consistency(self, videos: torch.Tensor) -> torch.Tensor:
        N, Fr = videos.shape[:2]
        feats, *_ = self.frame_net(videos.flatten(0, 1))
        f = F.normalize(feats.view(N, Fr, -1), dim=-1)
        first = (f[:, 1:] * f[:, :1]).sum(-1)
        prev = (f[:, 1:] * f[:, :-1]).sum(-1)
        return ((first + prev) / 2).mean(dim=1)

    @torch.no_grad()
    def quality(self, videos: torch.Tensor) -> torch.Tensor:
        N, Fr = videos.shape[:2]
        *_, level = self.frame_net(videos.flatten(0, 1))
        return 1 - torch.sigmoid(level).view(N, Fr).mean(dim=1)

    @torch.no_grad()
    def text(self, videos: torch.Tensor, attrs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        attrs = _per_video(attrs, len(videos))
        logits = self.clf(videos)
        probs = torch.stack(
            [
                lg.softmax(1).gather(1, attrs[:, i : i + 1]).squeeze(1)
                for i, lg in enumerate(logits)
            ],
            dim=1,
        )
        correct = torch.stack([lg.argmax(1) == attrs[:, i] for i, lg in enumerate(logits)], dim=1)
        return probs.mean(dim=1), correct.all(dim=1).float()

    @torch.no_grad()
    def metrics(self, videos: torch.Tensor, attrs: torch.Tensor) -> dict[str, torch.Tensor]:
        text, acc = self.text(videos, attrs)
        return {
            "subject_consistency": self.subject_consistency(videos),
            "motion_smoothness": motion_smoothness(videos),
            "dynamic_degree": dynamic_degree(videos),
            "quality": self.quality(videos),
            "text_consistency": text,
            "text_accuracy": acc,
        }

    @torch.no_grad()
    def oracle(self, videos: torch.Tensor, attrs: torch.Tensor, grid: int = 24) -> torch.Tensor:
        return oracle_score(videos, attrs, self.spec, grid)


def _per_video(attrs: torch.Tensor, n: int) -> torch.Tensor:
    attrs = torch.as_tensor(attrs, dtype=torch.long)
    return attrs[None].expand(n, -1) if attrs.dim() == 1 else attrs


@torch.no_grad()
def oracle_score(
    videos: torch.Tensor, attrs: torch.Tensor, spec: VideoSpec, grid: int = 24
) -> torch.Tensor:
    """Ground-truth judgement: 1 - MSE to the best rendering of the prompt (over a grid x grid
    set of valid start positions) / MSE of that rendering against an empty background."""
    attrs = _per_video(attrs, len(videos))
    out = torch.empty(len(videos))
    u = torch.linspace(0, 1, grid)
    uu = torch.stack(torch.meshgrid(u, u, indexing="xy"), dim=-1).reshape(-1, 2)  # [G, 2]
    for n in range(len(videos)):
        a = attrs[n : n + 1].expand(len(uu), -1)
        # the valid start box (random_starts maps u in [0, 1]^2 linearly onto it)
        lo = _start_box(a[:1], spec)
        starts = lo[0] + uu * (lo[1] - lo[0])
        ref = render(a, starts, spec)
        mse = ((ref - videos[n : n + 1]) ** 2).mean(dim=(1, 2, 3, 4))
        k = int(torch.argmin(mse))
        energy = ((ref[k] - BACKGROUND) ** 2).mean()
        out[n] = 1 - mse[k] / energy.clamp(min=1e-8)
    return out


def _start_box(attrs: torch.Tensor, spec: VideoSpec) -> tuple[torch.Tensor, torch.Tensor]:
    """(lo, hi) [1, 2] of the valid start centres (the box `random_starts` samples from)."""
    from workers.benchmarks.video_dlbs.data import UNIT

    margin = spec.radius + 1.0
    travel = spec.speed_px(attrs[:, 3]) * (spec.frames - 1)
    lo = torch.full((1, 2), margin)
    hi = torch.full((1, 2), spec.size - 1 - margin)
    unit = UNIT[attrs[:, 2]]
    lo = lo + torch.clamp(-unit, min=0) * travel[:, None]
    hi = hi - torch.clamp(unit, min=0) * travel[:, None]
    return lo[0], hi[0]
