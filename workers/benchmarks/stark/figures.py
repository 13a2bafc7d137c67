"""Plotly figures for a STARK run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from workers.benchmarks.stark.catalogue import FAMILIES
from workers.benchmarks.stark.scoring import InstanceScore


def error_by_family(scores: Sequence[InstanceScore]) -> go.Figure:
    """Left: failure rate (1 - success) per task family. Right: tier-1 normalised error per task."""
    fam: dict[str, list[float]] = defaultdict(list)
    nerr: dict[str, list[float]] = defaultdict(list)
    for s in scores:
        if not s.applicable:
            continue
        fam[s.family].append(0.0 if s.success else 1.0)
        if s.tier == 1 and s.normalised_error is not None:
            nerr[s.task].append(s.normalised_error)
    fig = make_subplots(
        rows=1, cols=2, subplot_titles=("Failure rate per family", "Tier-1 normalised error")
    )
    names = [f for f in FAMILIES if f in fam]
    fig.add_trace(
        go.Bar(
            x=names,
            y=[float(np.mean(fam[f])) for f in names],
            name="failure rate",
            text=[f"n={len(fam[f])}" for f in names],
        ),
        row=1,
        col=1,
    )
    tasks = sorted(nerr)
    fig.add_trace(
        go.Box(
            x=[t for t in tasks for _ in nerr[t]],
            y=[v for t in tasks for v in nerr[t]],
            name="normalised error",
            boxpoints="all",
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_layout(showlegend=False, height=450)
    return fig
