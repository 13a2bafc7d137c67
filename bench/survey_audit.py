"""Survey audit on generated fixtures: hallucination detection of the fuzzy auditor vs the
identifier-only baseline, and the redundancy/embedding cost of MiniLM vs the hashing baseline.

    .venv/bin/python -m bench.survey_audit [--seeds 3] [--refs 30] [--fabricated 5] [--papers 300]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from workers.surveys.audit import AuditOptions, audit_survey, hallucination_detection
from workers.surveys.embed import get_embedder
from workers.surveys.fixtures import generate_fixture
from workers.surveys.index import load_index
from workers.surveys.ingest import load_survey


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--refs", type=int, default=30)
    ap.add_argument("--fabricated", type=int, default=5)
    ap.add_argument("--papers", type=int, default=300)
    args = ap.parse_args()
    rows: dict[tuple[str, str], list[dict]] = {}
    embedders = {name: get_embedder(name) for name in ("hashing", "minilm")}
    for seed in range(args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            fx = generate_fixture(
                tmp, seed=seed, n_papers=args.papers, n_refs=args.refs, n_fabricated=args.fabricated
            )
            survey, index = load_survey(fx.tex_path), load_index(fx.index_path)
            corpus = [load_survey(p) for p in fx.corpus_paths]
            for auditor, fuzzy in (
                ("fuzzy (survey_auditor)", True),
                ("ids only (baseline)", False),
            ):
                for ename, emb in embedders.items():
                    t = time.perf_counter()
                    rep = audit_survey(
                        survey,
                        index=index,
                        embedder=emb,
                        corpus=corpus,
                        options=AuditOptions(use_fuzzy=fuzzy),
                    )
                    dt = time.perf_counter() - t
                    dups = sum(f["kind"] == "near_duplicate_paragraphs" for f in rep.flags)
                    rows.setdefault((auditor, ename), []).append(
                        {
                            **hallucination_detection(rep, fx.fabricated),
                            "dup_pairs": dups,
                            "seconds": dt,
                            "validity": rep.scorecard["reference_validity"],
                            "semantic": rep.scorecard["max_semantic_similarity"],
                        }
                    )
    print(
        f"seeds={args.seeds} refs={args.refs} fabricated={args.fabricated} papers={args.papers}\n"
    )
    print(
        "| auditor | embedder | halluc. precision | recall | F1 | validity | near-dup pairs (truth 1) | "
        "max semantic sim | audit s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for (auditor, ename), rs in rows.items():
        m = {k: float(np.mean([r[k] for r in rs])) for k in rs[0]}
        print(
            f"| {auditor} | {ename} | {m['hallucination_precision']:.3f} | {m['hallucination_recall']:.3f} | "
            f"{m['hallucination_f1']:.3f} | {m['validity']:.3f} | {m['dup_pairs']:.2f} | {m['semantic']:.3f} | "
            f"{m['seconds']:.2f} |"
        )


if __name__ == "__main__":
    main()
