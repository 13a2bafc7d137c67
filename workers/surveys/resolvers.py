"""Optional online resolvers (Crossref, OpenAlex, Semantic Scholar) for references the local
index cannot match. They are OFF unless the caller passes `enabled=True`: an audit must never
reach the network by surprise. `base_url` is configurable so that tests use a local server."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from dataclasses import dataclass

from workers.surveys.document import Reference, normalize_arxiv, normalize_doi
from workers.surveys.index import IndexPaper

DEFAULT_URLS = {
    "crossref": "https://api.crossref.org",
    "openalex": "https://api.openalex.org",
    "semanticscholar": "https://api.semanticscholar.org",
}


class ResolverDisabled(RuntimeError):
    pass


@dataclass
class OnlineResolver:
    """Look a reference up by its title in one bibliographic API; returns IndexPaper candidates."""

    service: str
    enabled: bool = False
    base_url: str = ""
    timeout: float = 10.0
    mailto: str = ""  # Crossref and OpenAlex ask polite clients to identify themselves
    rows: int = 3

    def __post_init__(self) -> None:
        if self.service not in DEFAULT_URLS:
            raise ValueError(
                f"service: unknown resolver {self.service!r}; choose one of {sorted(DEFAULT_URLS)}"
            )
        self.base_url = (self.base_url or DEFAULT_URLS[self.service]).rstrip("/")

    def _get(self, path: str, params: dict) -> dict:
        if not self.enabled:
            raise ResolverDisabled(
                f"{self.service} resolver is disabled; pass enabled=True to allow network access"
            )
        if self.mailto:
            params = {**params, "mailto": self.mailto}
        url = f"{self.base_url}{path}?{urllib.parse.urlencode(params)}"
        req = urllib.request.Request(url, headers={"User-Agent": "crucible-survey-audit/1.0"})
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            return json.loads(resp.read().decode())

    def search(self, ref: Reference) -> list[IndexPaper]:
        query = ref.title or ref.raw
        if not query:
            return []
        if self.service == "crossref":
            data = self._get("/works", {"query.bibliographic": query, "rows": self.rows})
            return [self._crossref(item) for item in data.get("message", {}).get("items", [])]
        if self.service == "openalex":
            data = self._get("/works", {"search": query, "per-page": self.rows})
            return [self._openalex(item) for item in data.get("results", [])]
        data = self._get(
            "/graph/v1/paper/search",
            {
                "query": query,
                "limit": self.rows,
                "fields": "title,authors,year,externalIds,citationCount",
            },
        )
        return [self._s2(item) for item in data.get("data", [])]

    @staticmethod
    def _crossref(item: dict) -> IndexPaper:
        parts = (item.get("issued") or {}).get("date-parts") or [[None]]
        doi = normalize_doi(item.get("DOI", ""))
        return IndexPaper(
            pid=doi or item.get("URL", ""),
            title=(item.get("title") or [""])[0],
            authors=[
                f"{a.get('given', '')} {a.get('family', '')}".strip()
                for a in item.get("author", [])
            ],
            year=parts[0][0],
            doi=doi,
            citation_count=item.get("is-referenced-by-count"),
            source="crossref",
        )

    @staticmethod
    def _openalex(item: dict) -> IndexPaper:
        doi = normalize_doi(item.get("doi") or "")
        ids = item.get("ids") or {}
        return IndexPaper(
            pid=item.get("id", doi),
            title=item.get("title") or item.get("display_name") or "",
            authors=[
                (a.get("author") or {}).get("display_name", "") for a in item.get("authorships", [])
            ],
            year=item.get("publication_year"),
            doi=doi,
            arxiv_id=normalize_arxiv(ids.get("arxiv", "")),
            citation_count=item.get("cited_by_count"),
            source="openalex",
        )

    @staticmethod
    def _s2(item: dict) -> IndexPaper:
        ext = item.get("externalIds") or {}
        return IndexPaper(
            pid=item.get("paperId", ""),
            title=item.get("title", ""),
            authors=[a.get("name", "") for a in item.get("authors", [])],
            year=item.get("year"),
            doi=normalize_doi(ext.get("DOI", "")),
            arxiv_id=normalize_arxiv(ext.get("ArXiv", "")),
            citation_count=item.get("citationCount"),
            source="semanticscholar",
        )
