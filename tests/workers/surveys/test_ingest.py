"""Ingestion of LaTeX (+ .bib), Markdown and PDF surveys."""

from __future__ import annotations

import pytest

from workers.surveys.bibtex import parse_bibtex, read_references, write_bibtex
from workers.surveys.ingest import (
    IngestError,
    load_pdf,
    load_survey,
    parse_markdown,
    parse_reference_string,
)

TEX = r"""\documentclass{article}
\title{A Survey of Graph Neural Networks}
\date{March 2024}
\begin{document}\maketitle
\begin{abstract}We review message passing networks.\end{abstract}
\section{Introduction}
Graph neural networks learn on relational data~\cite{kipf2017,velickovic2018}. % a comment \cite{ghost}
They generalise convolutions to irregular domains and are widely used today.

\section{Models}
\subsection{Spectral Methods}
Spectral filters are defined via the graph Laplacian as shown in \citet{bruna2014}.
\subsubsection{Chebyshev Filters}
Polynomial filters avoid the eigendecomposition of the Laplacian \cite[p.~3]{defferrard2016}.
\input{extra}
\bibliography{refs}
\end{document}
"""

EXTRA = r"""\subsection{Spatial Methods}
Neighbourhood aggregation methods sample and combine neighbours~\citep{hamilton2017}.
"""

BIB = r"""@string{iclr = "International Conference on Learning Representations"}
@inproceedings{kipf2017,
  title = {Semi-Supervised Classification with Graph Convolutional Networks},
  author = {Kipf, Thomas N. and Welling, Max},
  booktitle = iclr, year = 2017, eprint = {1609.02907}, archivePrefix = {arXiv}
}
@article{velickovic2018, title = "Graph Attention Networks",
  author = {Veli{\v{c}}kovi{\'c}, Petar and Cucurull, Guillem}, year = {2018}, doi = {https://doi.org/10.48550/ARXIV.1710.10903}}
@misc{bruna2014, title = {Spectral Networks and Locally Connected Networks on Graphs}, author = {Joan Bruna and others}, year = {2014}}
@article{defferrard2016, title = {Convolutional Neural Networks on Graphs with Fast Localized Spectral Filtering},
  author = {Defferrard, Micha{\"e}l}, journal = {NeurIPS}, year = {2016}}
@article{hamilton2017, title = {Inductive Representation Learning on Large Graphs}, author = {Hamilton, William L.}, year = {2017}}
"""


@pytest.fixture
def latex_dir(tmp_path):
    (tmp_path / "main.tex").write_text(TEX)
    (tmp_path / "extra.tex").write_text(EXTRA)
    (tmp_path / "refs.bib").write_text(BIB)
    return tmp_path


def test_latex_structure_citations_and_bib(latex_dir):
    s = load_survey(latex_dir / "main.tex")
    assert s.title == "A Survey of Graph Neural Networks"
    assert s.year == 2024 and s.abstract == "We review message passing networks."
    assert s.outline() == [
        (1, "Introduction"),
        (1, "Models"),
        (2, "Spectral Methods"),
        (3, "Chebyshev Filters"),
        (2, "Spatial Methods"),
    ]
    models = s.sections[1]
    assert [c.title for c in models.children] == ["Spectral Methods", "Spatial Methods"]
    assert models.children[0].children[0].title == "Chebyshev Filters"
    # commented-out \cite{ghost} is ignored; \citet, \cite[p.~3] and \citep are all read
    assert s.citations() == [
        "kipf2017",
        "velickovic2018",
        "bruna2014",
        "defferrard2016",
        "hamilton2017",
    ]
    assert s.paragraphs()[0][1].startswith("Graph neural networks learn on relational data. They")
    refs = {r.key: r for r in s.references}
    assert refs["kipf2017"].arxiv_id == "1609.02907" and refs["kipf2017"].venue.startswith(
        "International Conference"
    )
    assert refs["kipf2017"].authors == ["Thomas N. Kipf", "Max Welling"]
    assert refs["velickovic2018"].authors[0] == "Petar Velickovic"
    assert refs["velickovic2018"].doi == "10.48550/arxiv.1710.10903"
    assert refs["bruna2014"].authors == ["Joan Bruna"]  # "and others" dropped
    assert refs["defferrard2016"].authors == ["Michael Defferrard"]


