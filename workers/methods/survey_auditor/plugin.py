"""Auditors for the `survey_audit` benchmark: the full audit of Lin et al.'s quality criteria
(fuzzy title+author+year reference matching, MiniLM embeddings) and an identifier-only baseline
that accepts a reference only when its DOI or arXiv id is in the index."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from workers.benchmarks.survey_audit.paper import LIN_2025
from workers.core import Method, PluginConfig, register_method
from workers.surveys.audit import AuditOptions, AuditReport, audit_survey
from workers.surveys.embed import get_embedder
from workers.surveys.resolvers import OnlineResolver


class AuditorConfig(PluginConfig):
    match_threshold: float = Field(
        0.85, ge=0.5, le=1.0, description="fuzzy score S needed to accept a match"
    )
    embedder: Literal["minilm", "hashing"] = Field(
        "minilm",
        description="'minilm': packaged all-MiniLM-L6-v2 (offline); 'hashing': lexical baseline",
    )
    redundancy_tau: float = Field(
        0.0, ge=0.0, le=1.0, description="near-duplicate cosine (0 = embedder default)"
    )
    top_k: int = Field(10, ge=1, le=200, description="size of the most-cited list for coverage")
    online_resolver: Literal["none", "crossref", "openalex", "semanticscholar"] = Field(
        "none", description="look unmatched references up online (needs network; off by default)"
    )
    resolver_url: str = Field(
        "", max_length=300, description="resolver base URL (empty = the public API)"
    )


class _Auditor(Method):
    benchmarks = ("survey_audit",)
    paper = LIN_2025
    Config = AuditorConfig
    use_fuzzy = True

    def audit(
        self, survey, *, index, corpus=(), topic_papers=None, device: str = "cpu"
    ) -> AuditReport:
        c = self.config
        resolvers = []
        if c.online_resolver != "none":
            resolvers.append(
                OnlineResolver(c.online_resolver, enabled=True, base_url=c.resolver_url)
            )
        options = AuditOptions(
            match_threshold=c.match_threshold,
            use_fuzzy=self.use_fuzzy,
            redundancy_tau=c.redundancy_tau or None,
            top_k=c.top_k,
            resolvers=resolvers,
        )
        return audit_survey(
            survey,
            index=index,
            embedder=get_embedder(c.embedder, device),
            corpus=list(corpus),
            topic_papers=topic_papers,
            options=options,
        )


@register_method
class SurveyAuditor(_Auditor):
    name = "survey_auditor"
    title = "Survey audit (fuzzy matching + MiniLM)"
    description = "DOI, arXiv id, then fuzzy title+author+year matching; every audit metric."


@register_method
class SurveyAuditorIdOnly(_Auditor):
    name = "survey_auditor_idonly"
    title = "Identifier-only reference check (baseline)"
    description = "A reference counts as valid only if its DOI or arXiv id is in the index."
    is_baseline = True
    use_fuzzy = False
