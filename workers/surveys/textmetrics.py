"""Text metrics: semantic similarity between surveys, within-survey redundancy, taxonomy
originality (section-tree similarity) and machine-generation indicators.

Every similarity is a cosine of L2-normalised embeddings (embed.py). Formulas: docs/surveys.md.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from workers.surveys.document import Survey
from workers.surveys.embed import Embedder, cosine_matrix, mean_direction


def survey_embedding(survey: Survey, embedder: Embedder) -> np.ndarray:
    """e(S) = normalise(mean of paragraph embeddings); title + abstract when there is no body."""
    texts = [p for _, p in survey.paragraphs()] or [f"{survey.title}. {survey.abstract}"]
    return mean_direction(embedder.encode(texts))


def near_duplicate_paragraphs(
    paragraphs: list[str], embedder: Embedder, tau: float
) -> tuple[float, list[tuple[int, int, float]]]:
    """Redundancy R = |{i : exists j != i, cos(p_i, p_j) >= tau}| / n, and the pairs (i, j, cos)."""
    n = len(paragraphs)
    if n < 2:
        return 0.0, []
    sim = cosine_matrix(E := embedder.encode(paragraphs), E)
    np.fill_diagonal(sim, -1.0)
    pairs = [
        (int(i), int(j), float(sim[i, j]))
        for i, j in zip(*np.nonzero(np.triu(sim >= tau, k=1)), strict=True)
    ]
    involved = {i for i, _, _ in pairs} | {j for _, j, _ in pairs}
    return len(involved) / n, sorted(pairs, key=lambda t: -t[2])


def _nodes(survey: Survey) -> list[tuple[int, str]]:
    return [(lvl, title) for lvl, title in survey.outline() if title != "(preamble)"]


def tree_similarity(a: Survey, b: Survey, embedder: Embedder, level_penalty: float = 0.2) -> float:
    """Soft node matching between two section trees:
    T(a, b) = 1/2 [mean_i max_j w_ij c_ij + mean_j max_i w_ij c_ij], c = cosine of section titles,
    w_ij = 1 - level_penalty * |depth_i - depth_j| (a section matched to a subsection counts less)."""
    na, nb = _nodes(a), _nodes(b)
    if not na or not nb:
        return 0.0
    c = cosine_matrix(embedder.encode([t for _, t in na]), embedder.encode([t for _, t in nb]))
    da = np.array([lvl for lvl, _ in na])[:, None]
    db = np.array([lvl for lvl, _ in nb])[None, :]
    w = np.clip(1.0 - level_penalty * np.abs(da - db), 0.0, 1.0)
    s = w * c
    return float(0.5 * (s.max(axis=1).mean() + s.max(axis=0).mean()))


# Words whose frequency in scientific abstracts rose sharply after ChatGPT's release
# (Liang et al. 2024, "Mapping the increasing use of LLMs in scientific papers"; Kobak et al.
# 2024, "Delving into ChatGPT usage in academic writing through excess vocabulary").
LLM_MARKERS = frozenset(
    """delve delves delving intricate intricacies tapestry underscore underscores underscoring
pivotal realm showcasing showcase showcases meticulous meticulously commendable multifaceted notably
noteworthy landscape seamless seamlessly unveil unveils unveiling garnered garner leveraging holistic
comprehensive invaluable paramount nuanced groundbreaking transformative""".split()
)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if len(s.split()) >= 3]


def machine_generation_indicators(text: str, window: int = 100) -> dict[str, float]:
    """Stylometric indicators (not a detector):
    - marker_rate: LLM-favoured words per 1,000 words;
    - burstiness: coefficient of variation of sentence lengths (std/mean); low = uniform;
    - mattr: moving-average type-token ratio over `window`-word windows;
    - repeated_trigram_rate: share of word trigrams occurring more than once."""
    words = re.findall(r"[a-z']+", text.lower())
    n = len(words)
    if n == 0:
        return {
            "marker_rate": float("nan"),
            "burstiness": float("nan"),
            "mattr": float("nan"),
            "repeated_trigram_rate": float("nan"),
            "words": 0.0,
        }
    lengths = np.array([len(s.split()) for s in _sentences(text)], dtype=float)
    burst = float(lengths.std() / lengths.mean()) if lengths.size >= 2 else float("nan")
    if n <= window:
        mattr = len(set(words)) / n
    else:
        counts = Counter(words[:window])
        ttrs = [len(counts)]
        for i in range(window, n):  # slide the window one word at a time
            counts[words[i]] += 1
            counts[words[i - window]] -= 1
            if counts[words[i - window]] == 0:
                del counts[words[i - window]]
            ttrs.append(len(counts))
        mattr = float(np.mean(ttrs) / window)
    tri = Counter(zip(words, words[1:], words[2:], strict=False))
    repeated = sum(c for c in tri.values() if c > 1) / max(sum(tri.values()), 1)
    return {
        "marker_rate": 1000.0 * sum(w in LLM_MARKERS for w in words) / n,
        "burstiness": burst,
        "mattr": float(mattr),
        "repeated_trigram_rate": float(repeated),
        "words": float(n),
    }


MGT_CAVEATS = (
    "These are indicators, not a detector. Known false positives: non-native English writers "
    "(lower lexical variety; Liang et al. 2023, 'GPT detectors are biased against non-native English "
    "writers'), text polished by grammar or translation tools, formulaic genres (surveys are formulaic "
    "by design), domain vocabulary that happens to include marker words ('landscape' in loss-landscape "
    "papers), and short texts (under ~1,000 words the rates are noisy). Never use them alone to judge "
    "authorship."
)
