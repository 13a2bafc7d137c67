"""Survey-quality audits (Lin et al., "stop the survey paper DDoS attack"): ingestion of LaTeX,
Markdown and PDF surveys, a bibliographic index, audit metrics, corpus trends, and the matching
used by Dynamic Live Surveys to propose updates. Usable without the platform:

    from workers.surveys import load_survey, load_index, audit_survey, get_embedder
    report = audit_survey(load_survey("survey.tex"), index=load_index("arxiv.jsonl"),
                          embedder=get_embedder("minilm"))
"""

from workers.surveys.audit import AuditOptions, AuditReport, audit_survey, hallucination_detection
from workers.surveys.document import Reference, Section, Survey
from workers.surveys.embed import HashingEmbedder, MiniLMEmbedder, get_embedder
from workers.surveys.index import BibIndex, IndexPaper, load_index
from workers.surveys.ingest import load_survey, parse_latex, parse_markdown, parse_pdf_text

__all__ = [
    "AuditOptions",
    "AuditReport",
    "BibIndex",
    "HashingEmbedder",
    "IndexPaper",
    "MiniLMEmbedder",
    "Reference",
    "Section",
    "Survey",
    "audit_survey",
    "get_embedder",
    "hallucination_detection",
    "load_index",
    "load_survey",
    "parse_latex",
    "parse_markdown",
    "parse_pdf_text",
]
