"""Ingest a survey from LaTeX (+ .bib), Markdown or PDF into a `Survey`.

LaTeX: \\title, \\section/\\subsection/\\subsubsection, paragraphs split on blank lines,
\\cite-family commands, \\bibliography{} resolved next to the .tex (or passed explicitly),
\\input/\\include followed. Markdown: # headings, [@key] / \\cite{} citations, a .bib beside it.
PDF: text extraction with pypdf; headings are numbered lines ("2.1 Title"); the reference list
after a "References" heading is split into numbered entries and parsed heuristically.
"""

from __future__ import annotations

import re
from pathlib import Path

from workers.surveys.bibtex import latex_to_text, read_references
from workers.surveys.document import (
    Reference,
    Section,
    Survey,
    build_tree,
    normalize_arxiv,
    normalize_doi,
)

_CITE = re.compile(r"\\(?:no)?cite[a-zA-Z]*\*?(?:\[[^\]]*\]){0,2}\{([^}]*)\}")
_HEAD = re.compile(r"\\(section|subsection|subsubsection)\*?\{((?:[^{}]|\{[^{}]*\})*)\}")
_LEVEL = {"section": 1, "subsection": 2, "subsubsection": 3}


class IngestError(ValueError):
    pass


def _strip_comments(tex: str) -> str:
    return re.sub(r"(?<!\\)%.*", "", tex)


def _expand_inputs(tex: str, base: Path, depth: int = 0) -> str:
    if depth > 5:
        raise IngestError("\\input nesting deeper than 5 levels (a cycle?)")

    def repl(m: re.Match) -> str:
        path = base / m.group(1)
        path = path if path.suffix else path.with_suffix(".tex")
        return (
            _expand_inputs(_strip_comments(path.read_text(errors="replace")), base, depth + 1)
            if path.is_file()
            else ""
        )

    return re.sub(r"\\(?:input|include)\{([^}]*)\}", repl, tex)


def _clean_paragraph(text: str) -> str:
    text = re.sub(r"[~\s]*" + _CITE.pattern, "", text)  # "see~\cite{x}." -> "see."
    text = re.sub(r"\\(?:label|ref|eqref|url|href)\{[^}]*\}", "", text)
    text = re.sub(r"\\begin\{[^}]*\}|\\end\{[^}]*\}|\\item\b", " ", text)
    return latex_to_text(text)


def _sections_from_body(body: str, cite_pattern: re.Pattern, clean) -> list[Section]:
    flat: list[Section] = []
    current = Section(title="(preamble)", level=1)
    pieces = [(None, body)]
    heads = list(_HEAD.finditer(body)) if cite_pattern is _CITE else []
    if heads:
        pieces = [(None, body[: heads[0].start()])]
        for i, h in enumerate(heads):
            end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
            pieces.append((h, body[h.end() : end]))
    for head, chunk in pieces:
        if head is not None:
            current = Section(title=latex_to_text(head.group(2)), level=_LEVEL[head.group(1)])
        for para in re.split(r"\n\s*\n", chunk):
            keys = [
                k.strip()
                for m in cite_pattern.finditer(para)
                for k in m.group(1).split(",")
                if k.strip()
            ]
            current.citations.extend(keys)
            text = clean(para)
            if len(text.split()) >= 5:
                current.paragraphs.append(text)
        if head is not None or current.paragraphs or current.citations:
            if not flat or flat[-1] is not current:
                flat.append(current)
    return build_tree(flat)


