"""Multiple-choice tasks the project generates from held-out text, or loads from a user's JSONL.

Generated tasks (seeded, from documents the model never trained on):

* ``next_line``: the preceding lines of a held-out document; choose the true next line among
  it and lines drawn from other held-out documents.
* ``continuation``: a prefix cut at a random word boundary; choose the true next span of
  characters among spans of the same length from other places.

User files: JSONL rows ``{"context": str, "choices": [str, ...], "gold": int}``, one task per
file (`load_task_files`; the benchmarks' ``task_files`` option).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

from workers.models.lm.evaluate import MCItem

TASKS = ("next_line", "continuation")


def _lines(doc: str) -> list[str]:
    return [ln for ln in doc.splitlines() if len(ln.strip()) >= 8]


def next_line_task(
    docs: Sequence[str],
    n_items: int = 50,
    n_choices: int = 4,
    *,
    seed: int = 0,
    context_lines: int = 6,
) -> list[MCItem]:
    """Pick the true next line of held-out text; distractors are real lines from elsewhere."""
    rng = random.Random(seed)
    if not docs:
        raise ValueError("docs: need at least one document")
    pool = [(d, ln) for d, doc in enumerate(docs) for ln in _lines(doc)]
    if len(pool) < n_choices * 2:
        raise ValueError(f"docs: too few lines ({len(pool)}) for {n_choices}-way next_line items")
    items: list[MCItem] = []
    attempts = 0
    while len(items) < n_items and attempts < n_items * 50:
        attempts += 1
        d = rng.randrange(len(docs))
        lines = docs[d].splitlines()
        candidates = [i for i in range(context_lines, len(lines)) if len(lines[i].strip()) >= 8]
        if not candidates:
            continue
        i = rng.choice(candidates)
        gold_line = lines[i]
        distractors = {
            ln
            for dd, ln in rng.sample(pool, min(len(pool), 8 * n_choices))
            if dd != d and ln.strip() != gold_line.strip()
        }
        if len(distractors) < n_choices - 1:
            continue
        choices = rng.sample(sorted(distractors), n_choices - 1)
        gold = rng.randrange(n_choices)
        choices.insert(gold, gold_line)
        context = "\n".join(lines[i - context_lines : i]) + "\n"
        items.append(MCItem(context, tuple(choices), gold))
    if len(items) < n_items:
        raise ValueError(f"docs: could only build {len(items)} of {n_items} next_line items")
    return items


def continuation_task(
    docs: Sequence[str],
    n_items: int = 50,
    n_choices: int = 4,
    *,
    seed: int = 0,
    context_chars: int = 200,
    span_chars: int = 24,
) -> list[MCItem]:
    """Pick the true next `span_chars` characters after a held-out prefix."""
    rng = random.Random(seed + 1)
    long_docs = [d for d in docs if len(d) > context_chars + 2 * span_chars]
    if not long_docs:
        raise ValueError(f"docs: none longer than {context_chars + 2 * span_chars} characters")
    items: list[MCItem] = []
    while len(items) < n_items:
        doc = rng.choice(long_docs)
        cut = rng.randrange(context_chars, len(doc) - span_chars)
        while cut > context_chars and not doc[cut - 1].isspace():
            cut -= 1  # cut at a word boundary so the gold span starts a token, like the distractors
        gold_span = doc[cut : cut + span_chars]
        if not gold_span.strip():
            continue  # a run of indentation says nothing about the model: not a question
        distractors = set()
        while len(distractors) < n_choices - 1:
            other = rng.choice(long_docs)
            j = rng.randrange(0, len(other) - span_chars)
            span = other[j : j + span_chars]
            if span != gold_span and span.strip():
                distractors.add(span)
        choices = list(distractors)
        rng.shuffle(choices)
        gold = rng.randrange(n_choices)
        choices.insert(gold, gold_span)
        items.append(MCItem(doc[cut - context_chars : cut], tuple(choices), gold))
    return items


def generate_task(
    name: str, docs: Sequence[str], n_items: int = 50, *, seed: int = 0
) -> list[MCItem]:
    if name == "next_line":
        return next_line_task(docs, n_items, seed=seed)
    if name == "continuation":
        return continuation_task(docs, n_items, seed=seed)
    raise ValueError(f"task: unknown generated task {name!r} (known: {TASKS})")


def parse_paths(spec: str) -> tuple[str, ...]:
    """Comma-separated paths from a config string (empty entries dropped)."""
    return tuple(p.strip() for p in spec.split(",") if p.strip())


def load_task_files(paths: Sequence[str | Path]) -> dict[str, list[MCItem]]:
    """User multiple-choice tasks, one per JSONL file, named ``file:<stem>``."""
    tasks: dict[str, list[MCItem]] = {}
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            raise FileNotFoundError(f"task_files: {path} is not a file")
        items = load_mc_jsonl(path)
        if not items:
            raise ValueError(f"task_files: {path} holds no items")
        name = f"file:{path.stem}"
        if name in tasks:
            raise ValueError(f"task_files: two files named {path.stem!r}")
        tasks[name] = items
    return tasks


def load_mc_jsonl(path: str | Path) -> list[MCItem]:
    """Load user multiple-choice items; each row needs context, choices and gold."""
    items = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        try:
            items.append(
                MCItem(str(row["context"]), tuple(map(str, row["choices"])), int(row["gold"]))
            )
        except KeyError as exc:
            raise ValueError(f"{path} line {i + 1}: missing field {exc.args[0]!r}") from None
    return items
