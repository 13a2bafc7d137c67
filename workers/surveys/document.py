"""The parsed form of a survey, whatever format it came in (LaTeX, Markdown, PDF)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field


@dataclass
class Reference:
    """One entry of the reference list. `key` is the BibTeX key, or "ref<n>" for a PDF."""

    key: str
    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doi: str = ""
    arxiv_id: str = ""
    venue: str = ""
    raw: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Section:
    title: str
    level: int  # 1 = section, 2 = subsection, 3 = subsubsection
    paragraphs: list[str] = field(default_factory=list)
    citations: list[str] = field(default_factory=list)  # keys cited in this section, in order
    children: list[Section] = field(default_factory=list)


@dataclass
class Survey:
    title: str
    sections: list[Section] = field(default_factory=list)  # top-level sections (tree)
    references: list[Reference] = field(default_factory=list)
    year: int | None = None
    abstract: str = ""
    source: str = ""

    def walk(self) -> list[Section]:
        """All sections, depth first, in document order."""
        out: list[Section] = []

        def rec(sec: Section) -> None:
            out.append(sec)
            for child in sec.children:
                rec(child)

        for s in self.sections:
            rec(s)
        return out

    def paragraphs(self) -> list[tuple[str, str]]:
        """(section title, paragraph) for every paragraph in document order."""
        return [(s.title, p) for s in self.walk() for p in s.paragraphs]

    def citations(self) -> list[str]:
        return [c for s in self.walk() for c in s.citations]

    def text(self) -> str:
        return "\n\n".join(p for _, p in self.paragraphs())

    def word_count(self) -> int:
        return len(re.findall(r"\w+", self.text()))

    def outline(self) -> list[tuple[int, str]]:
        return [(s.level, s.title) for s in self.walk()]


def build_tree(flat: list[Section]) -> list[Section]:
    """Nest a flat list of sections by level (a subsection belongs to the preceding section)."""
    roots: list[Section] = []
    stack: list[Section] = []
    for sec in flat:
        while stack and stack[-1].level >= sec.level:
            stack.pop()
        (stack[-1].children if stack else roots).append(sec)
        stack.append(sec)
    return roots


_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(r"\b([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?\b")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}]+)", re.I)


def normalize_doi(text: str) -> str:
    """Lower-case DOI without resolver prefix or trailing punctuation; "" when none."""
    m = _DOI.search(text or "")
    return m.group(1).rstrip(".,;)").lower() if m else ""


def normalize_arxiv(text: str) -> str:
    """arXiv identifier without version ("2401.01234", "cs.LG/0601001" -> "cs/0601001" style kept)."""
    text = text or ""
    m = _ARXIV_NEW.search(text)
    if m:
        return m.group(1)
    m = _ARXIV_OLD.search(text)
    return m.group(1).lower() if m else ""
