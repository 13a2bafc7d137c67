"""Corpus trends from arXiv metadata: surveys per month and category, the share of surveys
among all papers, and audit metrics over time, as Plotly figures."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import plotly.graph_objects as go

from workers.surveys.index import IndexPaper

# A title that calls itself a survey/review/overview. "Peer review" and "code review" are
# topics, not genres, and are excluded; surveys that do not say so in the title are missed.
_SURVEY = re.compile(
    r"\b(survey|surveys|overview|systematic (literature )?review|literature review|review)\b", re.I
)
_NOT = re.compile(r"\b(peer|code|paper|product|user|movie)[- ]reviews?\b", re.I)


def is_survey(title: str) -> bool:
    return bool(_SURVEY.search(title)) and not _NOT.search(title)


def monthly_counts(
    papers: list[IndexPaper], categories: list[str] | None = None
) -> dict[str, dict]:
    """{YYYY-MM: {"total": n, "surveys": s, "by_category": {cat: surveys}}} by first-version date;
    a paper counts under its primary (first) category. `categories` restricts to those."""
    out: dict[str, dict] = defaultdict(lambda: {"total": 0, "surveys": 0, "by_category": Counter()})
    for p in papers:
        if not p.published or (categories and not set(p.categories) & set(categories)):
            continue
        month = p.published[:7]
        out[month]["total"] += 1
        if is_survey(p.title):
            out[month]["surveys"] += 1
            out[month]["by_category"][p.categories[0] if p.categories else "unknown"] += 1
    return dict(sorted(out.items()))


def figure_surveys_per_month(counts: dict[str, dict]) -> go.Figure:
    months = list(counts)
    cats = sorted({c for v in counts.values() for c in v["by_category"]})
    fig = go.Figure(
        [
            go.Bar(x=months, y=[counts[m]["by_category"].get(c, 0) for m in months], name=c)
            for c in cats
        ]
    )
    fig.update_layout(
        barmode="stack",
        title="Surveys submitted per month, by primary category",
        xaxis_title="month",
        yaxis_title="surveys",
    )
    return fig


def figure_survey_share(counts: dict[str, dict]) -> go.Figure:
    months = list(counts)
    share = [
        counts[m]["surveys"] / counts[m]["total"] if counts[m]["total"] else 0.0 for m in months
    ]
    fig = go.Figure(go.Scatter(x=months, y=share, mode="lines+markers", name="share of surveys"))
    fig.update_layout(
        title="Share of surveys among all submissions",
        xaxis_title="month",
        yaxis_title="surveys / papers",
        yaxis_tickformat=".0%",
    )
    return fig


def figure_metrics_over_time(
    points: list[tuple[str, dict[str, float]]], metrics: list[str]
) -> go.Figure:
    """Mean of each audit metric per month over the audited surveys: points = (date, scorecard)."""
    by_month: dict[str, list[dict]] = defaultdict(list)
    for when, card in points:
        by_month[when[:7]].append(card)
    months = sorted(by_month)
    fig = go.Figure()
    for name in metrics:
        ys = []
        for m in months:
            vals = [c[name] for c in by_month[m] if name in c and c[name] == c[name]]
            ys.append(sum(vals) / len(vals) if vals else None)
        fig.add_trace(go.Scatter(x=months, y=ys, mode="lines+markers", name=name))
    fig.update_layout(
        title="Audit metrics over time (monthly mean)", xaxis_title="month", yaxis_title="value"
    )
    return fig
