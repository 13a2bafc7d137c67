"""The `survey_audit` benchmark (Lin et al. 2025): survey-quality audits and corpus trends."""

from workers.benchmarks.survey_audit.benchmark import SurveyAuditBenchmark, SurveyAuditConfig

__all__ = ["SurveyAuditBenchmark", "SurveyAuditConfig"]
