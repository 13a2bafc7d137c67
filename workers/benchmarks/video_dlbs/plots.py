"""Run-page artifacts: animated GIFs of the videos and Plotly reward-versus-budget curves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch


def video_grid(videos: list[torch.Tensor], scale: int = 3, gap: int = 2) -> np.ndarray:
    """Tile videos side by side. videos: columns, each [R, F, 3, H, W] (rows = prompts) ->
    uint8 frames [F, R*(H+gap), C*(W+gap), 3]."""
    cols = len(videos)
    R, Fr, _, H, W = videos[0].shape
    out = np.full((Fr, R * (H + gap) * scale, cols * (W + gap) * scale, 3), 255, dtype=np.uint8)
    for c, v in enumerate(videos):
        arr = (v.clamp(0, 1).permute(0, 1, 3, 4, 2).numpy() * 255).astype(np.uint8)
        arr = arr.repeat(scale, axis=2).repeat(scale, axis=3)
        for r in range(R):
            y, x = r * (H + gap) * scale, c * (W + gap) * scale
            out[:, y : y + H * scale, x : x + W * scale] = arr[r]
    return out


def save_gif(
    frames: np.ndarray, path: str | Path, header: list[str] | None = None, ms_per_frame: int = 160
) -> Path:
    """Animated GIF (looping) from uint8 frames [F, H, W, 3], with an optional text header
    (one label per equal-width column)."""
    from PIL import Image, ImageDraw

    images = []
    for frame in frames:
        img = Image.fromarray(frame)
        if header:
            top = 14
            canvas = Image.new("RGB", (img.width, img.height + top), "white")
            canvas.paste(img, (0, top))
            draw = ImageDraw.Draw(canvas)
            col = img.width / len(header)
            for k, label in enumerate(header):
                draw.text((k * col + 2, 1), label[: int(col // 6)], fill="black")
            img = canvas
        images.append(img.convert("P", palette=Image.ADAPTIVE))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=ms_per_frame, loop=0)
    return path


def curves_figure(
    curves: dict[str, dict[str, list[float]]], x_title: str, y_title: str, title: str
):
    """One line per sampler with 95% CI error bars: curves[name] = {"x", "mean", "ci"}."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, c in curves.items():
        fig.add_trace(
            go.Scatter(
                x=c["x"],
                y=c["mean"],
                name=name,
                mode="lines+markers",
                error_y={"type": "data", "array": c["ci"], "visible": True},
            )
        )
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title)
    if x_title.startswith("KB") or x_title.startswith("NFE") or "steps" in x_title:
        fig.update_xaxes(type="log")
    return fig
