"""Open-web retrieval: an HTTP JSON search API (SearxNG-style) plus page fetching and text
extraction with the standard library's html.parser.

SearxNG: GET {search_url}?q=QUERY&format=json -> {"results": [{"url", "title", "content"}, ...]}.
Other APIs fit by naming their fields (`results_key`, `url_key`, `title_key`, `snippet_key`).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import requests

from workers.retrieval.documents import Document

# Elements whose text is never page content.
_SKIP = {
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "head",
    "nav",
    "footer",
    "header",
    "aside",
    "form",
    "iframe",
}
_BLOCK = {
    "p",
    "div",
    "br",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "section",
    "article",
    "main",
    "pre",
    "blockquote",
    "td",
    "dd",
    "dt",
}


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip_depth = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP:
            self._skip_depth += 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP and self._skip_depth:
            self._skip_depth -= 1
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip_depth:
            self.parts.append(data)


def extract_text(html: str) -> tuple[str, str]:
    """(title, main text) of an HTML page: drops scripts, styles, navigation, headers, footers
    and forms; collapses whitespace; keeps paragraph breaks."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    lines = [re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in text.split("\n")]
    return parser.title.strip(), "\n".join(line for line in lines if line)


class SearchAPIRetriever:
    """Web search through a JSON search API, fetching each hit's page for its text.

    When a page cannot be fetched or holds no text, the search snippet stands in for it and
    `meta["fetched"]` is False, so drill-downs show what the model actually saw.
    """

    name = "web"

    def __init__(
        self,
        search_url: str,
        *,
        fetch_pages: bool = True,
        max_chars: int = 2000,
        timeout: float = 10.0,
        extra_params: dict | None = None,
        results_key: str = "results",
        url_key: str = "url",
        title_key: str = "title",
        snippet_key: str = "content",
        user_agent: str = "crucible-safety-eval/0.1",
    ) -> None:
        if not search_url.startswith(("http://", "https://")):
            raise ValueError(f"search_url: expected an http(s) URL, got {search_url!r}")
        if max_chars < 1 or timeout <= 0:
            raise ValueError("max_chars must be >= 1 and timeout > 0")
        self.search_url = search_url
        self.fetch_pages, self.max_chars, self.timeout = fetch_pages, max_chars, timeout
        self.params = {"format": "json", **(extra_params or {})}
        self.keys = (results_key, url_key, title_key, snippet_key)
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self.failed_fetches = 0

    def _hits(self, query: str) -> list[dict]:
        resp = self.session.get(
            self.search_url, params={"q": query, **self.params}, timeout=self.timeout
        )
        if resp.status_code != 200:
            raise RuntimeError(f"search API {self.search_url}: HTTP {resp.status_code}")
        try:
            hits = resp.json()[self.keys[0]]
        except (ValueError, KeyError, TypeError):
            raise RuntimeError(
                f"search API {self.search_url}: no '{self.keys[0]}' list in the JSON "
                "answer (for SearxNG enable the json format in settings.yml)"
            ) from None
        if not isinstance(hits, list):
            raise RuntimeError(f"search API {self.search_url}: '{self.keys[0]}' is not a list")
        return hits

    def fetch(self, url: str) -> tuple[str, str] | None:
        """(title, text) of the page at `url`, or None when it cannot be fetched as HTML/text."""
        try:
            resp = self.session.get(url, timeout=self.timeout)
        except requests.RequestException:
            return None
        ctype = resp.headers.get("Content-Type", "")
        if resp.status_code != 200 or not ("html" in ctype or "text" in ctype):
            return None
        if "html" in ctype:
            return extract_text(resp.text)
        return "", resp.text.strip()

    def search(self, query: str, k: int) -> list[Document]:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        _, url_key, title_key, snippet_key = self.keys
        docs: list[Document] = []
        for rank, hit in enumerate(self._hits(query)[:k]):
            url = str(hit.get(url_key, ""))
            title, snippet = str(hit.get(title_key, "")), str(hit.get(snippet_key, ""))
            page = self.fetch(url) if self.fetch_pages and url else None
            if page is None or not page[1]:
                self.failed_fetches += bool(self.fetch_pages and url)
                text, fetched = snippet, False
            else:
                text, fetched = page[1], True
                title = title or page[0]
            docs.append(
                Document(
                    url or f"hit-{rank}",
                    title,
                    text[: self.max_chars],
                    url=url,
                    score=float(k - rank),
                    meta={"fetched": fetched},
                )
            )
        return docs
