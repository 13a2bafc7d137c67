"""Documents, the retriever interface, and loading a Wikipedia-style JSONL corpus.

Accepted line formats (one JSON object per line), covering the common processed dumps:
- DPR / KILT passages: {"id", "title", "text"}
- Pyserini / BEIR: {"id" or "_id", "contents"} or {"_id", "title", "text"}
- WikiExtractor --json: {"id", "url", "title", "text"}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    text: str
    url: str = ""
    score: float = 0.0
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def as_dict(self, max_chars: int = 1000) -> dict:
        return {
            "id": self.doc_id,
            "title": self.title,
            "url": self.url,
            "score": round(float(self.score), 6),
            "text": self.text[:max_chars],
        }


@runtime_checkable
class Retriever(Protocol):
    """Anything with `search(query, k) -> list[Document]` (best first)."""

    name: str

    def search(self, query: str, k: int) -> list[Document]: ...


def _record_to_document(record: dict, line_no: int, source: str) -> Document:
    if not isinstance(record, dict):
        raise ValueError(f"{source}:{line_no}: expected a JSON object, got {type(record).__name__}")
    doc_id = record.get("id", record.get("_id", record.get("docid")))
    if doc_id is None:
        doc_id = str(line_no)
    text = record.get("text", record.get("contents"))
    if not isinstance(text, str) or not text.strip():
        raise ValueError(
            f"{source}:{line_no}: field 'text' (or 'contents') must be a non-empty string"
        )
    title = record.get("title") or ""
    if not title and "\n" in text:  # Pyserini "contents" often is "Title\nbody"
        title, text = text.split("\n", 1)
    return Document(str(doc_id), str(title), text.strip(), url=str(record.get("url", "")))


def load_jsonl_corpus(path: str | Path, limit: int | None = None) -> list[Document]:
    """Read a processed-Wikipedia JSONL file into Documents (first `limit` lines if given)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"corpus path {path} is not a file")
    docs: list[Document] = []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if limit is not None and len(docs) >= limit:
                break
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{line_no}: invalid JSON ({exc.msg})") from None
            docs.append(_record_to_document(record, line_no, str(path)))
    if not docs:
        raise ValueError(f"corpus {path} holds no documents")
    ids = [d.doc_id for d in docs]
    if len(set(ids)) != len(ids):
        raise ValueError(f"corpus {path}: document ids are not unique")
    return docs
