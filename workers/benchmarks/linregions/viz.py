"""Plotly figures: regions of a 2-D-input network coloured per definition, and run time vs size."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from workers.methods.linregions.network import ReLUNetwork
from workers.methods.linregions.regions import RegionCounts
from workers.methods.linregions.sampling import grid_points


def _shuffle_ids(ids: np.ndarray, seed: int = 0) -> np.ndarray:
    """Permute label ids so neighbouring regions get distant colours."""
    vals = np.unique(ids[ids >= 0])
    perm = np.random.default_rng(seed).permutation(len(vals))
    out = np.full(ids.shape, np.nan)
    for v, q in zip(vals, perm, strict=True):
        out[ids == v] = q
    return out


def region_figure(
    net: ReLUNetwork, counts: RegionCounts, box: float, resolution: int = 200, title: str = ""
) -> go.Figure:
    """Four heatmaps: full-dimensional activation regions, convex pieces (minimum cover), connected
    pieces and distinct affine functions, each pixel coloured by the region it lies in."""
    if net.input_dim != 2:
        raise ValueError(f"region plots need a 2-D input, got input_dim={net.input_dim}")
    pts = grid_points(2, box, resolution)
    pats = net.patterns(pts)
    index = {c.pattern: i for i, c in enumerate(counts.cells)}
    cell_id = np.array([index.get(tuple(p), -1) for p in pats])
    comp_of = np.full(len(counts.cells), -1)
    for k, comp in enumerate(counts.components):
        comp_of[comp] = k
    keys: dict[tuple, int] = {}
    aff_of = np.array(
        [
            keys.setdefault(tuple(np.round(np.concatenate([c.G.ravel(), c.g]), 8) + 0.0), len(keys))
            for c in counts.cells
        ]
        or [0]
    )
    cover_of = np.full(len(counts.cells), -1)
    for k, union in enumerate(counts.convex_cover):
        for i in union:
            if cover_of[i] < 0:
                cover_of[i] = k
    valid = cell_id >= 0
    layers = {
        f"activation regions ({counts.full_dim} full-dim, {counts.nonempty} non-empty)": cell_id,
        f"convex pieces (min cover {counts.convex_min_cover}, maximal {counts.convex_maximal})": np.where(
            valid, cover_of[np.maximum(cell_id, 0)], -1
        ),
        f"connected pieces ({counts.connected})": np.where(
            valid, comp_of[np.maximum(cell_id, 0)], -1
        ),
        f"distinct affine functions ({counts.distinct_affine})": np.where(
            valid, aff_of[np.maximum(cell_id, 0)], -1
        ),
    }
    fig = make_subplots(
        rows=2, cols=2, subplot_titles=list(layers), horizontal_spacing=0.08, vertical_spacing=0.12
    )
    axis = grid_points(1, box, resolution)[:, 0]
    for k, ids in enumerate(layers.values()):
        z = _shuffle_ids(
            ids.reshape(resolution, resolution)
        ).T  # grid is indexed (x1, x2); heatmap rows are x2
        fig.add_trace(
            go.Heatmap(x=axis, y=axis, z=z, colorscale="Turbo", showscale=False),
            row=k // 2 + 1,
            col=k % 2 + 1,
        )
    fig.update_layout(title=title or "Linear regions per definition", height=800, width=800)
    return fig


def runtime_figure(sizes: list[int], series: dict[str, list[float]], title: str) -> go.Figure:
    """Mean seconds per network vs number of hidden neurons, log-scale y."""
    fig = go.Figure()
    for name, secs in series.items():
        fig.add_trace(go.Scatter(x=sizes, y=secs, mode="lines+markers", name=name))
    fig.update_layout(
        title=title,
        xaxis_title="hidden neurons",
        yaxis_title="seconds per network",
        yaxis_type="log",
    )
    return fig
