"""The seed paper of the survey audits and Dynamic Live Surveys."""

from workers.core.papers import Paper

LIN_2025 = Paper(
    key="survey-ddos",
    title="Stop DDoS Attacking the Research Community with AI-Generated Survey Papers",
    authors=("Jianghao Lin", "Rong Shan", "Jiachen Zhu", "Yunjia Xi", "Yong Yu", "Weinan Zhang"),
    venue="NeurIPS 2025 (position paper)",
    year=2025,
    abstract=(
        "The surge of LLM-generated surveys floods preprint servers with superficially comprehensive but "
        "redundant, low-quality or hallucinated manuscripts (a 'survey paper DDoS attack'). The paper calls "
        "for expert oversight, transparency in AI use, quality audits and Dynamic Live Surveys: "
        "community-maintained, version-controlled surveys that blend automated updates with human curation."
    ),
    headline_claim=(
        "AI-generated surveys carry inaccurate (hallucinated) citations, redundant content and unoriginal "
        "taxonomies that quality audits can surface."
    ),
    url="https://arxiv.org/abs/2510.09686",
    # Tested here: fuzzy title+author+year matching finds fabricated references with a higher F1 than
    # identifier-only checking, on the generated fixture whose fabrications are known.
    claim_benchmark="survey_audit",
    claim_method="survey_auditor",
    claim_baseline="survey_auditor_idonly",
    claim_metric="hallucination_f1",
    tags=("surveys", "audit", "meta-science"),
)
