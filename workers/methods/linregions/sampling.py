"""Grid-sampling estimates of region counts (the approximate baseline, and the brute-force check).

A regular grid over the box [-box, box]^d (d <= 3) is labelled by activation pattern and by
affine function; counts are the distinct labels seen, and, for connected pieces, the connected
components of each affine label on the grid (face-neighbour connectivity). Regions thinner than
the grid spacing are missed, so these are lower bounds up to discretisation.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from workers.methods.linregions.network import ReLUNetwork


def grid_points(d: int, box: float, resolution: int) -> np.ndarray:
    """Cell centres of a resolution^d grid, each axis shifted by a different fraction of a cell so
    that grid points do not fall exactly on the symmetric hyperplanes of hand-built networks
    (x1 = 0, x1 = x2), which would show lower-dimensional patterns."""
    h = 2.0 * box / resolution
    axes = [
        -box + (np.arange(resolution) + 0.5 + 0.1 * (j + 1) / np.sqrt(2.0)) * h for j in range(d)
    ]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)


def grid_labels(
    net: ReLUNetwork, box: float, resolution: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pattern_id, affine_id, points) over the grid; ids are shaped (resolution,)*d."""
    d = net.input_dim
    if d > 3:
        raise ValueError(f"grid sampling supports input_dim <= 3, got {d}")
    pts = grid_points(d, box, resolution)
    pats = net.patterns(pts)
    uniq, pattern_id = np.unique(pats, axis=0, return_inverse=True)
    keys = []
    for u in uniq:
        _, (G, g) = net.layer_maps(u)
        keys.append(tuple(np.round(np.concatenate([G.ravel(), g]), 8) + 0.0))
    key_index: dict[tuple, int] = {}
    affine_of_pattern = np.array([key_index.setdefault(k, len(key_index)) for k in keys])
    shape = (resolution,) * d
    pattern_id = pattern_id.reshape(shape)
    return pattern_id, affine_of_pattern[pattern_id], pts


def grid_counts(net: ReLUNetwork, box: float = 3.0, resolution: int = 400) -> dict[str, int]:
    """Estimated full-dimensional activation regions, connected pieces and distinct functions."""
    pattern_id, affine_id, _ = grid_labels(net, box, resolution)
    connected = 0
    for a in np.unique(affine_id):
        _, k = ndimage.label(affine_id == a)
        connected += k
    return {
        "full_dim": int(len(np.unique(pattern_id))),
        "connected": int(connected),
        "distinct_affine": int(len(np.unique(affine_id))),
    }


def connected_label_image(affine_id: np.ndarray) -> np.ndarray:
    """Give every connected component of every affine label its own id (for plotting)."""
    out = np.zeros_like(affine_id)
    nxt = 0
    for a in np.unique(affine_id):
        lab, k = ndimage.label(affine_id == a)
        out[lab > 0] = lab[lab > 0] - 1 + nxt
        nxt += k
    return out
