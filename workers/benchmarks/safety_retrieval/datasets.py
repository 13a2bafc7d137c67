"""Loaders for the dataset formats safety researchers already have.

- AdvBench harmful_behaviors.csv: columns goal, target.
- HarmBench behaviors CSV: Behavior, FunctionalCategory, SemanticCategory, Tags, ContextString,
  BehaviorID. Contextual behaviours are posed as HarmBench does: context, a separator, behaviour.
- XSTest prompts CSV: id, prompt, type, label ("safe"/"unsafe"); files without `label` use
  XSTest v1's convention that unsafe contrast prompts have a type starting with "contrast_".
- BBQ JSONL (one file per category in the BBQ repo): example_id, question_polarity (neg/nonneg),
  context_condition (ambig/disambig), category, answer_info, additional_metadata, context,
  question, ans0..ans2, label. The bias target (BBQ's `target_loc`) is read from a `target_loc`
  field when present (e.g. merged from BBQ's additional_metadata.csv), else derived from
  answer_info tags that match additional_metadata.stereotyped_groups.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@dataclass(frozen=True)
class PromptItem:
    """One prompt of a harmful-request or over-refusal set."""

    item_id: str
    prompt: str
    dataset: str
    category: str = ""
    safe: bool = False  # XSTest: True for safe prompts (refusing them is over-refusal)


@dataclass(frozen=True)
class BBQItem:
    item_id: str
    category: str
    context: str
    question: str
    answers: tuple[str, str, str]
    label: int
    polarity: str  # "neg" | "nonneg"
    condition: str  # "ambig" | "disambig"
    target_loc: int  # index of the answer naming the stereotyped (bias-target) group
    unknown_loc: int  # index of the "cannot be determined" answer


def _read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    if not path.is_file():
        raise FileNotFoundError(f"dataset file {path} not found")
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: missing column(s) {missing}; found {reader.fieldnames}")
        return list(reader)


def load_advbench(path: str | Path) -> list[PromptItem]:
    rows = _read_csv(Path(path), ("goal",))
    return [
        PromptItem(f"advbench-{i}", r["goal"].strip(), "advbench")
        for i, r in enumerate(rows)
        if r["goal"].strip()
    ]


def load_harmbench(path: str | Path) -> list[PromptItem]:
    rows = _read_csv(Path(path), ("Behavior", "SemanticCategory"))
    items = []
    for i, r in enumerate(rows):
        behavior, context = r["Behavior"].strip(), (r.get("ContextString") or "").strip()
        prompt = f"{context}\n\n---\n\n{behavior}" if context else behavior
        items.append(
            PromptItem(
                f"harmbench-{r.get('BehaviorID') or i}",
                prompt,
                "harmbench",
                category=r["SemanticCategory"].strip(),
            )
        )
    return items


def load_xstest(path: str | Path) -> list[PromptItem]:
    rows = _read_csv(Path(path), ("prompt", "type"))
    items = []
    for i, r in enumerate(rows):
        label = (r.get("label") or "").strip().lower()
        if label and label not in ("safe", "unsafe"):
            raise ValueError(
                f"{path}: row {i + 2}: label must be 'safe' or 'unsafe', got {label!r}"
            )
        safe = label == "safe" if label else not r["type"].startswith("contrast_")
        items.append(
            PromptItem(
                f"xstest-{r.get('id') or i}",
                r["prompt"].strip(),
                "xstest",
                category=r["type"].strip(),
                safe=safe,
            )
        )
    return items


_UNKNOWN_TAG = "unknown"


def _norm(tag: str) -> str:
    return re.sub(r"[^a-z0-9]", "", tag.lower())


def _bbq_item(rec: dict, where: str) -> BBQItem:
    for key in (
        "context",
        "question",
        "ans0",
        "ans1",
        "ans2",
        "label",
        "question_polarity",
        "context_condition",
        "answer_info",
    ):
        if key not in rec:
            raise ValueError(f"{where}: missing field {key!r}")
    if rec["question_polarity"] not in ("neg", "nonneg"):
        raise ValueError(f"{where}: question_polarity must be 'neg' or 'nonneg'")
    if rec["context_condition"] not in ("ambig", "disambig"):
        raise ValueError(f"{where}: context_condition must be 'ambig' or 'disambig'")
    label = int(rec["label"])
    if label not in (0, 1, 2):
        raise ValueError(f"{where}: label must be 0, 1 or 2, got {label}")
    tags = [[_norm(t) for t in rec["answer_info"][f"ans{j}"]] for j in range(3)]
    unknown = [j for j in range(3) if _UNKNOWN_TAG in tags[j]]
    if len(unknown) != 1:
        raise ValueError(f"{where}: expected exactly one answer tagged 'unknown' in answer_info")
    if "target_loc" in rec:
        target = int(rec["target_loc"])
    else:
        groups = {
            _norm(g) for g in rec.get("additional_metadata", {}).get("stereotyped_groups", [])
        }
        hits = [j for j in range(3) if j != unknown[0] and groups & set(tags[j])]
        if len(hits) != 1:
            raise ValueError(
                f"{where}: cannot tell the bias target from answer_info and "
                "stereotyped_groups; add a 'target_loc' field"
            )
        target = hits[0]
    if target == unknown[0] or target not in (0, 1, 2):
        raise ValueError(f"{where}: target_loc {target} is not a non-unknown answer")
    return BBQItem(
        f"bbq-{rec.get('category', '')}-{rec.get('example_id', where)}",
        str(rec.get("category", "")),
        rec["context"],
        rec["question"],
        (rec["ans0"], rec["ans1"], rec["ans2"]),
        label,
        rec["question_polarity"],
        rec["context_condition"],
        target,
        unknown[0],
    )


def load_bbq(path: str | Path) -> list[BBQItem]:
    path = Path(path)
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    items = []
    for file in files:
        if not file.is_file():
            raise FileNotFoundError(f"dataset file {file} not found")
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                items.append(_bbq_item(json.loads(line), f"{file.name}:{n}"))
    if not items:
        raise ValueError(f"{path}: no BBQ records")
    return items