def parse_latex(
    tex: str, bib_text: str = "", *, base_dir: str | Path | None = None, source: str = ""
) -> Survey:
    """Parse LaTeX source text (and BibTeX text) into a Survey."""
    tex = _strip_comments(tex)
    if base_dir is not None:
        tex = _expand_inputs(tex, Path(base_dir))
    title = re.search(r"\\title\{((?:[^{}]|\{[^{}]*\})*)\}", tex)
    abstract = re.search(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", tex, re.S)
    body_m = re.search(r"\\begin\{document\}(.*?)(\\end\{document\}|$)", tex, re.S)
    body = body_m.group(1) if body_m else tex
    body = re.sub(r"\\begin\{abstract\}.*?\\end\{abstract\}", "", body, flags=re.S)
    body = re.sub(r"\\(?:bibliography|bibliographystyle|maketitle)\b(\{[^}]*\})?", "", body)
    year = re.search(r"\\date\{[^}]*?(\d{4})", tex)
    return Survey(
        title=latex_to_text(title.group(1)) if title else "",
        abstract=_clean_paragraph(abstract.group(1)) if abstract else "",
        sections=_sections_from_body(body, _CITE, _clean_paragraph),
        references=read_references(bib_text) if bib_text else [],
        year=int(year.group(1)) if year else None,
        source=source,
    )


def load_latex(tex_path: str | Path, bib_path: str | Path | None = None) -> Survey:
    """Read a .tex file; the .bib named by \\bibliography{} (or `bib_path`) is read beside it."""
    tex_path = Path(tex_path)
    if not tex_path.is_file():
        raise IngestError(f"tex_path: {tex_path} is not a file")
    tex = tex_path.read_text(errors="replace")
    bib_texts = []
    if bib_path is not None:
        bib_texts.append(Path(bib_path).read_text(errors="replace"))
    else:
        for m in re.finditer(r"\\(?:bibliography|addbibresource)\{([^}]*)\}", _strip_comments(tex)):
            for name in m.group(1).split(","):
                p = tex_path.parent / name.strip()
                p = p if p.suffix == ".bib" else p.with_suffix(".bib")
                if p.is_file():
                    bib_texts.append(p.read_text(errors="replace"))
    return parse_latex(tex, "\n".join(bib_texts), base_dir=tex_path.parent, source=str(tex_path))


_MD_CITE = re.compile(r"\[((?:@[\w:\-./]+[;,\s]*)+)\]|\\cite[a-z]*\{([^}]*)\}")


def parse_markdown(md: str, bib_text: str = "", *, source: str = "") -> Survey:
    """Markdown: '# Title' first, '##'/'###'/'####' as sections, pandoc [@key] citations."""
    lines = md.splitlines()
    title = ""
    flat: list[Section] = []
    current = Section(title="(preamble)", level=1)
    buf: list[str] = []

    def flush() -> None:
        para = "\n".join(buf).strip()
        buf.clear()
        if not para:
            return
        for m in _MD_CITE.finditer(para):
            raw = m.group(1) or m.group(2) or ""
            current.citations.extend(
                k.strip().lstrip("@") for k in re.split(r"[;,]", raw) if k.strip()
            )
        text = re.sub(r"\s+", " ", re.sub(r"\s*(?:" + _MD_CITE.pattern + ")", "", para)).strip()
        if len(text.split()) >= 5:
            current.paragraphs.append(text)

    for line in lines:
        h = re.match(r"^(#{1,4})\s+(.*)", line)
        if h:
            flush()
            if len(h.group(1)) == 1 and not title:
                title = h.group(2).strip()
                continue
            current = Section(title=h.group(2).strip(), level=max(1, len(h.group(1)) - 1))
            flat.append(current)
        elif not line.strip():
            flush()
        else:
            buf.append(line)
    flush()
    return Survey(
        title=title,
        sections=build_tree(flat),
        references=read_references(bib_text) if bib_text else [],
        source=source,
    )


_NUM_HEAD = re.compile(r"^(\d+(?:\.\d+){0,2})\.?\s+([A-Z][^.!?]{2,80})$")
_REF_START = re.compile(r"^\s*(?:\[(\d+)\]|(\d+)\.)\s+")


def parse_reference_string(raw: str, key: str) -> Reference:
    """Heuristic parse of one formatted reference: authors. "Title". Venue, year. / arXiv / DOI."""
    text = re.sub(r"\s+", " ", raw).strip()
    # Years are searched with identifiers removed: "arXiv:2007.00808" is not the year 2007.
    no_ids = re.sub(r"(arxiv:\s*)?\d{4}\.\d{4,5}(v\d+)?|10\.\d{4,9}/\S+", " ", text, flags=re.I)
    year = re.findall(r"\b(19[5-9]\d|20[0-4]\d)\b", no_ids)
    quoted = re.search(r"[\"“](.+?)[,.]?[\"”]", text)
    if quoted:
        title = quoted.group(1)
        authors_part = text[: quoted.start()]
    else:
        parts = [p.strip() for p in re.split(r"(?<=[a-z\)])\.\s+(?=[A-Z0-9])", text) if p.strip()]
        authors_part = parts[0] if parts else ""
        title = parts[1] if len(parts) > 1 else text
    authors = [
        a.strip()
        for a in re.split(r",\s*(?:and\s+)?|\s+and\s+", authors_part.rstrip(". "))
        if a.strip()
    ]
    return Reference(
        key=key,
        title=title.strip(" ."),
        authors=[a for a in authors if len(a.split()) <= 4],
        year=int(year[-1]) if year else None,
        doi=normalize_doi(text),
        arxiv_id=normalize_arxiv(text),
        raw=text,
    )


def parse_pdf_text(text: str, *, source: str = "") -> Survey:
    """Survey structure from extracted PDF text (see module docstring for the conventions)."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    title = next((ln.strip() for ln in lines if ln.strip()), "")
    ref_at = next(
        (
            i
            for i, ln in enumerate(lines)
            if re.fullmatch(r"\s*(\d+\.?\s+)?(References|Bibliography)\s*", ln, re.I)
        ),
        None,
    )
    body, ref_lines = (
        (lines[1:ref_at], lines[ref_at + 1 :]) if ref_at is not None else (lines[1:], [])
    )
    refs: list[Reference] = []
    entries: list[tuple[str, list[str]]] = []
    for ln in ref_lines:
        m = _REF_START.match(ln)
        if m:
            entries.append((m.group(1) or m.group(2), [ln[m.end() :]]))
        elif entries and ln.strip():
            entries[-1][1].append(ln.strip())
    for num, chunk in entries:
        refs.append(parse_reference_string(" ".join(chunk), key=num))
    flat: list[Section] = []
    current = Section(title="(preamble)", level=1)
    buf: list[str] = []

    def flush() -> None:
        para = " ".join(buf).strip()
        buf.clear()
        keys = [
            k.strip()
            for m in re.finditer(r"\[([\d,\s\-–]+)\]", para)
            for k in _expand_range(m.group(1))
        ]
        current.citations.extend(keys)
        para = re.sub(r"\s*\[[\d,\s\-–]+\]", "", para)
        if len(para.split()) >= 5:
            current.paragraphs.append(para)

    for ln in body:
        h = _NUM_HEAD.match(ln.strip())
        if h:
            flush()
            current = Section(title=h.group(2).strip(), level=h.group(1).count(".") + 1)
            flat.append(current)
        elif not ln.strip():
            flush()
        else:
            buf.append(ln.strip())
            if re.search(r"[.!?]$", ln.strip()) and len(ln) < 60:
                flush()  # a short line ending a sentence usually ends a paragraph in extracted text
    flush()
    return Survey(title=title, sections=build_tree(flat), references=refs, source=source)


def _expand_range(spec: str) -> list[str]:
    out = []
    for part in spec.split(","):
        part = part.strip()
        r = re.fullmatch(r"(\d+)\s*[-–]\s*(\d+)", part)
        out += (
            [str(i) for i in range(int(r.group(1)), int(r.group(2)) + 1)]
            if r
            else ([part] if part else [])
        )
    return out


def load_pdf(path: str | Path) -> Survey:
    """Extract text from a PDF with pypdf and parse it."""
    from pypdf import PdfReader

    path = Path(path)
    if not path.is_file():
        raise IngestError(f"pdf_path: {path} is not a file")
    reader = PdfReader(str(path))
    text = "\n".join(page.extract_text() or "" for page in reader.pages)
    if not text.strip():
        raise IngestError(
            f"pdf_path: no extractable text in {path} (a scanned PDF needs OCR first)"
        )
    return parse_pdf_text(text, source=str(path))


def load_survey(path: str | Path, bib_path: str | Path | None = None) -> Survey:
    """Dispatch on the extension: .tex, .md/.markdown, .pdf."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".tex":
        return load_latex(path, bib_path)
    if suffix in (".md", ".markdown"):
        bib = Path(bib_path) if bib_path else path.with_suffix(".bib")
        return parse_markdown(
            path.read_text(errors="replace"),
            bib.read_text(errors="replace") if bib.is_file() else "",
            source=str(path),
        )
    if suffix == ".pdf":
        return load_pdf(path)
    raise IngestError(f"path: unsupported survey format {suffix!r} (use .tex, .md or .pdf)")
