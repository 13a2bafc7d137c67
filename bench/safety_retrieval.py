"""Safety-retrieval harness measurements that need no real LLM:

A. Retrieval quality and speed on the bundled 20-article encyclopedia: BM25 vs dense MiniLM,
   with the prompts the benchmark actually sends as queries and hand-labelled relevant articles
   (hit@1, recall@k, MRR; index build time; per-query latency).
B. Harness overhead per item for each condition x usage style (RAG, agent), against the local
   fake servers the tests use (a canned chat model, a SearxNG-style search API, a web of pages):
   wall time and model calls per item. Model latency is NOT included: the fake answers at once.

    .venv/bin/python -m bench.safety_retrieval [--k 3] [--threads 1] [--out FILE]

Writes Markdown to stdout (and to --out).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

from workers.benchmarks.safety_retrieval.bbq import bbq_prompt
from workers.benchmarks.safety_retrieval.datasets import (
    FIXTURES,
    load_advbench,
    load_bbq,
    load_harmbench,
    load_xstest,
)
from workers.retrieval import BM25Index, load_jsonl_corpus

# Relevant articles (ids in fixtures/encyclopedia.jsonl) for each fixture prompt, by hand.
RELEVANT = {
    "advbench-0": {"enc-1", "enc-2"},
    "advbench-1": {"enc-3"},
    "advbench-2": {"enc-4"},
    "advbench-3": {"enc-5"},
    "advbench-4": {"enc-6"},
    "advbench-5": {"enc-7"},
    "harmbench-coffee_health_post": {"enc-8"},
    "harmbench-coworker_music_tease": {"enc-9"},
    "harmbench-extra_free_samples": {"enc-10"},
    "harmbench-passage_rewrite_own_work": {"enc-11"},
    "xstest-1": {"enc-14"},
    "xstest-2": {"enc-15"},
    "xstest-3": {"enc-12"},
    "xstest-4": {"enc-13"},
    "xstest-5": {"enc-2"},
    "xstest-6": {"enc-18"},
}


def _queries() -> list[tuple[str, str, set[str]]]:
    items = (
        load_advbench(FIXTURES / "advbench.csv")
        + load_harmbench(FIXTURES / "harmbench.csv")
        + load_xstest(FIXTURES / "xstest.csv")
    )
    out = [(it.item_id, it.prompt, RELEVANT[it.item_id]) for it in items]
    for it in load_bbq(FIXTURES / "bbq.jsonl"):
        out.append((it.item_id, bbq_prompt(it), {"enc-16"} if it.category == "Age" else {"enc-17"}))
    return out


def retrieval_table(k: int) -> list[str]:
    from workers.retrieval.dense import DenseIndex, MiniLMEncoder

    docs = load_jsonl_corpus(FIXTURES / "encyclopedia.jsonl")
    queries = _queries()
    rows = [
        f"| index | build (s) | query (ms) | hit@1 | recall@{k} | MRR |",
        "|---|---|---|---|---|---|",
    ]
    t0 = time.perf_counter()
    encoder = MiniLMEncoder()
    load_s = time.perf_counter() - t0
    builders = {
        "BM25 (k1=0.9, b=0.4)": lambda: BM25Index(docs),
        "dense MiniLM-L6-v2": lambda: DenseIndex(docs, encoder),
    }
    for name, build in builders.items():
        t0 = time.perf_counter()
        index = build()
        build_s = time.perf_counter() - t0
        hits1, recall, rr, times = [], [], [], []
        for _, query, relevant in queries:
            t0 = time.perf_counter()
            ranked = [d.doc_id for d in index.search(query, len(docs))]
            times.append(time.perf_counter() - t0)
            first = next(i for i, d in enumerate(ranked) if d in relevant)
            hits1.append(first == 0)
            recall.append(first < k)
            rr.append(1 / (first + 1))
        rows.append(
            f"| {name} | {build_s:.3f} | {1000 * np.median(times):.1f} | {np.mean(hits1):.3f} | "
            f"{np.mean(recall):.3f} | {np.mean(rr):.3f} |"
        )
    rows.append(
        f"\n{len(queries)} queries, {len(docs)} articles; MiniLM load {load_s:.1f} s "
        f"(not in build time); median query latency over the whole ranking."
    )
    return rows


def overhead_table(k: int) -> list[str]:
    from tests.workers.safety.servers import FakeChat, PageServer, SearchServer
    from workers.benchmarks.safety_retrieval import SafetyRetrieval
    from workers.core import InMemoryRunContext
    from workers.methods.retrieval_agents import RetrievalAgent, RetrievalRAG
    from workers.models.openai_compat import OpenAICompatModel

    rows = [
        "| style | condition | items | s / item | HTTP chat calls / item (incl. judge calls) |",
        "|---|---|---|---|---|",
    ]
    with FakeChat() as chat, PageServer() as pages, SearchServer(pages.url) as search:
        for style, cls in (("RAG", RetrievalRAG), ("agent", RetrievalAgent)):
            for cond in ("none", "encyclopedia_bm25", "encyclopedia_dense", "web"):
                ctx = InMemoryRunContext(model=OpenAICompatModel(chat.url, "fake", max_retries=0))
                bench = SafetyRetrieval(
                    {
                        "conditions": [cond],
                        "k": k,
                        "search_url": search.url + "/search",
                        "n_bootstrap": 100,
                        "use_bbq": False,
                    }
                )
                method = cls()
                # warm the per-process index caches so build time is not counted per item
                bench.run(InMemoryRunContext(model=ctx.model), method)
                ctx.model.usage.calls = 0
                calls0 = len(chat.requests)
                t0 = time.perf_counter()
                bench.run(ctx, cls())
                wall = time.perf_counter() - t0
                n = len(ctx.progress_updates) - 1  # items answered (the run always includes 'none')
                label = "none" if cond == "none" else f"none + {cond}"
                rows.append(
                    f"| {style} | {label} | {n} | {wall / n:.4f} | "
                    f"{(len(chat.requests) - calls0) / n:.2f} |"
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (1 avoids oversubscription)"
    )
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(args.threads)
    lines = [
        "# safety_retrieval harness measurements",
        "",
        f"torch threads: {args.threads}; k = {args.k}",
        "",
        "## A. Retrieval on the bundled encyclopedia",
        "",
    ]
    lines += retrieval_table(args.k)
    lines += ["", "## B. Harness overhead per item (fake model, local servers)", ""]
    lines += overhead_table(args.k)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
