"""Linear probes for labelled concepts in Python source, on any causal LM's hidden states.

Concepts come from Python's own `tokenize` module: for each model token we ask whether its first
character lies in a string literal, a comment, a keyword, another name, a number, an operator,
or on a line indented by at least 8 spaces. A probe is a logistic regression on the hidden state
of one layer, scored by balanced accuracy on held-out tokens (balanced, so a rare concept
cannot score well by always answering "no").
"""

from __future__ import annotations

import io
import keyword
import tokenize
from collections.abc import Sequence

import numpy as np
import torch

CONCEPTS = ("string", "comment", "keyword", "name", "number", "operator", "deep_indent")


def char_concepts(source: str) -> dict[str, np.ndarray]:
    """Per-character boolean arrays, one per concept, from Python's tokenizer."""
    n = len(source)
    out = {c: np.zeros(n, dtype=bool) for c in CONCEPTS}
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    for i, line in enumerate(source.splitlines(keepends=True)):
        if len(line) - len(line.lstrip(" ")) >= 8:
            out["deep_indent"][line_starts[i] : line_starts[i + 1]] = True

    def pos(row: int, col: int) -> int:
        return min(n, line_starts[row - 1] + col)

    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            a, b = pos(*tok.start), pos(*tok.end)
            if tok.type == tokenize.STRING:
                out["string"][a:b] = True
            elif tok.type == tokenize.COMMENT:
                out["comment"][a:b] = True
            elif tok.type == tokenize.NAME:
                out["keyword" if keyword.iskeyword(tok.string) else "name"][a:b] = True
            elif tok.type == tokenize.NUMBER:
                out["number"][a:b] = True
            elif tok.type == tokenize.OP:
                out["operator"][a:b] = True
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a truncated document: keep the labels found so far
    return out


@torch.no_grad()
def token_features(
    model,
    tokenizer,
    docs: Sequence[str],
    *,
    layer: int,
    seq_len: int = 128,
    max_tokens: int = 4000,
    device: str | torch.device = "cpu",
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Hidden states (tokens x d) of `layer` and concept labels for the tokens of `docs`."""
    feats, labels = [], {c: [] for c in CONCEPTS}
    total = 0
    for doc in docs:
        enc = tokenizer(doc, add_special_tokens=False, return_offsets_mapping=True)
        ids, offsets = enc["input_ids"][:seq_len], enc["offset_mapping"][:seq_len]
        if len(ids) < 2:
            continue
        concepts = char_concepts(doc)
        hs = model(
            input_ids=torch.tensor([ids], device=device), output_hidden_states=True, use_cache=False
        ).hidden_states[layer][0]
        feats.append(hs.float().cpu().numpy())
        for c in CONCEPTS:
            labels[c].append(np.array([concepts[c][min(a, len(doc) - 1)] for a, _ in offsets]))
        total += len(ids)
        if total >= max_tokens:
            break
    return np.concatenate(feats), {c: np.concatenate(v) for c, v in labels.items()}


def probe_accuracies(
    X: np.ndarray, labels: dict[str, np.ndarray], *, seed: int = 0, test_fraction: float = 0.3
) -> dict[str, float]:
    """Balanced test accuracy of a logistic-regression probe per concept (NaN if a class is missing)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(X))
    cut = int(len(X) * (1 - test_fraction))
    tr, te = idx[:cut], idx[cut:]
    scaler = StandardScaler().fit(X[tr])
    Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])
    out = {}
    for c, y in labels.items():
        if len(set(y[tr])) < 2 or len(set(y[te])) < 2:
            out[c] = float("nan")
            continue
        clf = LogisticRegression(max_iter=500, C=1.0).fit(Xtr, y[tr])
        out[c] = float(balanced_accuracy_score(y[te], clf.predict(Xte)))
    return out
