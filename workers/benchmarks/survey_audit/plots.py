"""Plotly figures of one audit report."""

from __future__ import annotations

from collections import Counter

import plotly.graph_objects as go

from workers.surveys.audit import AuditReport


def figure_reference_status(report: AuditReport) -> go.Figure:
    counts = Counter(m["status"] for m in report.details["matches"].values())
    order = [s for s in ("doi", "arxiv", "fuzzy", "online", "unmatched") if s in counts]
    colors = {"unmatched": "#c92a2a"}
    fig = go.Figure(
        go.Bar(
            x=order,
            y=[counts[s] for s in order],
            marker_color=[colors.get(s, "#3b5bdb") for s in order],
        )
    )
    fig.update_layout(
        title="References by how they were verified", xaxis_title="match", yaxis_title="references"
    )
    return fig


def figure_recency(report: AuditReport) -> go.Figure:
    fig = go.Figure(go.Histogram(x=report.details["reference_years"], xbins={"size": 1}))
    fig.update_layout(
        title="Recency profile: reference publication years",
        xaxis_title="year",
        yaxis_title="references",
    )
    return fig


def figure_overlap(report: AuditReport) -> go.Figure:
    rows = report.details["overlap"]
    names = [r["survey"][:40] for r in rows]
    fig = go.Figure(
        [
            go.Bar(x=names, y=[r["jaccard"] for r in rows], name="citation Jaccard"),
            go.Bar(x=names, y=[r["semantic"] or 0 for r in rows], name="semantic cosine"),
        ]
    )
    fig.update_layout(
        barmode="group", title="Overlap with other surveys in the corpus", yaxis_range=[0, 1]
    )
    return fig


def figure_scorecard(cards: list[tuple[str, dict]], metrics: list[str]) -> go.Figure:
    """Audited surveys side by side (a corpus audit): one bar group per metric."""
    fig = go.Figure(
        [
            go.Bar(x=metrics, y=[card.get(m) for m in metrics], name=title[:40])
            for title, card in cards
        ]
    )
    fig.update_layout(
        barmode="group", title="Score cards of the audited surveys", yaxis_range=[0, 1]
    )
    return fig
