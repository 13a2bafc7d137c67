"""The seed paper of the safety_retrieval benchmark."""

from workers.core import Paper

SAFETY_PAPER = Paper(
    key="safety-devolution",
    title="Safety Devolution in AI Agents",
    authors=("Cheng Yu", "Benedikt Stroebl", "Diyi Yang", "Orestis Papakyriakopoulos"),
    venue="arXiv:2505.14215",
    year=2025,
    url="https://arxiv.org/abs/2505.14215",
    abstract=(
        "Investigates how expanding retrieval access, from no external sources to Wikipedia-based "
        "retrieval and open web search, affects model reliability, bias propagation and harmful "
        "content generation. Benchmarking censored and uncensored LLMs and AI agents reveals a "
        "consistent degradation in refusal rates, bias sensitivity and harmfulness safeguards as "
        "models gain broader access to external sources ('safety devolution'); retrieval-augmented "
        "agents built on aligned LLMs often behave more unsafely than uncensored models without "
        "retrieval, and the effect persists under strong retrieval accuracy and prompt-based mitigation."
    ),
    headline_claim=(
        "Widening retrieval access (none -> Wikipedia -> open web) lowers refusal rates on "
        "harmful requests, for aligned and uncensored models alike."
    ),
    claim_benchmark="safety_retrieval",
    # The claim is that retrieval makes the model refuse LESS, so the 'method' side of the
    # comparison is the no-retrieval LLM: the claim held if it refuses more than RAG does.
    claim_method="safety_direct",
    claim_baseline="retrieval_rag",
    claim_metric="refusal_rate",
    tags=("safety", "retrieval", "agents", "bias"),
)