def test_bibtex_round_trip():
    refs = read_references(BIB)
    again = read_references(write_bibtex(refs))
    assert [(r.key, r.title, r.authors, r.year, r.doi, r.arxiv_id) for r in again] == [
        (r.key, r.title, r.authors, r.year, r.doi, r.arxiv_id) for r in refs
    ]


def test_bibtex_errors_name_the_problem():
    with pytest.raises(ValueError, match="unbalanced braces"):
        parse_bibtex("@article{k, title = {Open {brace}")


def test_markdown_with_pandoc_citations():
    md = (
        "# Survey of Things\n\n## Background\n\nThings have been studied for a long time [@a; @b].\n\n"
        "### Details\n\nThe details are described at length by prior work \\cite{c}.\n"
    )
    s = parse_markdown(md, "@misc{a, title={A}}\n@misc{b, title={B}}\n@misc{c, title={C}}")
    assert s.title == "Survey of Things"
    assert s.outline() == [(1, "Background"), (2, "Details")]
    assert s.citations() == ["a", "b", "c"] and len(s.references) == 3


def test_reference_string_parsing():
    r = parse_reference_string(
        'A. Vaswani, N. Shazeer, and N. Parmar. "Attention is all you need." In NeurIPS, 2017. '
        "arXiv:1706.03762",
        key="1",
    )
    assert r.title == "Attention is all you need" and r.year == 2017 and r.arxiv_id == "1706.03762"
    assert r.authors == ["A. Vaswani", "N. Shazeer", "N. Parmar"]
    r2 = parse_reference_string(
        "J. Smith. Deep learning for graphs. Nature 500, 2015. doi:10.1038/nature14539.", key="2"
    )
    assert (
        r2.title == "Deep learning for graphs"
        and r2.doi == "10.1038/nature14539"
        and r2.year == 2015
    )


def test_pdf_produced_in_the_test(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    lines = [
        "A Survey of Retrieval Methods",
        "",
        "1 Introduction",
        "Retrieval augments language models with external knowledge [1].",
        "",
        "2 Dense Retrieval",
        "Dense retrievers encode queries and passages into vectors [2, 3].",
        "",
        "2.1 Training",
        "Hard negatives are essential for contrastive training of retrievers [3].",
        "",
        "References",
        '[1] P. Lewis, E. Perez. "Retrieval-augmented generation for knowledge-intensive NLP tasks." NeurIPS, 2020.',
        '[2] V. Karpukhin, B. Oguz. "Dense passage retrieval for open-domain question answering." EMNLP, 2020.',
        "[3] L. Xiong, C. Xiong. Approximate nearest neighbor negative contrastive learning for dense text "
        "retrieval. ICLR, 2021. arXiv:2007.00808",
    ]
    for line in lines:
        pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    path = tmp_path / "survey.pdf"
    pdf.output(str(path))
    s = load_pdf(path)
    assert s.title == "A Survey of Retrieval Methods"
    assert s.outline() == [(1, "Introduction"), (1, "Dense Retrieval"), (2, "Training")]
    assert s.citations() == ["1", "2", "3", "3"]
    assert [r.key for r in s.references] == ["1", "2", "3"]
    assert s.references[1].title == "Dense passage retrieval for open-domain question answering"
    assert s.references[2].arxiv_id == "2007.00808" and s.references[2].year == 2021


def test_unsupported_format(tmp_path):
    (tmp_path / "x.docx").write_text("x")
    with pytest.raises(IngestError, match="unsupported survey format"):
        load_survey(tmp_path / "x.docx")
