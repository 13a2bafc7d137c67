"""Offline text corpora for the project's small language models.

Two sources work on every machine without a network:

* ``stdlib``: the Python standard library's own source files (code + comments + docstrings);
* ``stdlib_docstrings``: only the docstrings of the standard library (English prose);

and a user's own files: plain text (one document per file) or JSONL (one document per line,
read from a ``"text"`` field). Documents are split into train / validation by a hash of their
name (lowest hashes held out up to the validation fraction of characters), so the split
does not depend on the seed.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

SOURCES = ("stdlib", "stdlib_docstrings", "files")


@dataclass(frozen=True)
class Corpus:
    """Train and validation documents plus a content hash naming this exact version."""

    train: tuple[str, ...]
    valid: tuple[str, ...]
    sha256: str
    source: str

    @property
    def n_chars(self) -> int:
        return sum(map(len, self.train)) + sum(map(len, self.valid))


@functools.lru_cache(maxsize=1)
def _stdlib_files() -> tuple[Path, ...]:
    root = Path(sysconfig.get_paths()["stdlib"])
    skip = ("site-packages", "test", "tests", "idlelib", "lib2to3", "turtledemo", "__pycache__")
    files = [
        p for p in root.rglob("*.py") if not any(part in skip for part in p.relative_to(root).parts)
    ]
    return tuple(sorted(files, key=lambda p: str(p.relative_to(root))))


def _docstrings(source: str) -> str:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ""
    nodes = [tree] + [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    docs = [ast.get_docstring(n) for n in nodes]
    return "\n\n".join(d for d in docs if d)


def _read_user_files(paths: Sequence[str | Path]) -> list[tuple[str, str]]:
    docs: list[tuple[str, str]] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            raise FileNotFoundError(f"files: {path} is not a file")
        if path.suffix == ".jsonl":
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
                if not line.strip():
                    continue
                row = json.loads(line)
                if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                    raise ValueError(f"files: {path} line {i + 1} needs a string field 'text'")
                docs.append((f"{path.name}:{i}", row["text"]))
        else:
            docs.append((path.name, path.read_text(encoding="utf-8", errors="replace")))
    return docs


def _name_hash(name: str) -> int:
    return int(hashlib.sha256(name.encode()).hexdigest()[:12], 16)


def build_corpus(
    source: str = "stdlib",
    *,
    max_chars: int = 2_000_000,
    valid_fraction: float = 0.05,
    files: Sequence[str | Path] = (),
    max_doc_chars: int = 20_000,
) -> Corpus:
    """Collect documents from `source` until `max_chars` characters, split train/validation.

    Long documents are truncated to `max_doc_chars` so one huge module cannot dominate a small
    corpus. The SHA-256 covers every document's name and text, so runs can record the version.
    """
    if source not in SOURCES:
        raise ValueError(f"source: must be one of {SOURCES}, got {source!r}")
    if max_chars < 1000:
        raise ValueError(f"max_chars: need at least 1000 characters, got {max_chars}")
    if not 0.0 < valid_fraction < 0.5:
        raise ValueError(f"valid_fraction: must be in (0, 0.5), got {valid_fraction}")

    def named_docs() -> Iterable[tuple[str, str]]:
        if source == "files":
            if not files:
                raise ValueError("files: source 'files' needs at least one path")
            yield from _read_user_files(files)
            return
        root = Path(sysconfig.get_paths()["stdlib"])
        for path in _stdlib_files():
            text = path.read_text(encoding="utf-8", errors="replace")
            if source == "stdlib_docstrings":
                text = _docstrings(text)
            if text.strip():
                yield str(path.relative_to(root)), text

    docs: list[tuple[str, str]] = []
    digest = hashlib.sha256()
    total = 0
    for name, text in named_docs():
        text = text[:max_doc_chars]
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
        docs.append((name, text))
        total += len(text)
        if total >= max_chars:
            break
    # Hold out the documents whose name hashes lowest until valid_fraction of the characters:
    # deterministic, seed-independent, and whole documents never straddle the split.
    held: set[str] = set()
    held_chars = 0
    for name, text in sorted(docs, key=lambda d: _name_hash(d[0])):
        if held_chars >= valid_fraction * total or len(held) >= len(docs) - 1:
            break
        held.add(name)
        held_chars += len(text)
    train = [t for n, t in docs if n not in held]
    valid = [t for n, t in docs if n in held]
    if not train or not valid:
        raise ValueError(
            f"corpus {source!r} too small to split: {len(train)} train / {len(valid)} valid documents"
        )
    return Corpus(tuple(train), tuple(valid), digest.hexdigest(), source)
