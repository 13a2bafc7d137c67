"""Prompts for the watermark benchmark, read from the Python standard library on this machine.

Two regimes (the paper's low-entropy vs higher-entropy comparison):
- "code": windows of source code from a fixed list of stdlib modules (code completion is the
  paper's low-entropy case: the continuation is nearly determined);
- "text": English prose from the same modules' docstrings (higher entropy).
The stdlib ships with every Python, so no download is needed; the SHA-256 of the text used is
recorded with the run, since it changes with the Python version.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import sysconfig
from pathlib import Path

import numpy as np

MODULES = (
    "textwrap.py",
    "string.py",
    "heapq.py",
    "bisect.py",
    "fractions.py",
    "statistics.py",
    "fnmatch.py",
    "shlex.py",
    "glob.py",
    "colorsys.py",
    "calendar.py",
    "difflib.py",
    "json/decoder.py",
    "json/encoder.py",
    "csv.py",
    "argparse.py",
    "random.py",
    "functools.py",
)


def _stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


@functools.lru_cache(maxsize=1)  # parsing the modules costs seconds; the text never changes
def load_corpus() -> tuple[str, str, str]:
    """(code, prose, sha256 of both): source with docstrings kept, and the docstrings alone."""
    code_parts, prose_parts = [], []
    root = _stdlib_dir()
    for name in MODULES:
        path = root / name
        if not path.is_file():
            continue
        src = path.read_text(encoding="utf-8", errors="replace")
        code_parts.append(src)
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc and len(doc) > 80:
                    prose_parts.append(" ".join(doc.split()))
    if not code_parts:
        raise FileNotFoundError(f"none of the stdlib modules {MODULES} were found under {root}")
    code, prose = "\n".join(code_parts), "\n".join(prose_parts)
    digest = hashlib.sha256((code + "\0" + prose).encode()).hexdigest()
    return code, prose, digest


def sample_prompts(text: str, n: int, length: int, rng: np.random.Generator) -> list[str]:
    """n windows of `length` characters starting at a line start (code) or sentence start (text)."""
    if len(text) < length + 1:
        raise ValueError(f"corpus has {len(text)} characters, fewer than prompt length {length}")
    starts = [
        i + 1 for i, ch in enumerate(text[: -length - 1]) if ch in "\n." and text[i + 1] != "\n"
    ]
    if not starts:
        starts = list(range(len(text) - length))
    picks = rng.choice(len(starts), size=n, replace=len(starts) < n)
    return [text[starts[i] : starts[i] + length].lstrip(" ").ljust(length)[:length] for i in picks]
