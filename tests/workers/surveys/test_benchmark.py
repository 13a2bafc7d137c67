"""The survey_audit benchmark end to end through InMemoryRunContext."""

from __future__ import annotations

import json
import shutil

import pytest

from workers.benchmarks.survey_audit import SurveyAuditBenchmark
from workers.core import InMemoryRunContext
from workers.core.config import ConfigError
from workers.core.context import RunCancelled
from workers.methods.survey_auditor import SurveyAuditor, SurveyAuditorIdOnly
from workers.surveys.fixtures import generate_fixture


def _run(bench_cfg, method="survey_auditor", method_cfg=None, **ctx_kw):
    ctx = InMemoryRunContext(**ctx_kw)
    # Direct imports: registry discovery would import every plugin package (slow, not under test).
    cls = {"survey_auditor": SurveyAuditor, "survey_auditor_idonly": SurveyAuditorIdOnly}[method]
    SurveyAuditBenchmark(bench_cfg).run(ctx, cls(method_cfg or {"embedder": "hashing"}))
    return ctx


def test_default_fixture_run(tmp_path):
    ctx = _run({"audit_corpus": True}, data_dir=tmp_path)
    assert ctx.summary["reference_validity"] == pytest.approx(25 / 30)
    assert ctx.summary["hallucination_f1"] == 1.0
    done, total, _ = ctx.progress_updates[-1]
    assert done == total
    report = json.loads(ctx.artifacts["audit_report.json"][0])
    assert {"scorecard", "flags", "details", "caveats"} <= set(report)
    for name in (
        "reference_status",
        "recency_profile",
        "corpus_overlap",
        "trend_surveys_per_month",
        "trend_survey_share",
        "trend_audit_metrics",
        "corpus_scorecards",
    ):
        assert ctx.artifacts[name][1] == "application/vnd.plotly+json", name
    assert len(ctx.series("reference_validity")) == 3  # one point per corpus survey audited


def test_fuzzy_auditor_beats_identifier_only_baseline(tmp_path):
    full = _run({"trends": False}, data_dir=tmp_path).summary
    base = _run({"trends": False}, "survey_auditor_idonly", data_dir=tmp_path).summary
    assert full["hallucination_recall"] == base["hallucination_recall"] == 1.0
    assert full["hallucination_precision"] > base["hallucination_precision"]


def test_files_source_resolves_paths_under_the_data_cache(tmp_path):
    fx = generate_fixture(
        tmp_path / "gen", seed=1, n_papers=80, n_refs=10, n_fabricated=2, n_other_surveys=1
    )
    up = tmp_path / "data" / "surveys" / "upload1"
    shutil.copytree(fx.tex_path.parent, up)
    cfg = {
        "source": "files",
        "survey_path": "upload1/survey.tex",
        "index_paths": "upload1/arxiv-metadata.jsonl",
        "corpus_dir": "upload1/corpus",
    }
    ctx = _run(cfg, data_dir=tmp_path / "data")
    assert ctx.summary["suspected_hallucinations"] == 2.0
    assert "hallucination_f1" not in ctx.summary  # no ground truth for uploaded files
    with pytest.raises(ValueError, match="survey_path: .* does not exist"):
        _run({**cfg, "survey_path": "nope.tex"}, data_dir=tmp_path / "data")
    with pytest.raises(ValueError, match="index_paths: required"):
        _run({"source": "files", "survey_path": "upload1/survey.tex"}, data_dir=tmp_path / "data")


def test_config_errors_and_cancellation(tmp_path):
    with pytest.raises(ConfigError) as exc:
        SurveyAuditBenchmark({"fixture_refs": 1, "source": "web"})
    assert set(exc.value.errors) == {"fixture_refs", "source"}
    with pytest.raises(ConfigError, match="embedder"):
        SurveyAuditor({"embedder": "gpt"})
    assert SurveyAuditBenchmark.primary_metric().name == "reference_validity"
    assert SurveyAuditor.benchmarks == ("survey_audit",) and SurveyAuditorIdOnly.is_baseline
    with pytest.raises(RunCancelled):
        _run({"audit_corpus": True}, data_dir=tmp_path, cancel_after=1)


@pytest.mark.slow
def test_minilm_embedder_semantics():
    from workers.surveys.embed import MiniLMEmbedder, cosine_matrix

    e = MiniLMEmbedder()
    v = e.encode(
        [
            "Dense retrieval for open-domain question answering",
            "Neural retrievers that answer open-domain questions",
            "Protein structure prediction with diffusion models",
        ]
    )
    s = cosine_matrix(v, v)
    assert v.shape == (3, 384) and s[0, 0] == pytest.approx(1.0, abs=1e-5)
    assert s[0, 1] > s[0, 2] + 0.2  # paraphrase closer than an unrelated topic
