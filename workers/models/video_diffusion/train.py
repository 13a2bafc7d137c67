"""Train the small video diffusion model on the moving-shapes dataset, cached by config hash.

    .venv/bin/python -m workers.models.video_diffusion.train [--ae-steps N] [--steps N]

Training: (1) the frame autoencoder (L1 + MSE reconstruction on random frames), then the latent
scale is set so that latents have unit standard deviation; (2) the eps-net with the standard
DDPM objective (uniform t, MSE on eps) on encoded videos of random prompts. The artifact
(`model.pt` + `training.json`) lives in `<data dir>/video_diffusion/<config hash>/`; training
writes to a temporary directory and renames it, so concurrent runs never see half a model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch.nn import functional as F

from workers.models.video_diffusion.data import N_CLASSES, VideoSpec, sample_videos
from workers.models.video_diffusion.model import EpsNet, FrameAutoencoder, SmallVideoDiffusion

CACHE_NAME = "video_diffusion"
FORMAT = 1


@dataclass(frozen=True)
class VideoModelConfig:
    frames: int = 8
    size: int = 32
    latent_channels: int = 4
    ae_width: int = 24
    ae_steps: int = 500
    width: int = 32
    blocks: int = 2
    steps: int = 1500
    batch: int = 16
    lr: float = 2e-3
    seed: int = 0

    def cache_key(self) -> str:
        payload = json.dumps({"format": FORMAT, **asdict(self)}, sort_keys=True).encode()
        return hashlib.sha256(payload).hexdigest()[:16]

    @property
    def spec(self) -> VideoSpec:
        return VideoSpec(self.frames, self.size)


def build(cfg: VideoModelConfig) -> SmallVideoDiffusion:
    latent = cfg.size // 4
    ae = FrameAutoencoder(cfg.latent_channels, cfg.ae_width)
    net = EpsNet(cfg.latent_channels, cfg.width, cfg.blocks, N_CLASSES, cfg.frames, latent)
    return SmallVideoDiffusion(ae, net, cfg.frames, latent)


def _log(ctx, msg: str) -> None:
    if ctx is not None:
        ctx.log(msg)


def train(cfg: VideoModelConfig, ctx=None, progress=None) -> tuple[SmallVideoDiffusion, dict]:
    gen = torch.Generator().manual_seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    model = build(cfg)
    spec = cfg.spec
    t0 = time.perf_counter()
    ae = model.ae
    opt = torch.optim.Adam(ae.parameters(), lr=cfg.lr)
    total = cfg.ae_steps + cfg.steps
    ae_loss = float("nan")
    for step in range(cfg.ae_steps):
        video, _ = sample_videos(max(cfg.batch // 4, 2), spec, gen)
        frames = video.flatten(0, 1)
        x = frames * 2 - 1
        rec = ae.dec(ae.enc(x))
        loss = F.mse_loss(rec, x) + 0.5 * (rec - x).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ae_loss = loss.item()
        if progress and step % 100 == 0:
            progress(step, total)
    with torch.no_grad():
        video, _ = sample_videos(64, spec, gen)
        ae.scale.fill_(float(ae.enc(video.flatten(0, 1) * 2 - 1).std()))
        rec_err = float((ae.decode(ae.encode(video)) - video).abs().mean())
    ae.requires_grad_(False)
    _log(
        ctx,
        f"autoencoder: {cfg.ae_steps} steps, loss {ae_loss:.4f}, recon L1 {rec_err:.4f}, "
        f"latent scale {float(ae.scale):.3f}",
    )

    net = model.net
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, cfg.lr, total_steps=max(cfg.steps, 1), pct_start=0.05
    )
    ac = model.alphas_cumprod
    ema = {k: v.detach().clone() for k, v in net.state_dict().items()}
    losses = []
    for step in range(cfg.steps):
        video, attrs = sample_videos(cfg.batch, spec, gen)
        with torch.no_grad():
            z0 = ae.encode(video)
        t = torch.randint(len(ac), (cfg.batch,), generator=gen)
        a = ac[t].view(-1, 1, 1, 1, 1)
        noise = torch.randn(z0.shape, generator=gen)
        zt = a.sqrt() * z0 + (1 - a).sqrt() * noise
        loss = F.mse_loss(net(zt, t, attrs), noise)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(loss.item())
        with torch.no_grad():
            decay = min(0.995, (1 + step) / (10 + step))
            for k, v in net.state_dict().items():
                if v.dtype.is_floating_point:
                    ema[k].mul_(decay).add_(v.detach(), alpha=1 - decay)
        if progress and step % 100 == 0:
            progress(cfg.ae_steps + step, total)
    net.load_state_dict(ema)
    tail = losses[-200:] or [float("nan")]
    record = {
        "config": asdict(cfg),
        "cache_key": cfg.cache_key(),
        "ae_recon_l1": rec_err,
        "latent_scale": float(ae.scale),
        "eps_loss_final": sum(tail) / len(tail),
        "train_seconds": time.perf_counter() - t0,
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    _log(
        ctx,
        f"eps-net: {cfg.steps} steps, final loss {record['eps_loss_final']:.4f}, "
        f"{record['train_seconds']:.0f} s, {record['parameters']} parameters",
    )
    model.eval()
    return model, record


def cache_root(ctx=None, cache_dir: str | Path | None = None) -> Path:
    if cache_dir is not None:
        root = Path(cache_dir)
    elif ctx is not None:
        root = ctx.data_path(CACHE_NAME)
    else:
        root = Path(os.environ.get("CRUCIBLE_DATA_DIR", "var/data")) / CACHE_NAME
    root.mkdir(parents=True, exist_ok=True)
    return root


def get_or_train(
    cfg: VideoModelConfig | dict | None = None,
    ctx=None,
    *,
    cache_dir: str | Path | None = None,
    progress=None,
) -> tuple[SmallVideoDiffusion, dict]:
    """The trained model for `cfg` (trained and cached on first use) and its training record."""
    if cfg is None:
        cfg = VideoModelConfig()
    elif isinstance(cfg, dict):
        cfg = VideoModelConfig(**cfg)
    root = cache_root(ctx, cache_dir)
    final = root / cfg.cache_key()
    if not (final / "training.json").is_file():
        model, record = train(cfg, ctx, progress)
        tmp = Path(tempfile.mkdtemp(prefix=f".{cfg.cache_key()}-", dir=root))
        try:
            torch.save(model.state_dict(), tmp / "model.pt")
            (tmp / "training.json").write_text(json.dumps(record, indent=1))
            try:
                os.replace(tmp, final)
            except OSError:  # another run finished first: keep theirs
                if not (final / "training.json").is_file():
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return model, record
    _log(ctx, f"reusing cached video diffusion model {final}")
    model = build(cfg)
    model.load_state_dict(torch.load(final / "model.pt", map_location="cpu", weights_only=True))
    model.ae.requires_grad_(False)
    model.net.requires_grad_(False)
    model.eval()
    return model, json.loads((final / "training.json").read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description="train (or reuse) the small video diffusion model")
    ap.add_argument("--ae-steps", type=int, default=VideoModelConfig.ae_steps)
    ap.add_argument("--steps", type=int, default=VideoModelConfig.steps)
    ap.add_argument("--width", type=int, default=VideoModelConfig.width)
    args = ap.parse_args()
    cfg = VideoModelConfig(ae_steps=args.ae_steps, steps=args.steps, width=args.width)

    class _Echo:
        def log(self, m):
            print(m, flush=True)

        def data_path(self, name):
            return cache_root(None) if name == CACHE_NAME else Path(name)

    _, record = get_or_train(cfg, _Echo(), progress=lambda d, t: print(f"{d}/{t}", flush=True))
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
