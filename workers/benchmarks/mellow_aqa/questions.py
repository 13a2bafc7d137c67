"""Templated ReasonAQA-style questions for synthetic clips: exact answers from the generator's labels.

Families follow the paper's categories where synthetic audio has a ground truth:
events (event_count), objects (sound_source), signal properties (pitch, loudness, duration),
semantics (temporal_order), scene-like structure (rhythm), deductive reasoning (entailment:
true / false / cannot be determined, as in audio entailment) and comparative reasoning between
two clips (compare_*). Listener emotion has no ground truth in synthetic audio; it is covered
only by the LLM generator for real captions (llm_questions.py).

Every multiple-choice question is built from one correct option and distractors that are
provably wrong given the labels; classes (not raw values) decide every answer so that measuring
the signal can confirm it (see tests/workers/mellow).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from workers.benchmarks.mellow_aqa.items import AQAItem
from workers.benchmarks.mellow_aqa.synth import (
    DURATIONS_S,
    EVENT_TYPES,
    LEVELS_DB,
    PITCH_CENTRES,
    ClipSpec,
)

TYPE_TEXT = {
    "tone": "a steady tone",
    "chirp_up": "a rising chirp",
    "chirp_down": "a falling chirp",
    "noise": "a burst of noise",
}
COUNT_TEXT = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
ORDINAL = ["first", "second", "third", "fourth"]
PITCH_TEXT = {c: f"about {int(f)} Hz" for c, f in PITCH_CENTRES.items()}
LEVEL_TEXT = {"quiet": "faint", "medium": "moderate", "loud": "loud"}
DURATION_TEXT = {c: f"about {s:g} seconds" for c, s in DURATIONS_S.items()}
ENTAIL = ("true", "false", "cannot be determined from the audio")
NEUTRAL_HYPOTHESES = (
    "The sounds were made by a kitchen timer.",
    "The recording was made outdoors.",
    "A person triggered the first sound on purpose.",
    "The clip was recorded in the morning.",
    "The sounds come from a smartphone.",
    "Someone in the room is annoyed by the sounds.",
)
FAMILY_CATEGORY = {
    "event_count": "events",
    "sound_source": "objects",
    "pitch": "signal",
    "loudness": "signal",
    "duration": "signal",
    "temporal_order": "semantics",
    "rhythm": "scene",
    "entailment": "deductive",
    "compare_count": "comparative",
    "compare_loudness": "comparative",
    "compare_pitch": "comparative",
    "compare_source": "comparative",
    "compare_duration": "comparative",
}
SINGLE_FAMILIES = (
    "event_count",
    "sound_source",
    "pitch",
    "loudness",
    "duration",
    "temporal_order",
    "rhythm",
    "entailment",
)
PAIR_FAMILIES = (
    "compare_count",
    "compare_loudness",
    "compare_pitch",
    "compare_source",
    "compare_duration",
)
_LEVEL_RANK = {c: i for i, c in enumerate(LEVELS_DB)}
_PITCH_RANK = {c: i for i, c in enumerate(PITCH_CENTRES)}
_DUR_RANK = {c: i for i, c in enumerate(DURATIONS_S)}

Draft = tuple[str, str, list[str]]  # (question, correct option, distractors)


def mcq(
    rng: np.random.Generator,
    item_id: str,
    a: ClipSpec,
    b: ClipSpec,
    family: str,
    draft: Draft,
    n_options: int = 4,
) -> AQAItem:
    """Shuffle the correct option among up to n_options - 1 distractors."""
    question, correct, distractors = draft
    picks = list(rng.permutation(distractors))[: n_options - 1]
    options = [correct, *picks]
    order = rng.permutation(len(options))
    options = [options[i] for i in order]
    reasoning = {"entailment": "deductive"}.get(
        family, "comparative" if family in PAIR_FAMILIES else "understanding"
    )
    return AQAItem(
        item_id,
        a.clip_id,
        b.clip_id,
        question,
        correct,
        family,
        reasoning,
        options,
        options.index(correct),
        "ood" if (a.ood or b.ood) else "id",
    )


def _others(table: dict, key) -> list[str]:
    return [v for k, v in table.items() if k != key]


def _ordinal(spec: ClipSpec, i: int) -> str:
    return "only" if spec.n_events == 1 else ORDINAL[i]


# -- single-clip families: each returns a Draft or None when the clip cannot support it ------------
def q_event_count(rng, c: ClipSpec) -> Draft:
    n = c.n_events
    return ("How many distinct sound events can be heard?", COUNT_TEXT[n], _others(COUNT_TEXT, n))


def q_sound_source(rng, c: ClipSpec) -> Draft:
    if c.single_type or c.n_events == 1:
        t = c.events[0].type
        q = "What kind of sound is heard?" if c.n_events == 1 else "What kind of sound is repeated?"
    else:
        i = int(rng.choice([0, c.n_events - 1]))
        t = c.events[i].type
        q = f"What kind of sound is heard {'first' if i == 0 else 'last'}?"
    return q, TYPE_TEXT[t], _others(TYPE_TEXT, t)


def q_pitch(rng, c: ClipSpec) -> Draft | None:
    tonal = [i for i, e in enumerate(c.events) if e.type != "noise"]
    if not tonal:
        return None
    i = int(rng.choice(tonal))
    e = c.events[i]
    verb = "is the pitch of" if e.type == "tone" else "does the pitch start in"
    return (
        f"Approximately what {verb} the {_ordinal(c, i)} sound?",
        PITCH_TEXT[e.pitch_class],
        _others(PITCH_TEXT, e.pitch_class),
    )


def q_loudness(rng, c: ClipSpec) -> Draft | None:
    levels = [e.level_class for e in c.events]
    if len(set(levels)) == 1:
        return "How loud are the sounds?", LEVEL_TEXT[levels[0]], _others(LEVEL_TEXT, levels[0])
    top = max(levels, key=_LEVEL_RANK.get)
    if levels.count(top) != 1:
        return None
    i = levels.index(top)
    opts = [f"the {ORDINAL[k]} sound" for k in range(c.n_events)]
    return "Which sound is the loudest?", opts[i], opts[:i] + opts[i + 1 :]


def q_duration(rng, c: ClipSpec) -> Draft:
    i = int(rng.integers(c.n_events))
    d = c.events[i].duration_class
    return (
        f"About how long does the {_ordinal(c, i)} sound last?",
        DURATION_TEXT[d],
        _others(DURATION_TEXT, d),
    )


def q_temporal_order(rng, c: ClipSpec) -> Draft | None:
    types = [e.type for e in c.events]
    unique = [i for i, t in enumerate(types[:-1]) if types.count(t) == 1]
    if not unique:
        return None
    i = int(rng.choice(unique))
    nxt = types[i + 1]
    return (
        f"What kind of sound comes right after {TYPE_TEXT[types[i]]}?",
        TYPE_TEXT[nxt],
        _others(TYPE_TEXT, nxt),
    )


def q_rhythm(rng, c: ClipSpec) -> Draft | None:
    if c.rhythm is None:
        return None
    text = {
        "regular": "evenly, in a steady rhythm",
        "irregular": "unevenly, at irregular intervals",
    }
    return "How are the sound events spaced in time?", text[c.rhythm], _others(text, c.rhythm)


def hypothesis(rng, c: ClipSpec) -> tuple[str, str]:
    """A statement about the clip and its label: true, false or not decidable from audio."""
    kind = rng.choice(["true", "false", "neutral"], p=[0.4, 0.4, 0.2])
    if kind == "neutral":
        return str(rng.choice(NEUTRAL_HYPOTHESES)), ENTAIL[2]
    truth = kind == "true"
    topic = rng.choice(["count", "type", "level"])
    if topic == "count":
        k = c.n_events if truth else int(rng.choice([k for k in COUNT_TEXT if k != c.n_events][:4]))
        return f"The clip contains exactly {COUNT_TEXT[k]} sound event{'s' * (k > 1)}.", ENTAIL[
            not truth
        ]
    if topic == "type":
        present = {e.type for e in c.events}
        pool = sorted(present) if truth else sorted(set(EVENT_TYPES) - present)
        if not pool:
            return hypothesis(rng, c)
        return f"The clip contains {TYPE_TEXT[str(rng.choice(pool))]}.", ENTAIL[not truth]
    loudest = max((e.level_class for e in c.events), key=_LEVEL_RANK.get)
    lvl = loudest if truth else str(rng.choice([x for x in LEVEL_TEXT if x != loudest]))
    return f"The loudest sound in the clip is {LEVEL_TEXT[lvl]}.", ENTAIL[not truth]


def q_entailment(rng, c: ClipSpec) -> Draft:
    statement, label = hypothesis(rng, c)
    return (
        f'Given the audio, is the statement "{statement}" true, false, or undecidable?',
        label,
        [x for x in ENTAIL if x != label],
    )


SINGLE: dict[str, Callable] = {
    "event_count": q_event_count,
    "sound_source": q_sound_source,
    "pitch": q_pitch,
    "loudness": q_loudness,
    "duration": q_duration,
    "temporal_order": q_temporal_order,
    "rhythm": q_rhythm,
    "entailment": q_entailment,
}


# -- comparative families (two clips) -----------------------------------------------------------
def _which(rank_a: int, rank_b: int, same: str) -> tuple[str, list[str]]:
    opts = ["the first clip", "the second clip", same]
    correct = opts[2] if rank_a == rank_b else opts[0] if rank_a > rank_b else opts[1]
    return correct, [o for o in opts if o != correct]


def c_count(rng, a: ClipSpec, b: ClipSpec) -> Draft:
    return (
        "Which clip contains more sound events?",
        *_which(a.n_events, b.n_events, "both contain the same number"),
    )


def _loudness_class(c: ClipSpec) -> int:
    return max(_LEVEL_RANK[e.level_class] for e in c.events)


def c_loudness(rng, a: ClipSpec, b: ClipSpec) -> Draft:
    return (
        "Which clip has the louder loudest sound?",
        *_which(_loudness_class(a), _loudness_class(b), "they are about equally loud"),
    )


def c_pitch(rng, a: ClipSpec, b: ClipSpec) -> Draft | None:
    ta = [e for e in a.events if e.type == "tone"]
    tb = [e for e in b.events if e.type == "tone"]
    if not ta or not tb:
        return None
    return (
        "Which clip's first steady tone is higher in pitch?",
        *_which(
            _PITCH_RANK[ta[0].pitch_class],
            _PITCH_RANK[tb[0].pitch_class],
            "both are about the same pitch",
        ),
    )


def c_source(rng, a: ClipSpec, b: ClipSpec) -> Draft:
    t = str(rng.choice(EVENT_TYPES))
    ina, inb = any(e.type == t for e in a.events), any(e.type == t for e in b.events)
    opts = {
        (True, False): "only the first clip",
        (False, True): "only the second clip",
        (True, True): "both clips",
        (False, False): "neither clip",
    }
    return f"Which clip contains {TYPE_TEXT[t]}?", opts[ina, inb], _others(opts, (ina, inb))


def c_duration(rng, a: ClipSpec, b: ClipSpec) -> Draft:
    return (
        "Which clip's first sound lasts longer?",
        *_which(
            _DUR_RANK[a.events[0].duration_class],
            _DUR_RANK[b.events[0].duration_class],
            "both last about as long",
        ),
    )


PAIR: dict[str, Callable] = {
    "compare_count": c_count,
    "compare_loudness": c_loudness,
    "compare_pitch": c_pitch,
    "compare_source": c_source,
    "compare_duration": c_duration,
}


def single_question(rng, item_id: str, c: ClipSpec, family: str) -> AQAItem | None:
    draft = SINGLE[family](rng, c)
    return None if draft is None else mcq(rng, item_id, c, c, family, draft)


def pair_question(rng, item_id: str, a: ClipSpec, b: ClipSpec, family: str) -> AQAItem | None:
    draft = PAIR[family](rng, a, b)
    return None if draft is None else mcq(rng, item_id, a, b, family, draft)


# -- "existing dataset" style items (the paper's 30%: captioning and simple open AQA) ---------
def existing_items(rng, item_id: str, c: ClipSpec) -> list[AQAItem]:
    """A captioning item and a ClothoAQA-like yes/no question (open answers, no options)."""
    t = str(rng.choice(EVENT_TYPES))
    present = any(e.type == t for e in c.events)
    split = "ood" if c.ood else "id"
    return [
        AQAItem(
            f"{item_id}-cap",
            c.clip_id,
            c.clip_id,
            "Describe the audio.",
            c.caption,
            "captioning",
            split=split,
            origin="existing",
        ),
        AQAItem(
            f"{item_id}-yn",
            c.clip_id,
            c.clip_id,
            f"Is there {TYPE_TEXT[t]}?",
            "yes" if present else "no",
            "binary_aqa",
            split=split,
            origin="existing",
        ),
    ]


def detailed_item(item_id: str, c: ClipSpec) -> AQAItem:
    """ReasonAQA's detailed (open) answers: every event in order with its properties."""
    parts = []
    for i, e in enumerate(c.events):
        words = [
            ORDINAL[i],
            TYPE_TEXT[e.type][2:] if e.type != "noise" else "noise burst",
            LEVEL_TEXT[e.level_class],
            DURATION_TEXT[e.duration_class],
        ]
        if e.pitch_class:
            words.append(PITCH_TEXT[e.pitch_class])
        parts.append(", ".join(words))
    return AQAItem(
        f"{item_id}-det",
        c.clip_id,
        c.clip_id,
        "List every sound event in order with its loudness, length and pitch.",
        "; ".join(parts) + ".",
        "detailed",
        split="ood" if c.ood else "id",
    )
