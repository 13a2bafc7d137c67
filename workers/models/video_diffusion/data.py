"""Moving coloured shapes: a text-to-video dataset generated on the fly.

A prompt names four attributes, e.g. "a red circle moving left fast": colour (4), shape (3),
direction (4) and speed (2), so 96 prompts. A video is `frames` frames of `size` x `size` RGB in
[0, 1]: one anti-aliased shape on a dark background moving in a straight line at the prompt's
speed (pixels per frame), starting at a random position chosen so it stays inside the frame.
Videos are tensors shaped [N, F, 3, H, W].
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch

COLOURS = ("red", "green", "blue", "yellow")
SHAPES = ("square", "circle", "triangle")
DIRECTIONS = ("left", "right", "up", "down")
SPEEDS = ("slow", "fast")
ATTRIBUTES = (("colour", COLOURS), ("shape", SHAPES), ("direction", DIRECTIONS), ("speed", SPEEDS))
N_CLASSES = tuple(len(values) for _, values in ATTRIBUTES)

RGB = torch.tensor([[1.0, 0.15, 0.15], [0.15, 0.9, 0.2], [0.2, 0.35, 1.0], [1.0, 0.9, 0.1]])
BACKGROUND = 0.05
# (dx, dy) per unit of speed; image y grows downwards
UNIT = torch.tensor([[-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]])


@dataclass(frozen=True)
class VideoSpec:
    frames: int = 8
    size: int = 32

    @property
    def radius(self) -> float:
        return self.size * 5 / 32

    def speed_px(self, speed: torch.Tensor) -> torch.Tensor:
        """Pixels per frame: slow = size/32, fast = 2.5 * size/32 (in 8 frames: 7 or 17.5 px at 32)."""
        return torch.where(speed == 0, 1.0, 2.5) * (self.size / 32) * (8 / self.frames)


ALL_PROMPTS = torch.tensor(
    list(itertools.product(*(range(n) for n in N_CLASSES))), dtype=torch.long
)


def prompt_text(attrs) -> str:
    c, s, d, v = (int(a) for a in attrs)
    return f"a {COLOURS[c]} {SHAPES[s]} moving {DIRECTIONS[d]} {SPEEDS[v]}"


def parse_prompt(text: str) -> torch.Tensor:
    words = text.lower().replace(",", " ").split()
    out = []
    for name, values in ATTRIBUTES:
        hits = [i for i, v in enumerate(values) if v in words]
        if len(hits) != 1:
            raise ValueError(f"prompt {text!r} must name exactly one {name} of {values}")
        out.append(hits[0])
    return torch.tensor(out, dtype=torch.long)


def random_attrs(n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    idx = torch.randint(len(ALL_PROMPTS), (n,), generator=generator)
    return ALL_PROMPTS[idx]


def random_starts(
    attrs: torch.Tensor, spec: VideoSpec, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Start centres [N, 2] (x, y) keeping the whole trajectory inside the frame."""
    n = len(attrs)
    margin = spec.radius + 1.0
    travel = spec.speed_px(attrs[:, 3]) * (spec.frames - 1)
    u = torch.rand(n, 2, generator=generator)
    lo = torch.full((n, 2), margin)
    hi = torch.full((n, 2), spec.size - 1 - margin)
    unit = UNIT[attrs[:, 2]]
    lo = (
        lo + torch.clamp(-unit, min=0) * travel[:, None]
    )  # moving left/up: start further right/down
    hi = hi - torch.clamp(unit, min=0) * travel[:, None]
    return lo + u * (hi - lo)


def render(attrs: torch.Tensor, starts: torch.Tensor, spec: VideoSpec) -> torch.Tensor:
    """Videos [N, F, 3, H, W] for attributes [N, 4] and start centres [N, 2]."""
    n, F, H = len(attrs), spec.frames, spec.size
    t = torch.arange(F, dtype=torch.float32)
    vel = UNIT[attrs[:, 2]] * spec.speed_px(attrs[:, 3])[:, None]  # [N, 2]
    centres = starts[:, None, :] + t[None, :, None] * vel[:, None, :]  # [N, F, 2]
    coords = torch.arange(H, dtype=torch.float32)
    dx = coords[None, None, None, :] - centres[..., 0, None, None]  # [N, F, 1, W]
    dy = coords[None, None, :, None] - centres[..., 1, None, None]  # [N, F, H, 1]
    r = spec.radius
    shape = attrs[:, 1].view(n, 1, 1, 1)
    d_square = torch.maximum(dx.abs(), dy.abs()) - r * 0.85
    d_circle = torch.sqrt(dx**2 + dy**2) - r
    # upward triangle: apex at (0, -r), base at y = +r; distance-like value to its edges
    d_tri = torch.maximum(dy - r * 0.9, (dx.abs() * 2 - (dy + r)) / 2.236)
    dist = torch.where(shape == 0, d_square, torch.where(shape == 1, d_circle, d_tri))
    alpha = torch.sigmoid(-dist / 0.35)  # anti-aliased edge, [N, F, H, W]
    colour = RGB[attrs[:, 0]].view(n, 1, 3, 1, 1)
    return BACKGROUND + alpha[:, :, None] * (colour - BACKGROUND)


def sample_videos(
    n: int,
    spec: VideoSpec,
    generator: torch.Generator | None = None,
    attrs: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(videos [N, F, 3, H, W], attributes [N, 4]) of random prompts (or the given ones)."""
    if attrs is None:
        attrs = random_attrs(n, generator)
    return render(attrs, random_starts(attrs, spec, generator), spec), attrs


def corrupt(
    videos: torch.Tensor, level: torch.Tensor, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Degrade each video by `level` in [0, 1] (per video): blur, ghosting and pixel noise, the
    artefacts an under-trained generator shows. Used to train the quality critic."""
    n = videos.shape[0]
    lv = level.view(n, 1, 1, 1, 1)
    flat = videos.flatten(0, 1)
    blurred = torch.nn.functional.avg_pool2d(flat, 3, 1, 1, count_include_pad=False).view_as(videos)
    out = videos + lv.clamp(max=0.5) * 2 * (blurred - videos)
    shift = torch.roll(out, shifts=(2, 2), dims=(3, 4))
    out = out + 0.5 * lv * (shift - out) * (torch.rand(n, 1, 1, 1, 1, generator=generator) < 0.5)
    out = out + lv * 0.25 * torch.randn(videos.shape, generator=generator)
    return out.clamp(0, 1)
