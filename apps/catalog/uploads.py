"""Content checks for uploaded dataset files, before anything is stored.

A file is checked by what its name says it is: CSV, TSV, JSON and JSON-lines must be UTF-8 and
parse completely (a truncated file fails here, not in the middle of a run hours later); archives
must extract safely (no path traversal, no links, no decompression bomb). Other kinds (.npy,
.pt, .wav, ...) are stored as they are: the benchmark that reads them owns their format.
Every refusal names the field (`file`) and the reason, with the line where there is one.
"""

from __future__ import annotations

import csv
import json
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError

from workers.core.data import UnsafeArchive, safe_extract

TEXT_TABLES = {".csv": ",", ".tsv": "\t"}
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")


def _refuse(reason: str) -> None:
    raise ValidationError({"file": reason})


def _kind(name: str) -> str:
    lower = name.lower()
    for suffix in ARCHIVES:
        if lower.endswith(suffix):
            return "archive"
    return Path(lower).suffix


def _not_utf8(raw: bytes, exc: UnicodeDecodeError, line: int) -> None:
    _refuse(f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}); save it as UTF-8")


def _text(uploaded) -> str:
    """The whole file as text: for JSON, which only parses as one document."""
    uploaded.seek(0)
    raw = uploaded.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        _not_utf8(raw, exc, raw[: exc.start].count(b"\n") + 1)
    return ""  # unreachable


def _lines(uploaded) -> Iterator[str]:
    """The file's lines decoded one at a time, line endings kept (csv needs them inside quoted
    fields): a table or JSON-lines file is checked in a chunk's worth of memory, whatever its
    size (uploads up to CRUCIBLE_MAX_UPLOAD_BYTES are spooled to disk, not held in memory)."""
    uploaded.seek(0)
    for number, raw in enumerate(uploaded, start=1):  # django File: lines across chunks
        try:
            yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            _not_utf8(raw, exc, number)


def _check_table(lines: Iterable[str], delimiter: str) -> None:
    rows = csv.reader(lines, delimiter=delimiter, strict=True)
    width = None
    try:
        for number, row in enumerate(rows, start=1):
            if not row:
                continue
            if width is None:
                width = len(row)
            elif len(row) != width:
                _refuse(
                    f"line {number} has {len(row)} columns; the header has {width} (truncated or malformed file?)"
                )
    except csv.Error as exc:
        _refuse(f"is not valid CSV at line {rows.line_num}: {exc}")
    if width is None:
        _refuse("has no rows")


def _check_json(text: str) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        _refuse(f"is not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")


def _check_jsonl(lines: Iterable[str]) -> None:
    seen = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            json.loads(line)
        except json.JSONDecodeError as exc:
            _refuse(f"line {number} is not valid JSON ({exc.msg} at column {exc.colno})")
        seen += 1
    if not seen:
        _refuse("holds no JSON lines")


def _check_archive(uploaded, name: str) -> None:
    limit = settings.CRUCIBLE_MAX_EXTRACT_BYTES
    with tempfile.TemporaryDirectory(prefix="crucible-upload-") as tmp:
        path = Path(tmp) / Path(name).name
        uploaded.seek(0)
        with open(path, "wb") as out:
            for chunk in uploaded.chunks():
                out.write(chunk)
        try:
            safe_extract(path, Path(tmp) / "x", max_bytes=limit)
        except UnsafeArchive as exc:
            _refuse(str(exc))
        except (EOFError, OSError, ValueError, tarfile.TarError, zipfile.BadZipFile) as exc:
            # tarfile/zipfile raise these for truncated or corrupt archives
            _refuse(
                f"{Path(name).name}: the archive is truncated or corrupt ({type(exc).__name__}: {exc})"
            )


def check_upload(uploaded) -> None:
    """Raise ValidationError({"file": reason}) unless the upload is well-formed for its kind."""
    name = uploaded.name or ""
    kind = _kind(name)
    if kind in TEXT_TABLES:
        _check_table(_lines(uploaded), TEXT_TABLES[kind])
    elif kind == ".json":
        _check_json(_text(uploaded))
    elif kind in (".jsonl", ".ndjson"):
        _check_jsonl(_lines(uploaded))
    elif kind == "archive":
        _check_archive(uploaded, name)
    uploaded.seek(0)
