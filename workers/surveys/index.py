"""Bibliographic index: paper metadata from arXiv JSON-lines, BibTeX and DBLP XML, and the
matching of a survey's references against it (DOI, arXiv id, fuzzy title+author+year)."""

from __future__ import annotations

import html
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from difflib import SequenceMatcher
from pathlib import Path

from workers.surveys.bibtex import latex_to_text, read_references
from workers.surveys.document import Reference, normalize_arxiv, normalize_doi

_STOP = frozenset(
    "a an the of for and in on with to via from by at is are towards toward using".split()
)


@dataclass
class IndexPaper:
    pid: str  # arXiv id, DOI or DBLP key: unique within an index
    title: str
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    doi: str = ""
    arxiv_id: str = ""
    abstract: str = ""
    categories: list[str] = field(default_factory=list)
    published: str = ""  # ISO date of first version, when known
    citation_count: int | None = None
    source: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def normalize_title(title: str) -> str:
    text = unicodedata.normalize("NFKD", latex_to_text(title)).encode("ascii", "ignore").decode()
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


def title_tokens(title: str) -> set[str]:
    return {t for t in normalize_title(title).split() if t not in _STOP and len(t) > 1}


def last_name(author: str) -> str:
    author = (
        unicodedata.normalize("NFKD", author).encode("ascii", "ignore").decode().strip().lower()
    )
    if "," in author:
        return author.split(",")[0].strip()
    parts = re.sub(r"[^a-z\s\-]", " ", author).split()
    return parts[-1] if parts else ""


def title_similarity(a: str, b: str) -> float:
    """difflib ratio of the normalised titles, in [0, 1]."""
    return SequenceMatcher(None, normalize_title(a), normalize_title(b)).ratio()


def author_overlap(a: list[str], b: list[str]) -> float:
    """|last names in common| / min(|a|, |b|); 0 when either list is empty."""
    la, lb = {last_name(x) for x in a} - {""}, {last_name(x) for x in b} - {""}
    return len(la & lb) / min(len(la), len(lb)) if la and lb else 0.0


@dataclass
class Match:
    ref_key: str
    status: str  # "doi", "arxiv", "fuzzy" or "unmatched"
    paper: IndexPaper | None
    score: float
    candidates: list[tuple[float, IndexPaper]] = field(default_factory=list)
    reason: str = ""


