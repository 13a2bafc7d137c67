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


def _file_digest(path: str | Path, digest, chunk: int = 1 << 20) -> str:
    """Feed the file to `digest` a chunk at a time; its hex digest."""
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    return _file_digest(path, hashlib.sha256(), chunk)


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


def git_blob_id(path: str | Path) -> str:
    """The id git gives the file's content: SHA-1 of b"blob <size>\\0" + content (what
    `git hash-object` prints), for releases that are pinned by a repository's tree."""
    header = f"blob {Path(path).stat().st_size}\0".encode()
    return _file_digest(path, hashlib.sha1(header, usedforsecurity=False))


def fetch_url(
    url: str, sha256: str, dest: str | Path, *, timeout: float = 60.0, git_blob: str = ""
) -> Path:
    """Download `url` once into `dest`, verifying its SHA-256 (or, with `git_blob` and no
    SHA-256, its git blob id); reuse a verified copy.

    `file://` URLs work too, which is how tests exercise this path without a network.
    """
    if not sha256 and not git_blob:
        raise ValueError(f"{url}: refusing to download without a pinned SHA-256 or git blob id")

    def verified(path) -> tuple[bool, str]:
        if sha256:
            actual = sha256_file(path)
            return actual == sha256, f"expected sha256 {sha256}, got {actual}"
        actual = git_blob_id(path)
        return actual == git_blob, f"expected git blob {git_blob}, got {actual}"

    dest = Path(dest)
    if dest.is_file() and verified(dest)[0]:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            shutil.copyfileobj(resp, out)
        ok, why = verified(tmp)
        if not ok:
            raise ChecksumMismatch(f"{url}: {why}")
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


class UnsafeArchive(ValueError):
    """An archive that would write outside its folder, or expand beyond the allowed size."""


def safe_extract(
    archive: str | Path,
    dest: str | Path,
    *,
    max_bytes: int = 50 * 1024**3,
    max_members: int = 500_000,
) -> Path:
    """Extract a .tar(.gz/.bz2/.xz) or .zip into `dest`, refusing path traversal, absolute
    paths, links and device files, and archives that expand beyond `max_bytes` or hold more than
    `max_members` entries (decompression bombs). Checks every entry before writing anything, and
    counts the bytes actually written so a lying header cannot get past the limit."""
    import tarfile
    import zipfile

    archive, dest = Path(archive), Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()

    def check_name(name: str) -> Path:
        target = (root / name).resolve()
        if (
            name.startswith(("/", "\\"))
            or ".." in Path(name).parts
            or not str(target).startswith(str(root))
        ):
            raise UnsafeArchive(
                f"{archive.name}: entry {name!r} would be written outside the target folder"
            )
        return target

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            if len(infos) > max_members:
                raise UnsafeArchive(
                    f"{archive.name}: {len(infos)} entries; the limit is {max_members}"
                )
            declared = sum(i.file_size for i in infos)
            if declared > max_bytes:
                raise UnsafeArchive(
                    f"{archive.name}: expands to {declared} bytes; the limit is {max_bytes}"
                )
            for info in infos:
                check_name(info.filename)
                if (info.external_attr >> 16) & 0o170000 == 0o120000:
                    raise UnsafeArchive(
                        f"{archive.name}: entry {info.filename!r} is a symbolic link"
                    )
            written = 0
            for info in infos:
                target = check_name(info.filename)
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as out:
                    while block := src.read(1 << 20):
                        written += len(block)
                        if written > max_bytes:
                            raise UnsafeArchive(f"{archive.name}: expands beyond {max_bytes} bytes")
                        out.write(block)
        return dest
    if not tarfile.is_tarfile(archive):
        raise UnsafeArchive(f"{archive.name}: neither a tar nor a zip archive")
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        if len(members) > max_members:
            raise UnsafeArchive(
                f"{archive.name}: {len(members)} entries; the limit is {max_members}"
            )
        declared = sum(m.size for m in members if m.isfile())
        if declared > max_bytes:
            raise UnsafeArchive(
                f"{archive.name}: expands to {declared} bytes; the limit is {max_bytes}"
            )
        for member in members:
            check_name(member.name)
            if not (member.isfile() or member.isdir()):
                raise UnsafeArchive(
                    f"{archive.name}: entry {member.name!r} is a link or special file"
                )
        try:
            tar.extractall(dest, filter="data")  # the stdlib's own guard on top of ours
        except tarfile.FilterError as exc:
            raise UnsafeArchive(f"{archive.name}: {exc}") from None
    return dest
