"""Auditors for the `survey_audit` benchmark."""

from workers.methods.survey_auditor.plugin import AuditorConfig, SurveyAuditor, SurveyAuditorIdOnly

__all__ = ["AuditorConfig", "SurveyAuditor", "SurveyAuditorIdOnly"]
