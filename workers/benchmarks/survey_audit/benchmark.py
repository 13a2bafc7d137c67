"""The `survey_audit` benchmark: audit a survey (uploaded files, or a generated fixture with
known fabricated references) against a bibliographic index and a corpus of other surveys.

Method interface: `method.audit(survey, *, index, corpus, topic_papers, device) -> AuditReport`
(workers.methods.survey_auditor). A corpus audit (`audit_corpus`) audits every survey of
`corpus_dir` too and charts the metrics over time; `trends` charts arXiv submission trends.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Literal

from pydantic import Field

from workers.benchmarks.survey_audit import plots
from workers.benchmarks.survey_audit.paper import LIN_2025
from workers.core import Benchmark, MetricSpec, PluginConfig, RunContext, register_benchmark
from workers.core.data import DatasetSpec
from workers.surveys import trends
from workers.surveys.audit import hallucination_detection
from workers.surveys.fixtures import generate_fixture
from workers.surveys.index import load_index
from workers.surveys.ingest import load_survey

SURVEY_SUFFIXES = (".tex", ".md", ".markdown", ".pdf")


class SurveyAuditConfig(PluginConfig):
    topic: str = Field(
        "",
        max_length=100,
        description="topic of the survey: audits of one topic form its leaderboard",
    )
    source: Literal["fixture", "files"] = Field(
        "fixture",
        description="'fixture': a generated survey with known fabricated references; 'files': your files",
    )
    survey_path: str = Field(
        "",
        max_length=500,
        description="survey .tex/.md/.pdf; relative paths are under the data "
        "cache's surveys/ folder (where uploads go)",
    )
    bib_path: str = Field(
        "", max_length=500, description="optional .bib (default: the one the survey names)"
    )
    index_paths: str = Field(
        "",
        max_length=2000,
        description="comma-separated index files: arXiv .jsonl, .bib, DBLP .xml",
    )
    corpus_dir: str = Field(
        "", max_length=500, description="folder of other surveys on the topic (.tex/.md/.pdf)"
    )
    audit_corpus: bool = Field(
        False, description="also audit every survey in the corpus (metrics over time)"
    )
    categories: str = Field(
        "", max_length=200, description="comma-separated arXiv categories for trends (empty = all)"
    )
    trends: bool = Field(True, description="chart arXiv submission trends from the index")
    fixture_papers: int = Field(
        200, ge=40, le=20000, description="fixture: papers in the generated arXiv index"
    )
    fixture_refs: int = Field(
        30, ge=5, le=500, description="fixture: references in the audited survey"
    )
    fixture_fabricated: int = Field(
        5, ge=0, le=100, description="fixture: how many of them are fabricated"
    )
    fixture_other_surveys: int = Field(
        3, ge=1, le=20, description="fixture: other surveys in the corpus"
    )


def _resolve(ctx: RunContext, raw: str, field: str) -> Path:
    path = Path(raw)
    path = path if path.is_absolute() else ctx.data_path("surveys") / path
    if not path.exists():
        raise ValueError(f"{field}: {path} does not exist")
    return path


def _clean(card: dict) -> dict:
    return {
        k: float(v) for k, v in card.items() if isinstance(v, (int, float)) and not math.isnan(v)
    }


@register_benchmark
class SurveyAuditBenchmark(Benchmark):
    name = "survey_audit"
    title = "Survey-quality audit"
    description = (
        "Reference validity (suspected hallucinations with closest candidates), citation overlap, semantic "
        "similarity, redundancy, taxonomy originality, density, coverage, recency and machine-generation "
        "indicators of a survey; corpus trends from arXiv metadata."
    )
    paper = LIN_2025
    Config = SurveyAuditConfig
    metrics = (
        MetricSpec(
            "reference_validity",
            "max",
            primary=True,
            description="share of references found in the index",
        ),
        MetricSpec("suspected_hallucinations", "min", description="references matched by nothing"),
        MetricSpec(
            "hallucination_f1",
            "max",
            description="fixture only: F1 of flags vs the known fabrications",
        ),
        MetricSpec("hallucination_precision", "max", description="fixture only"),
        MetricSpec("hallucination_recall", "max", description="fixture only"),
        MetricSpec(
            "max_citation_jaccard",
            "min",
            description="largest reference-list Jaccard with another survey",
        ),
        MetricSpec(
            "max_semantic_similarity", "min", description="largest cosine with another survey"
        ),
        MetricSpec("redundancy", "min", description="share of paragraphs with a near-duplicate"),
        MetricSpec(
            "taxonomy_originality",
            "max",
            description="1 - section-tree similarity to the closest prior survey",
        ),
        MetricSpec(
            "citations_per_1k_words", "max", description="in-text citations per 1,000 words"
        ),
        MetricSpec(
            "topk_coverage", "max", description="share of the topic's K most-cited works cited"
        ),
        MetricSpec("median_age", "min", unit="years", description="median reference age"),
        MetricSpec(
            "marker_rate", "min", description="LLM-marker words per 1,000 words (indicator only)"
        ),
    )
    datasets = (
        DatasetSpec(
            "survey-fixture", "generator", "generated LaTeX survey + .bib + arXiv-format index"
        ),
        DatasetSpec(
            "survey-upload", "upload", "a survey (.tex+.bib, .md, .pdf) and index files you upload"
        ),
    )

    def _inputs(self, ctx: RunContext):
        c = self.config
        if c.source == "fixture":
            fx = generate_fixture(
                ctx.scratch_dir(),
                seed=ctx.seed,
                n_papers=c.fixture_papers,
                n_refs=c.fixture_refs,
                n_fabricated=min(c.fixture_fabricated, c.fixture_refs),
                n_other_surveys=c.fixture_other_surveys,
            )
            return fx.tex_path, fx.bib_path, [fx.index_path], fx.corpus_paths, fx.fabricated
        if not c.survey_path:
            raise ValueError("survey_path: required when source is 'files'")
        if not c.index_paths:
            raise ValueError("index_paths: required when source is 'files'")
        survey = _resolve(ctx, c.survey_path, "survey_path")
        bib = _resolve(ctx, c.bib_path, "bib_path") if c.bib_path else None
        index = [
            _resolve(ctx, p.strip(), "index_paths") for p in c.index_paths.split(",") if p.strip()
        ]
        corpus = []
        if c.corpus_dir:
            corpus = sorted(
                p
                for p in _resolve(ctx, c.corpus_dir, "corpus_dir").iterdir()
                if p.suffix.lower() in SURVEY_SUFFIXES
            )
        return survey, bib, index, corpus, None

    def run(self, ctx: RunContext, method) -> None:
        survey_path, bib_path, index_paths, corpus_paths, fabricated = self._inputs(ctx)
        steps = 4 + (len(corpus_paths) if self.config.audit_corpus else 0)
        digest = hashlib.sha256(
            b"".join(Path(p).read_bytes() for p in [survey_path, *index_paths] if p.is_file())
        )
        ctx.record_dataset("survey-" + self.config.source, digest.hexdigest(), str(survey_path))
        ctx.progress(0, steps, "loading index and surveys")
        index = load_index(*index_paths)
        survey = load_survey(survey_path, bib_path)
        corpus = [load_survey(p) for p in corpus_paths]
        ctx.log(
            f"index: {len(index)} papers; survey '{survey.title}' with {len(survey.references)} references; "
            f"corpus: {len(corpus)} surveys"
        )
        cats = [x.strip() for x in self.config.categories.split(",") if x.strip()]
        topic = [p for p in index.papers if set(p.categories) & set(cats)] if cats else None
        ctx.progress(1, steps, "auditing")
        ctx.check_cancelled()
        report = method.audit(
            survey, index=index, corpus=corpus, topic_papers=topic, device=str(ctx.device)
        )
        summary = _clean(report.scorecard)
        if fabricated is not None:
            summary.update(hallucination_detection(report, fabricated))
            report.details["ground_truth_fabricated"] = sorted(fabricated)
        ctx.log_summary(**summary)
        ctx.save_artifact("audit_report.json", report.as_dict())
        ctx.progress(2, steps, "plots")
        ctx.save_artifact("reference_status", plots.figure_reference_status(report))
        ctx.save_artifact("recency_profile", plots.figure_recency(report))
        if corpus:
            ctx.save_artifact("corpus_overlap", plots.figure_overlap(report))
        ctx.progress(3, steps, "trends")
        if self.config.trends:
            counts = trends.monthly_counts(index.papers, cats or None)
            ctx.save_artifact("trend_surveys_per_month", trends.figure_surveys_per_month(counts))
            ctx.save_artifact("trend_survey_share", trends.figure_survey_share(counts))
        if self.config.audit_corpus and corpus:
            cards = [(survey.title, report.scorecard)]
            points = [(f"{survey.year or 0:04d}-01", report.scorecard)]
            for i, other in enumerate(corpus):
                ctx.check_cancelled()
                rep = method.audit(
                    other,
                    index=index,
                    corpus=[survey, *corpus],
                    topic_papers=topic,
                    device=str(ctx.device),
                )
                cards.append((other.title, rep.scorecard))
                points.append((f"{other.year or 0:04d}-01", rep.scorecard))
                ctx.log_metrics(
                    i,
                    **{
                        k: v
                        for k, v in _clean(rep.scorecard).items()
                        if k in ("reference_validity", "redundancy", "taxonomy_originality")
                    },
                )
                ctx.progress(4 + i, steps, f"corpus survey {i + 1}/{len(corpus)}")
            keys = [
                "reference_validity",
                "redundancy",
                "taxonomy_originality",
                "topk_coverage",
                "max_citation_jaccard",
            ]
            ctx.save_artifact("corpus_scorecards", plots.figure_scorecard(cards, keys))
            ctx.save_artifact("trend_audit_metrics", trends.figure_metrics_over_time(points, keys))
            ctx.save_artifact(
                "corpus_audit.json", [{"survey": t, "scorecard": c} for t, c in cards]
            )
        ctx.progress(steps, steps, "done")
