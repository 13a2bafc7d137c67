"""Dataset declarations and the download-once data cache (URL + SHA-256)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SourceKind = Literal["generator", "bundled", "upload", "url", "shared"]


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset a benchmark uses. For kind "url", `url` and `sha256` are required."""

    name: str
    kind: SourceKind
    description: str = ""
    url: str = ""
    sha256: str = ""
    license: str = ""


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def sha256_tree(root: str | Path) -> str:
    """Content hash of a directory: relative paths and file hashes, in sorted order."""
    root = Path(root)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(sha256_file(path).encode())
    return digest.hexdigest()


class ChecksumMismatch(ValueError):
    pass


def fetch_url(url: str, sha256: str, dest: str | Path, *, timeout: float = 60.0) -> Path:
    """Download `url` once into `dest`, verifying its SHA-256; reuse a verified copy.

    `file://` URLs work too, which is how tests exercise this path without a network.
    """
    dest = Path(dest)
    if dest.is_file() and sha256_file(dest) == sha256:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            shutil.copyfileobj(resp, out)
        actual = sha256_file(tmp)
        if actual != sha256:
            raise ChecksumMismatch(f"{url}: expected sha256 {sha256}, got {actual}")
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest


def shared_data_dir() -> Path | None:
    """The read-only benchmark samples beside the checkout (../shared/data), if present."""
    env = os.environ.get("CRUCIBLE_SHARED_DATA")
    candidates = [Path(env)] if env else []
    here = Path(__file__).resolve()
    candidates += [parent / "shared" / "data" for parent in here.parents]
    candidates += [parent.parent / "shared" / "data" for parent in here.parents]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None
