"""The document of a Dynamic Live Survey as plain data: validation, conversion to a `Survey`
for auditing, Markdown and BibTeX export, and readable diffs between versions.

content = {"abstract": str, "sections": [{"title": str, "level": 1..3, "text": str,
           "keywords": [str], "references": [{"key", "title", "authors", "year", "doi",
           "arxiv_id", "venue"}]}]}
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from workers.surveys.bibtex import write_bibtex
from workers.surveys.document import Reference, Section, Survey, build_tree

REF_FIELDS = ("key", "title", "authors", "year", "doi", "arxiv_id", "venue")


def validate_content(content: Any) -> dict:
    """Normalised content, or ValueError({field: reason}) naming the first bad field of each kind."""
    errors: dict[str, str] = {}
    if not isinstance(content, dict):
        raise ValueError({"content": "must be an object with 'sections'"})
    sections = content.get("sections")
    if not isinstance(sections, list) or not sections:
        raise ValueError({"content.sections": "must be a non-empty list"})
    out_sections, titles, keys = [], set(), {}
    for i, sec in enumerate(sections):
        where = f"content.sections[{i}]"
        if not isinstance(sec, dict) or not str(sec.get("title", "")).strip():
            errors[f"{where}.title"] = "is required"
            continue
        title = str(sec["title"]).strip()[:300]
        if title in titles:
            errors[f"{where}.title"] = f"duplicate section title {title!r}"
        titles.add(title)
        level = sec.get("level", 1)
        if level not in (1, 2, 3):
            errors[f"{where}.level"] = "must be 1, 2 or 3"
        refs = []
        for j, ref in enumerate(sec.get("references") or []):
            if not isinstance(ref, dict) or not re.fullmatch(
                r"[\w:.\-/]+", str(ref.get("key", ""))
            ):
                errors[f"{where}.references[{j}].key"] = "is required (letters, digits, : . - / _)"
                continue
            if not str(ref.get("title", "")).strip():
                errors[f"{where}.references[{j}].title"] = "is required"
            year = ref.get("year")
            if year is not None and (not isinstance(year, int) or not 1000 <= year <= 2200):
                errors[f"{where}.references[{j}].year"] = "must be a 4-digit integer or null"
            clean = {f: ref.get(f) for f in REF_FIELDS}
            clean["authors"] = [str(a) for a in (ref.get("authors") or [])]
            for f in ("title", "doi", "arxiv_id", "venue"):
                clean[f] = str(clean[f] or "")
            if clean["key"] in keys and keys[clean["key"]] != clean["title"]:
                errors[f"{where}.references[{j}].key"] = (
                    f"key {clean['key']!r} is used for two different titles"
                )
            keys[clean["key"]] = clean["title"]
            refs.append(clean)
        kws = sec.get("keywords") or []
        if not isinstance(kws, list) or not all(isinstance(k, str) for k in kws):
            errors[f"{where}.keywords"] = "must be a list of strings"
            kws = []
        out_sections.append(
            {
                "title": title,
                "level": level,
                "text": str(sec.get("text", "")),
                "keywords": [k.strip() for k in kws if k.strip()],
                "references": refs,
            }
        )
    if errors:
        raise ValueError(errors)
    return {"abstract": str(content.get("abstract", "")), "sections": out_sections}


def all_references(content: dict) -> list[dict]:
    seen, out = set(), []
    for sec in content["sections"]:
        for ref in sec["references"]:
            if ref["key"] not in seen:
                seen.add(ref["key"])
                out.append(ref)
    return out


def reference_from_dict(d: dict) -> Reference:
    return Reference(
        key=d["key"],
        title=d["title"],
        authors=list(d["authors"]),
        year=d.get("year"),
        doi=(d.get("doi") or "").lower(),
        arxiv_id=d.get("arxiv_id") or "",
        venue=d.get("venue") or "",
    )


def content_to_survey(title: str, content: dict, year: int | None = None) -> Survey:
    """A section cites all its curated references; paragraphs are the blank-line-separated text."""
    flat = [
        Section(
            title=s["title"],
            level=s["level"],
            paragraphs=[p.strip() for p in re.split(r"\n\s*\n", s["text"]) if p.strip()],
            citations=[r["key"] for r in s["references"]],
        )
        for s in content["sections"]
    ]
    return Survey(
        title=title,
        sections=build_tree(flat),
        references=[reference_from_dict(r) for r in all_references(content)],
        year=year,
        abstract=content.get("abstract", ""),
    )


def to_markdown(title: str, content: dict, version: int | None = None) -> str:
    lines = [f"# {title}", ""]
    if version is not None:
        lines += [f"*Version {version}*", ""]
    if content.get("abstract"):
        lines += [content["abstract"], ""]
    for sec in content["sections"]:
        lines += ["#" * (sec["level"] + 1) + " " + sec["title"], ""]
        if sec["text"].strip():
            lines += [sec["text"].strip(), ""]
        if sec["references"]:
            lines += ["References: " + "; ".join(f"[@{r['key']}]" for r in sec["references"]), ""]
    lines += ["## Bibliography", ""]
    for r in all_references(content):
        ident = (
            f" doi:{r['doi']}" if r["doi"] else (f" arXiv:{r['arxiv_id']}" if r["arxiv_id"] else "")
        )
        lines.append(
            f"- [@{r['key']}] {', '.join(r['authors'][:3])}{' et al.' if len(r['authors']) > 3 else ''}. "
            f"*{r['title']}*. {r.get('venue') or ''} {r.get('year') or ''}.{ident}".replace(
                "  ", " "
            )
        )
    return "\n".join(lines).rstrip() + "\n"


def to_bibtex(content: dict) -> str:
    return write_bibtex([reference_from_dict(r) for r in all_references(content)])


def diff(title: str, old: dict, new: dict, old_label: str = "old", new_label: str = "new") -> str:
    """Unified diff of the Markdown exports (what a reader sees), line by line."""
    return "".join(
        difflib.unified_diff(
            to_markdown(title, old).splitlines(keepends=True),
            to_markdown(title, new).splitlines(keepends=True),
            fromfile=old_label,
            tofile=new_label,
            n=2,
        )
    )
