"""ReasonAQA-style question generation from real captions through any registered chat model.

The paper prompts an LLM with a clip's captions to write detailed and multiple-choice questions
about audio events, objects, acoustic scenes, signal properties, semantics and listener
emotions, and with two clips' captions for comparisons. Here the model is whatever adapter the
run was given (`workers.models`: an OpenAI-compatible endpoint, a local Hugging Face directory);
its reply must be a JSON list. Each question is validated (2-8 distinct options, the answer
exactly one of them) and invalid ones are dropped and counted, never repaired by guessing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import numpy as np

from workers.benchmarks.mellow_aqa.items import AQAItem, check_mcq

FAMILIES = ("events", "objects", "scene", "signal", "semantics", "emotion", "deduction")
SYSTEM = (
    "You write questions that test listening comprehension of audio clips. You cannot hear the "
    "audio; you only see human captions of it. Every question must be answerable from the "
    "audio itself, and exactly one option must be correct. Reply with JSON only."
)
SINGLE_PROMPT = """Captions of one audio clip:
{captions}

Write {n} multiple-choice questions about this clip, covering these families: {families}.
(events: what happens; objects: what makes the sounds; scene: where it was recorded;
signal: loudness, pitch, duration, order; semantics: meaning or purpose of the sounds;
emotion: how a listener would likely feel; deduction: a statement to judge true, false or
undecidable from the audio.) Also write one open question with a detailed answer.
Reply with a JSON list; each element is
{{"family": "<family>", "question": "...", "options": ["...", "...", "...", "..."], "answer": "<one of the options>"}}
and the open question is {{"family": "detailed", "question": "...", "answer": "..."}}."""
PAIR_PROMPT = """Captions of audio clip 1:
{captions_a}

Captions of audio clip 2:
{captions_b}

Write {n} multiple-choice questions that compare the two clips (which is louder, what sound
occurs in one but not the other, which scene is busier, ...). Refer to them as "the first clip"
and "the second clip". Reply with a JSON list; each element is
{{"family": "comparison", "question": "...", "options": ["...", "...", "..."], "answer": "<one of the options>"}}."""


@dataclass
class GenerationStats:
    calls: int = 0
    parsed: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, reason: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1


def parse_reply(text: str) -> list[dict]:
    """The JSON list in a reply (tolerates prose or a ``` fence around it)."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, flags=re.S)
    body = fenced.group(1) if fenced else text
    start, end = body.find("["), body.rfind("]")
    if start < 0 or end <= start:
        raise ValueError("no JSON list in the reply")
    data = json.loads(body[start : end + 1])
    if not isinstance(data, list):
        raise ValueError("the reply's JSON is not a list")
    return [d for d in data if isinstance(d, dict)]


def _to_item(
    raw: dict,
    item_id: str,
    clip_a: str,
    clip_b: str,
    rng: np.random.Generator,
    stats: GenerationStats,
    split: str,
) -> AQAItem | None:
    family = str(raw.get("family", "")).strip().lower()
    question, answer = str(raw.get("question", "")).strip(), str(raw.get("answer", "")).strip()
    if not question or not answer:
        stats.drop("empty question or answer")
        return None
    if family == "detailed":
        return AQAItem(item_id, clip_a, clip_b, question, answer, "detailed", split=split)
    if family not in (*FAMILIES, "comparison"):
        stats.drop("unknown family")
        return None
    options = raw.get("options")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        stats.drop("options not a list of strings")
        return None
    options = [o.strip() for o in options]
    norm = [o.lower() for o in options]
    if norm.count(answer.lower()) != 1:
        stats.drop("answer not exactly one option")
        return None
    order = rng.permutation(len(options))  # LLMs put the answer first far too often
    options = [options[i] for i in order]
    index = [o.lower() for o in options].index(answer.lower())
    answer = options[index]
    try:
        check_mcq(options, index, answer)
    except ValueError:
        stats.drop("invalid options")
        return None
    reasoning = {"comparison": "comparative", "deduction": "deductive"}.get(family, "understanding")
    return AQAItem(
        item_id, clip_a, clip_b, question, answer, f"llm_{family}", reasoning, options, index, split
    )


def _ask(model, prompt: str, stats: GenerationStats, max_tokens: int) -> list[dict]:
    stats.calls += 1
    reply = model.complete(
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
        max_tokens=max_tokens,
        temperature=0.0,
    )
    try:
        raws = parse_reply(reply.text)
    except (ValueError, json.JSONDecodeError):
        stats.drop("unparseable reply")
        return []
    stats.parsed += len(raws)
    return raws


def _fmt(captions: list[str]) -> str:
    return "\n".join(f"- {c}" for c in captions)


def generate_single(
    model,
    clip_id: str,
    captions: list[str],
    rng: np.random.Generator,
    stats: GenerationStats,
    *,
    n: int = 6,
    split: str = "id",
    max_tokens: int = 1500,
) -> list[AQAItem]:
    prompt = SINGLE_PROMPT.format(captions=_fmt(captions), n=n, families=", ".join(FAMILIES))
    items = []
    for k, raw in enumerate(_ask(model, prompt, stats, max_tokens)):
        item = _to_item(raw, f"{clip_id}-llm{k}", clip_id, clip_id, rng, stats, split)
        if item is not None:
            items.append(item)
    stats.kept += len(items)
    return items


def generate_pair(
    model,
    clip_a: str,
    captions_a: list[str],
    clip_b: str,
    captions_b: list[str],
    rng: np.random.Generator,
    stats: GenerationStats,
    *,
    n: int = 2,
    split: str = "id",
    max_tokens: int = 800,
) -> list[AQAItem]:
    prompt = PAIR_PROMPT.format(captions_a=_fmt(captions_a), captions_b=_fmt(captions_b), n=n)
    items = []
    for k, raw in enumerate(_ask(model, prompt, stats, max_tokens)):
        if str(raw.get("family", "")).lower() != "comparison":
            raw = {**raw, "family": "comparison"}  # a pair prompt only asks for comparisons
        item = _to_item(raw, f"{clip_a}|{clip_b}-llm{k}", clip_a, clip_b, rng, stats, split)
        if item is not None:
            items.append(item)
    stats.kept += len(items)
    return items
