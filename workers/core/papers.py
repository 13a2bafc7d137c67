"""Paper metadata: every benchmark and method names the paper it comes from."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Paper:
    """A seed paper. `key` is a short stable slug (e.g. "maxucb-cash").

    `claim_metric`, `claim_benchmark`, `claim_method` and `claim_baseline` tell the
    reproduction report which stored runs test the headline claim: the method's mean of
    `claim_metric` on `claim_benchmark` is compared with the baseline's mean, and the claim
    "held" if the method is better in the metric's declared direction.
    """

    key: str
    title: str
    authors: tuple[str, ...]
    venue: str
    year: int
    abstract: str
    headline_claim: str
    code_url: str = ""
    url: str = ""
    claim_benchmark: str = ""
    claim_method: str = ""
    claim_baseline: str = ""
    claim_metric: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)
