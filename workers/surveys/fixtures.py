"""A generated, real-shaped audit fixture with known ground truth.

Writes an arXiv-metadata JSON-lines index (the snapshot's field names and date formats), a
LaTeX survey with its .bib in which `n_fabricated` references are fabricated (titles that no
indexed paper carries, fake DOIs, or a real arXiv id under a wrong title) and the rest are real
papers cited the way people cite them (with DOI, arXiv id only, title only, a typo, changed case),
one near-duplicate paragraph, and a few other surveys on the topic for overlap and taxonomy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from workers.surveys.document import Reference
from workers.surveys.index import BibIndex, arxiv_record_to_paper, title_similarity

FIRST = "Wei Anna Luca Priya Jonas Mei Omar Sofia Kenji Elena Tomas Aisha Rafael Ines Yuki Noah Lena Arjun".split()
LAST = (
    "Zhang Rossi Kumar Schmidt Tanaka Garcia Novak Okafor Li Dubois Silva Kowalski Haddad Moreau Chen Ivanova "
    "Nakamura Fischer Lopez Singh Petrov Andersen"
).split()
ADJ = (
    "Sparse Adaptive Hierarchical Contrastive Robust Efficient Scalable Modular Dense Iterative Retrieval-Augmented "
    "Self-Supervised Multilingual Federated Causal Compositional Latent Structured Calibrated Lightweight"
).split()
NOUN = (
    "Retrievers Transformers Memory Routing Indexing Distillation Reranking Attention Adapters Embeddings "
    "Decoding Tokenization Grounding Planning Verification Caching Alignment Pretraining"
).split()
TASK = (
    "Open-Domain Question Answering|Long-Context Reasoning|Code Generation|Fact Verification|Dialogue Systems|"
    "Multi-Hop Retrieval|Scientific Summarization|Knowledge-Intensive Tasks|Table Understanding|Legal Search|"
    "Biomedical Question Answering|Low-Resource Translation"
).split("|")
CATS = ["cs.CL", "cs.LG", "cs.IR", "cs.AI"]
SENT = [
    "{t} introduced {a} techniques that improve {task}",
    "Building on this line of work, {t} studies how {a} components interact with {task}",
    "A complementary direction is taken by {t}, which evaluates {a} models on {task}",
    "Empirical comparisons in {t} show gains for {task} when {a} objectives are used",
    "{t} reports that careful ablations of {a} design choices matter for {task}",
]
SECTIONS = [
    ("Introduction", []),
    ("Background", ["Problem Formulation", "Evaluation Protocols"]),
    ("Methods", ["Retriever Design", "Generator Integration", "Training Objectives"]),
    ("Applications", ["Question Answering", "Code and Tables"]),
    ("Open Challenges", []),
    ("Conclusion", []),
]


@dataclass
class Fixture:
    tex_path: Path
    bib_path: Path
    index_path: Path
    corpus_paths: list[Path]
    fabricated: set[str]
    records: list[dict] = field(default_factory=list)


def _name(rng) -> str:
    return f"{FIRST[rng.integers(len(FIRST))]} {LAST[rng.integers(len(LAST))]}"


def _title(rng) -> str:
    return f"{ADJ[rng.integers(len(ADJ))]} {NOUN[rng.integers(len(NOUN))]} for {TASK[rng.integers(len(TASK))]}"


def make_records(rng, n: int, start: datetime = datetime(2019, 1, 1)) -> list[dict]:
    """n arXiv-snapshot records with unique titles; ~8% are surveys (for the trend charts)."""
    seen, out = set(), []
    while len(out) < n:
        title = _title(rng)
        if rng.random() < 0.08:
            title = f"A Survey of {title.split(' for ')[0]} for {TASK[rng.integers(len(TASK))]}"
        if title in seen:
            continue
        seen.add(title)
        day = start + timedelta(days=int(rng.integers(0, 365 * 6)))
        aid = f"{day:%y%m}.{10000 + len(out):05d}"
        authors = [_name(rng) for _ in range(int(rng.integers(1, 5)))]
        cats = [CATS[rng.integers(len(CATS))]] + (
            [CATS[rng.integers(len(CATS))]] if rng.random() < 0.4 else []
        )
        out.append(
            {
                "id": aid,
                "submitter": authors[0],
                "authors": ", ".join(authors),
                "title": title,
                "comments": "",
                "journal-ref": None,
                "doi": f"10.18653/v1/{day.year}.acl-long.{len(out)}"
                if rng.random() < 0.5
                else None,
                "categories": " ".join(dict.fromkeys(cats)),
                "license": None,
                "abstract": f"We study {title.lower()}. Our approach improves {TASK[rng.integers(len(TASK))].lower()} "
                f"with {ADJ[rng.integers(len(ADJ))].lower()} {NOUN[rng.integers(len(NOUN))].lower()}.",
                "versions": [
                    {"version": "v1", "created": day.strftime("%a, %d %b %Y %H:%M:%S GMT")}
                ],
                "update_date": day.strftime("%Y-%m-%d"),
                "authors_parsed": [[a.split()[1], a.split()[0], ""] for a in authors],
            }
        )
    return out


def _bib_entry(key: str, title: str, authors: list[str], year: int, extra: dict[str, str]) -> str:
    fields = {
        "title": "{" + title + "}",
        "author": " and ".join(f"{a.split()[1]}, {a.split()[0]}" for a in authors),
        "year": str(year),
        **extra,
    }
    return (
        f"@article{{{key},\n" + ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items()) + "\n}\n"
    )


def _typo(rng, title: str) -> str:
    words = title.split()
    i = int(np.argmax([len(w) for w in words]))
    w = words[i]
    j = int(rng.integers(1, len(w) - 2))
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)


def _write_survey(
    path: Path, rng, title: str, year: int, cited: list[tuple[str, dict]], sections, dup: bool
) -> None:
    """LaTeX with the given (key, record) citations spread over the sections."""
    body, k = [], 0
    per = max(1, len(cited) // sum(1 + len(subs) for _, subs in sections))
    for sec, subs in sections:
        for head, name in [("section", sec)] + [("subsection", s) for s in subs]:
            body.append(f"\\{head}{{{name}}}\n")
            chunk = cited[k : k + per] if name != "Conclusion" else []
            k += len(chunk)
            sents = [
                SENT[int(rng.integers(len(SENT)))].format(
                    t=rec["title"].split(" for ")[0],
                    a=ADJ[rng.integers(len(ADJ))].lower(),
                    task=rec["title"].split(" for ")[-1],
                )
                + f"~\\cite{{{key}}}."
                for key, rec in chunk
            ]
            para = (
                " ".join(sents)
                or f"This part of the survey on {title.lower()} summarises the state of {name.lower()}."
            )
            body.append(para + "\n\n")
            if dup and name == "Training Objectives":
                # The same paragraph again with two words changed: the redundancy audit must see it.
                body.append(
                    para.replace("introduced", "presented").replace("show", "demonstrate") + "\n\n"
                )
    rest = cited[k:]
    if rest:
        body.append(
            "\\section{Further Reading}\nFurther work includes "
            + ", ".join(f"{rec['title']}~\\cite{{{key}}}" for key, rec in rest)
            + ".\n\n"
        )
    tex = (
        f"\\documentclass{{article}}\n\\title{{{title}}}\n\\date{{{year}}}\n\\begin{{document}}\n\\maketitle\n"
        f"\\begin{{abstract}}We review {title.lower()}.\\end{{abstract}}\n"
        + "".join(body)
        + f"\\bibliographystyle{{plain}}\n\\bibliography{{{path.stem}}}\n\\end{{document}}\n"
    )
    path.with_suffix(".tex").write_text(tex)


def generate_fixture(
    out_dir: str | Path,
    *,
    seed: int = 0,
    n_papers: int = 200,
    n_refs: int = 30,
    n_fabricated: int = 5,
    n_other_surveys: int = 3,
) -> Fixture:
    if not 0 <= n_fabricated <= n_refs <= n_papers // 2:
        raise ValueError("need 0 <= n_fabricated <= n_refs <= n_papers / 2")
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    (out / "corpus").mkdir(parents=True, exist_ok=True)
    records = make_records(rng, n_papers)
    index_path = out / "arxiv-metadata.jsonl"
    index_path.write_text("".join(json.dumps(r) + "\n" for r in records))
    index = BibIndex([arxiv_record_to_paper(r) for r in records])
    real = [records[i] for i in rng.choice(n_papers, size=n_refs - n_fabricated, replace=False)]
    entries, cited, fabricated = [], [], set()
    for i, rec in enumerate(real):
        key = f"{rec['authors_parsed'][0][0].lower()}{rec['id'][:2]}{chr(97 + i % 26)}{i}"
        year = 2000 + int(rec["id"][:2])
        authors = [f"{a[1]} {a[0]}" for a in rec["authors_parsed"]]
        style = i % 5
        extra = {"doi": rec["doi"]} if style == 0 and rec["doi"] else {}
        title = rec["title"]
        if style == 1 or (style == 0 and not rec["doi"]):
            extra = {"eprint": rec["id"], "archiveprefix": "arXiv"}
        elif style == 2:
            title = title.lower()
        elif style == 3:
            title = _typo(rng, title)
        entries.append(
            _bib_entry(key, title, authors, year, {"journal": "arXiv preprint", **extra})
        )
        cited.append((key, rec))
    for j in range(n_fabricated):
        while True:  # a fabricated title must not be close to any indexed paper
            title = (
                f"{_title(rng)} via {ADJ[rng.integers(len(ADJ))]} {NOUN[rng.integers(len(NOUN))]}"
            )
            ref = Reference(key="x", title=title, authors=[_name(rng)], year=2024)
            if all(s < 0.6 for s, _ in index.candidates(ref, k=1)):
                break
        key = f"fab{j}"
        extra = {}
        if j % 3 == 0:
            extra = {"doi": f"10.1109/TPAMI.2024.{3300000 + j}"}
        elif j % 3 == 1:  # a real arXiv id whose paper has a clearly different title
            owner = next(
                r
                for r in (records[int(i)] for i in rng.permutation(n_papers))
                if title_similarity(r["title"], title) < 0.6
            )
            extra = {"eprint": owner["id"], "archiveprefix": "arXiv"}
        entries.append(
            _bib_entry(
                key, title, [_name(rng), _name(rng)], 2024, {"journal": "IEEE TPAMI", **extra}
            )
        )
        cited.append((key, {"title": title}))
        fabricated.add(key)
    order = rng.permutation(len(cited))
    cited = [cited[i] for i in order]
    survey_path = out / "survey.tex"
    _write_survey(
        survey_path,
        rng,
        "Retrieval-Augmented Generation: A Survey",
        2025,
        cited,
        SECTIONS,
        dup=True,
    )
    (out / "survey.bib").write_text("\n".join(entries))
    corpus_paths = []
    for s in range(n_other_surveys):
        picks = [records[i] for i in rng.choice(n_papers, size=n_refs, replace=False)]
        if s == 0:  # one earlier survey shares half of our real references
            picks = real[: len(real) // 2] + picks[: n_refs - len(real) // 2]
        sub = [(f"c{s}r{i}", rec) for i, rec in enumerate(picks)]
        secs = (
            SECTIONS
            if s == 0
            else [
                ("Overview", []),
                ("Taxonomy", ["Dense Methods", "Sparse Methods"]),
                ("Benchmarks", []),
                ("Outlook", []),
            ]
        )
        p = out / "corpus" / f"survey{s}.tex"
        _write_survey(
            p, rng, f"Survey {s + 1} of {TASK[s % len(TASK)]}", 2023 + s % 2, sub, secs, dup=False
        )
        p.with_suffix(".bib").write_text(
            "\n".join(
                _bib_entry(
                    k,
                    r["title"],
                    [f"{a[1]} {a[0]}" for a in r["authors_parsed"]],
                    2000 + int(r["id"][:2]),
                    {"eprint": r["id"], "archiveprefix": "arXiv"},
                )
                for k, r in sub
            )
        )
        corpus_paths.append(p)
    return Fixture(survey_path, out / "survey.bib", index_path, corpus_paths, fabricated, records)
