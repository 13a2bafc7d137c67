"""The question-answer item of ReasonAQA-style data, shared by generators, models and scoring.

Every item has two audio clips (Mellow's interface: for single-clip questions both slots hold
the same clip) and a text prompt. Multiple-choice items carry their options and the index of
the one correct option; open items (captions, detailed answers) only an answer string.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

REASONING = ("understanding", "deductive", "comparative")


@dataclass
class AQAItem:
    item_id: str
    clip_a: str
    clip_b: str
    question: str
    answer: str
    family: str
    reasoning: str = "understanding"  # understanding | deductive | comparative
    options: list[str] | None = None
    answer_index: int | None = None
    split: str = "id"  # id | ood
    origin: str = "generated"  # generated (ReasonAQA synthetic share) | existing (AQA, captions)
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.reasoning not in REASONING:
            raise ValueError(f"reasoning must be one of {REASONING}, got {self.reasoning!r}")
        if self.options is not None:
            check_mcq(self.options, self.answer_index, self.answer)

    @property
    def is_mcq(self) -> bool:
        return self.options is not None

    def prompt(self, with_choices: bool = False) -> str:
        """The text the model reads after the two audio prefixes. Options are scored by their
        likelihood as the continuation (lm-eval's cloze form); `with_choices` also lists them
        in the prompt, MMAU-style, at the cost of about twice the tokens."""
        if not self.is_mcq or not with_choices:
            return f"Question: {self.question}\nAnswer:"
        letters = "ABCDEFGH"
        choices = " ".join(f"({letters[i]}) {o}" for i, o in enumerate(self.options))
        return f"Question: {self.question}\nChoices: {choices}\nAnswer:"

    def as_dict(self) -> dict:
        return asdict(self)


def check_mcq(options: list[str], answer_index: int | None, answer: str) -> None:
    """A valid multiple-choice item: 2-8 distinct non-empty options, exactly one correct."""
    if not 2 <= len(options) <= 8:
        raise ValueError(f"need 2-8 options, got {len(options)}")
    norm = [o.strip().lower() for o in options]
    if any(not o for o in norm) or len(set(norm)) != len(norm):
        raise ValueError(f"options must be distinct and non-empty: {options}")
    if answer_index is None or not 0 <= answer_index < len(options):
        raise ValueError(f"answer_index {answer_index} out of range for {len(options)} options")
    if norm.count(answer.strip().lower()) != 1 or norm[answer_index] != answer.strip().lower():
        raise ValueError(f"answer {answer!r} must be exactly option {answer_index} of {options}")