class BibIndex:
    """In-memory index with exact lookups by DOI / arXiv id and token-blocked fuzzy search."""

    def __init__(self, papers: list[IndexPaper] | None = None) -> None:
        self.papers: list[IndexPaper] = []
        self._by_doi: dict[str, int] = {}
        self._by_arxiv: dict[str, int] = {}
        self._by_token: dict[str, list[int]] = defaultdict(list)
        for p in papers or []:
            self.add(p)

    def __len__(self) -> int:
        return len(self.papers)

    def add(self, paper: IndexPaper) -> None:
        i = len(self.papers)
        self.papers.append(paper)
        if paper.doi:
            self._by_doi.setdefault(paper.doi, i)
        if paper.arxiv_id:
            self._by_arxiv.setdefault(paper.arxiv_id, i)
        for tok in title_tokens(paper.title):
            self._by_token[tok].append(i)

    def get(self, *, doi: str = "", arxiv_id: str = "") -> IndexPaper | None:
        if doi and doi.lower() in self._by_doi:
            return self.papers[self._by_doi[doi.lower()]]
        if arxiv_id and arxiv_id in self._by_arxiv:
            return self.papers[self._by_arxiv[arxiv_id]]
        return None

    def candidates(self, ref: Reference, k: int = 3) -> list[tuple[float, IndexPaper]]:
        """The k closest papers by fuzzy score (see `fuzzy_score`), best first."""
        toks = title_tokens(ref.title)
        counts: dict[int, int] = defaultdict(int)
        for t in toks:
            for i in self._by_token.get(t, ()):
                counts[i] += 1
        # Only papers sharing at least a third of the title's content words are scored.
        pool = [i for i, c in counts.items() if c >= max(1, len(toks) // 3)]
        scored = sorted(
            ((fuzzy_score(ref, self.papers[i]), self.papers[i]) for i in pool), key=lambda t: -t[0]
        )
        return scored[:k]

    def match(
        self,
        ref: Reference,
        *,
        threshold: float = 0.85,
        use_fuzzy: bool = True,
        id_title_min: float = 0.75,
    ) -> Match:
        """Match one reference: DOI, then arXiv id, then fuzzy title+author+year (Eq. in docs)."""
        for kind, ident, p in (
            ("doi", ref.doi, self.get(doi=ref.doi)),
            ("arxiv", ref.arxiv_id, self.get(arxiv_id=ref.arxiv_id)),
        ):
            if p is None:
                continue
            sim = title_similarity(ref.title, p.title) if ref.title else 1.0
            if sim >= id_title_min:
                return Match(ref.key, kind, p, 1.0, reason=f"{kind} {ident} found in the index")
            # A real identifier under a different title is a typical fabrication pattern.
            return Match(
                ref.key,
                "unmatched",
                None,
                sim,
                [(sim, p)],
                reason=f"{kind} {ident} exists but belongs to '{p.title}' (title similarity {sim:.2f})",
            )
        cands = self.candidates(ref) if use_fuzzy and ref.title else []
        if cands and cands[0][0] >= threshold:
            return Match(
                ref.key,
                "fuzzy",
                cands[0][1],
                cands[0][0],
                cands,
                reason=f"title/author/year score {cands[0][0]:.2f} >= {threshold}",
            )
        why = []
        if ref.doi:
            why.append(f"DOI {ref.doi} is not in the index")
        if ref.arxiv_id:
            why.append(f"arXiv id {ref.arxiv_id} is not in the index")
        why.append(
            f"best fuzzy score {cands[0][0]:.2f} < {threshold}"
            if cands
            else "no paper shares its title words"
        )
        return Match(
            ref.key, "unmatched", None, cands[0][0] if cands else 0.0, cands, reason="; ".join(why)
        )


def fuzzy_score(ref: Reference, paper: IndexPaper) -> float:
    """S = 0.7 * title_sim + 0.2 * author_overlap + 0.1 * year_agreement (see docs/surveys.md)."""
    year_ok = (
        1.0
        if ref.year is None or paper.year is None
        else max(0.0, 1.0 - abs(ref.year - paper.year) / 2)
    )
    authors = author_overlap(ref.authors, paper.authors) if ref.authors and paper.authors else 0.5
    return 0.7 * title_similarity(ref.title, paper.title) + 0.2 * authors + 0.1 * year_ok


# --- loaders ------------------------------------------------------------------------------


def _arxiv_date(record: dict) -> str:
    versions = record.get("versions") or []
    if versions and isinstance(versions[0], dict) and versions[0].get("created"):
        try:
            return (
                datetime.strptime(versions[0]["created"], "%a, %d %b %Y %H:%M:%S %Z")
                .date()
                .isoformat()
            )
        except ValueError:
            pass
    aid = record.get("id", "")
    m = re.match(r"(\d{2})(\d{2})\.", aid)  # new-style ids encode YYMM
    if m:
        return date(2000 + int(m.group(1)), int(m.group(2)), 1).isoformat()
    return record.get("update_date", "") or ""


def arxiv_record_to_paper(record: dict) -> IndexPaper:
    if "id" not in record or "title" not in record:
        raise ValueError("arXiv metadata record needs 'id' and 'title'")
    if record.get("authors_parsed"):
        authors = [" ".join(x for x in (a[1], a[0]) if x).strip() for a in record["authors_parsed"]]
    else:
        authors = [
            a.strip()
            for a in re.split(r",\s*|\s+and\s+", latex_to_text(record.get("authors", "")))
            if a.strip()
        ]
    published = _arxiv_date(record)
    aid = normalize_arxiv(record["id"]) or record["id"]
    return IndexPaper(
        pid=f"arXiv:{aid}",
        title=latex_to_text(record["title"]),
        authors=authors,
        year=int(published[:4]) if published[:4].isdigit() else None,
        doi=normalize_doi(record.get("doi") or ""),
        arxiv_id=aid,
        abstract=re.sub(r"\s+", " ", record.get("abstract", "")).strip(),
        categories=(record.get("categories") or "").split(),
        published=published,
        citation_count=record.get("citation_count"),
        source="arxiv",
    )


def load_arxiv_jsonl(path: str | Path, *, limit: int | None = None) -> list[IndexPaper]:
    """Read the Kaggle/arXiv metadata snapshot format, one JSON object per line."""
    out = []
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                out.append(arxiv_record_to_paper(json.loads(line)))
            except (json.JSONDecodeError, ValueError) as exc:
                raise ValueError(f"{path}:{lineno}: {exc}") from None
            if limit and len(out) >= limit:
                break
    return out


def load_bibtex_index(path: str | Path) -> list[IndexPaper]:
    return [
        IndexPaper(
            pid=r.doi or (f"arXiv:{r.arxiv_id}" if r.arxiv_id else f"bib:{r.key}"),
            title=r.title,
            authors=r.authors,
            year=r.year,
            doi=r.doi,
            arxiv_id=r.arxiv_id,
            source="bibtex",
        )
        for r in read_references(Path(path).read_text(errors="replace"))
    ]


_DBLP_KINDS = (
    "article",
    "inproceedings",
    "proceedings",
    "book",
    "incollection",
    "phdthesis",
    "mastersthesis",
)


def load_dblp_xml(path: str | Path) -> list[IndexPaper]:
    """DBLP XML (dblp.xml or an export); its DTD character entities are decoded first."""
    text = Path(path).read_text(errors="replace")
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text)
    text = re.sub(
        r"&(\w+);",
        lambda m: (
            m.group(0)
            if m.group(1) in ("amp", "lt", "gt", "quot", "apos")
            else html.unescape(m.group(0))
        ),
        text,
    )
    out = []
    for el in ET.fromstring(text).iter():
        if el.tag not in _DBLP_KINDS:
            continue
        title = "".join(el.find("title").itertext()) if el.find("title") is not None else ""
        ees = [e.text or "" for e in el.findall("ee")]
        doi = next((normalize_doi(e) for e in ees if "doi.org" in e), "")
        arxiv = next((normalize_arxiv(e) for e in ees if "arxiv.org" in e), "")
        year = el.findtext("year")
        out.append(
            IndexPaper(
                pid=f"dblp:{el.get('key', len(out))}",
                title=title.strip().rstrip("."),
                authors=[a.text or "" for a in el.findall("author")],
                year=int(year) if year and year.isdigit() else None,
                doi=doi,
                arxiv_id=arxiv,
                source="dblp",
            )
        )
    return out


def load_index(*paths: str | Path) -> BibIndex:
    """Build an index from files, by extension: .jsonl/.json (arXiv), .bib, .xml (DBLP)."""
    index = BibIndex()
    for path in paths:
        suffix = Path(path).suffix.lower()
        loader = {
            ".jsonl": load_arxiv_jsonl,
            ".json": load_arxiv_jsonl,
            ".bib": load_bibtex_index,
            ".xml": load_dblp_xml,
        }.get(suffix)
        if loader is None:
            raise ValueError(
                f"index_paths: unsupported index format {suffix!r} (.jsonl, .bib or .xml)"
            )
        for p in loader(path):
            index.add(p)
    return index
