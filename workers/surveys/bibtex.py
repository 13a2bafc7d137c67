"""A small BibTeX reader and writer (entries, braces, quotes, @string macros, LaTeX accents)."""

from __future__ import annotations

import re

from workers.surveys.document import Reference, normalize_arxiv, normalize_doi

_ACCENTS = re.compile(r"\\[`'^\"~=.uvHcdbtk]\s*\{?\\?([A-Za-z])\}?")


class BibTeXError(ValueError):
    pass


def latex_to_text(value: str) -> str:
    """Strip the LaTeX markup that BibTeX fields carry (accents, braces, commands, ~)."""
    value = _ACCENTS.sub(r"\1", value)
    value = re.sub(r"\\(?:textit|textbf|emph|mathrm|url)\s*\{([^{}]*)\}", r"\1", value)
    value = value.replace("~", " ").replace("\\&", "&").replace("{", "").replace("}", "")
    value = re.sub(r"\\[A-Za-z]+\s*", "", value)
    return re.sub(r"\s+", " ", value).strip()


def _read_value(text: str, i: int, strings: dict[str, str]) -> tuple[str, int]:
    """Read one field value starting at text[i]: {..}, ".." or a macro/number, joined by #."""
    parts: list[str] = []
    n = len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            raise BibTeXError("unexpected end of file inside a field value")
        if text[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            if depth:
                raise BibTeXError(f"unbalanced braces in value starting at offset {i}")
            parts.append(text[i + 1 : j - 1])
            i = j
        elif text[i] == '"':
            j, depth = i + 1, 0
            while j < n and not (text[j] == '"' and depth == 0):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            parts.append(text[i + 1 : j])
            i = j + 1
        else:
            m = re.match(r"[\w\-:.]+", text[i:])
            if not m:
                raise BibTeXError(f"cannot read a value at offset {i}: {text[i : i + 20]!r}")
            word = m.group(0)
            parts.append(strings.get(word.lower(), word))
            i += len(word)
        while i < n and text[i].isspace():
            i += 1
        if i < n and text[i] == "#":
            i += 1
            continue
        return "".join(parts), i


def parse_bibtex(text: str) -> list[dict[str, str]]:
    """Entries as dicts with "ENTRYTYPE", "ID" and lower-cased field names."""
    entries: list[dict[str, str]] = []
    strings: dict[str, str] = {}
    for m in re.finditer(r"@(\w+)\s*([{(])", text):
        kind = m.group(1).lower()
        i = m.end()
        if kind in ("comment", "preamble"):
            continue
        if kind == "string":
            name = re.match(r"\s*([\w\-]+)\s*=", text[i:])
            if name:
                value, _ = _read_value(text, i + name.end(), strings)
                strings[name.group(1).lower()] = value
            continue
        key = re.match(r"\s*([^,\s]+)\s*,", text[i:])
        if not key:
            raise BibTeXError(f"@{kind} entry at offset {m.start()} has no citation key")
        entry = {"ENTRYTYPE": kind, "ID": key.group(1)}
        i += key.end()
        while True:
            fm = re.match(r"\s*([\w\-]+)\s*=", text[i:])
            if not fm:
                break
            value, i = _read_value(text, i + fm.end(), strings)
            entry[fm.group(1).lower()] = value
            if i < len(text) and text[i] == ",":
                i += 1
        entries.append(entry)
    return entries


def split_authors(field: str) -> list[str]:
    """ "Last, First and First Last" -> ["First Last", "First Last"]."""
    out = []
    for name in re.split(r"\s+and\s+", latex_to_text(field)):
        name = name.strip()
        if not name or name.lower() == "others":
            continue
        if "," in name:
            last, first = name.split(",", 1)
            name = f"{first.strip()} {last.strip()}".strip()
        out.append(name)
    return out


def entry_to_reference(entry: dict[str, str]) -> Reference:
    year = re.search(r"\d{4}", entry.get("year", "") or entry.get("date", ""))
    eprint = (
        entry.get("eprint", "") if "arxiv" in entry.get("archiveprefix", "arxiv").lower() else ""
    )
    arxiv = normalize_arxiv(eprint or entry.get("journal", "") + " " + entry.get("url", ""))
    return Reference(
        key=entry["ID"],
        title=latex_to_text(entry.get("title", "")),
        authors=split_authors(entry.get("author", "")),
        year=int(year.group(0)) if year else None,
        doi=normalize_doi(entry.get("doi", "")),
        arxiv_id=arxiv,
        venue=latex_to_text(entry.get("journal", "") or entry.get("booktitle", "")),
    )


def read_references(text: str) -> list[Reference]:
    return [entry_to_reference(e) for e in parse_bibtex(text)]


def _escape(value: str) -> str:
    return value.replace("{", "").replace("}", "")


def write_bibtex(refs: list[Reference]) -> str:
    """Serialise references as BibTeX (@article when a venue is known, else @misc)."""
    chunks = []
    for r in refs:
        fields = [("title", "{" + _escape(r.title) + "}"), ("author", " and ".join(r.authors))]
        if r.year:
            fields.append(("year", str(r.year)))
        if r.venue:
            fields.append(("journal", r.venue))
        if r.doi:
            fields.append(("doi", r.doi))
        if r.arxiv_id:
            fields += [("eprint", r.arxiv_id), ("archiveprefix", "arXiv")]
        body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
        chunks.append(f"@{'article' if r.venue else 'misc'}{{{r.key},\n{body}\n}}\n")
    return "\n".join(chunks)
