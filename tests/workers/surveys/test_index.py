"""Bibliographic index loaders and reference matching."""

from __future__ import annotations

import json

import pytest

from workers.surveys.document import Reference
from workers.surveys.index import BibIndex, fuzzy_score, load_index, title_similarity

# Records in the arXiv metadata snapshot's own shape (field names, date format, authors_parsed).
ARXIV = [
    {
        "id": "1706.03762",
        "submitter": "Ashish Vaswani",
        "authors": "Ashish Vaswani, Noam Shazeer, Niki Parmar",
        "title": "Attention Is All You Need",
        "comments": "15 pages",
        "journal-ref": None,
        "doi": None,
        "categories": "cs.CL cs.LG",
        "license": None,
        "abstract": "  The dominant sequence transduction models...\n",
        "versions": [{"version": "v1", "created": "Mon, 12 Jun 2017 17:57:34 GMT"}],
        "update_date": "2023-08-03",
        "authors_parsed": [
            ["Vaswani", "Ashish", ""],
            ["Shazeer", "Noam", ""],
            ["Parmar", "Niki", ""],
        ],
    },
    {
        "id": "1810.04805",
        "submitter": "Ming-Wei Chang",
        "authors": "Jacob Devlin, Ming-Wei Chang, Kenton Lee",
        "title": "BERT: Pre-training of Deep Bidirectional Transformers for\n  Language Understanding",
        "doi": "10.18653/v1/N19-1423",
        "categories": "cs.CL",
        "versions": [{"version": "v1", "created": "Thu, 11 Oct 2018 00:50:01 GMT"}],
        "update_date": "2019-05-24",
        "authors_parsed": [
            ["Devlin", "Jacob", ""],
            ["Chang", "Ming-Wei", ""],
            ["Lee", "Kenton", ""],
        ],
    },
    {
        "id": "2005.11401",
        "authors": "Patrick Lewis, Ethan Perez",
        "title": "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
        "categories": "cs.CL cs.LG",
        "abstract": "Large pre-trained language models",
        "versions": [{"version": "v1", "created": "Fri, 22 May 2020 21:34:34 GMT"}],
        "update_date": "2021-04-12",
    },
]

DBLP = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE dblp SYSTEM "dblp.dtd">
<dblp>
<article key="journals/nature/LeCunBH15" mdate="2020-01-01">
<author>Yann LeCun</author><author>Yoshua Bengio</author><author>Geoffrey E. Hinton</author>
<title>Deep learning.</title><year>2015</year><journal>Nat.</journal>
<ee>https://doi.org/10.1038/nature14539</ee>
</article>
<inproceedings key="conf/iclr/KingmaB14">
<author>Diederik P. Kingma</author><author>Max Welling</author>
<title>Auto-Encoding Variational Bayes.</title><year>2014</year>
<ee>http://arxiv.org/abs/1312.6114</ee>
</inproceedings>
<article key="journals/x/Mueller20"><author>J&ouml;rg M&uuml;ller</author><title>Sch&ouml;ne Graphen.</title><year>2020</year></article>
</dblp>
"""


@pytest.fixture
def index(tmp_path):
    (tmp_path / "arxiv.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ARXIV))
    (tmp_path / "dblp.xml").write_text(DBLP, encoding="latin-1")
    (tmp_path / "extra.bib").write_text(
        "@article{x, title={Generative Adversarial Nets}, author={Goodfellow, Ian},"
        " year={2014}, doi={10.5555/2969033.2969125}}"
    )
    return load_index(tmp_path / "arxiv.jsonl", tmp_path / "dblp.xml", tmp_path / "extra.bib")


def test_loaders_read_every_format(index):
    assert len(index) == 7
    bert = index.get(arxiv_id="1810.04805")
    assert (
        bert.title
        == "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"
    )
    assert bert.published == "2018-10-11" and bert.year == 2018 and bert.categories == ["cs.CL"]
    assert (
        bert.authors == ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee"]
        and bert.doi == "10.18653/v1/n19-1423"
    )
    rag = index.get(arxiv_id="2005.11401")
    assert rag.authors == [
        "Patrick Lewis",
        "Ethan Perez",
    ]  # no authors_parsed: split the authors string
    assert index.get(doi="10.1038/nature14539").title == "Deep learning"
    assert index.get(arxiv_id="1312.6114").authors == ["Diederik P. Kingma", "Max Welling"]
    assert any(p.authors == ["Jörg Müller"] for p in index.papers)  # DTD entities decoded
    assert index.get(doi="10.5555/2969033.2969125").source == "bibtex"


def test_match_by_doi_arxiv_fuzzy_and_unmatched(index):
    m = index.match(Reference("a", title="Deep Learning", doi="10.1038/NATURE14539"))
    assert m.status == "doi"
    assert (
        index.match(Reference("b", title="Attention is all you need", arxiv_id="1706.03762")).status
        == "arxiv"
    )
    fuzzy = index.match(
        Reference("c", title="Atention is all you need!", authors=["A. Vaswani"], year=2017)
    )
    assert fuzzy.status == "fuzzy" and fuzzy.paper.arxiv_id == "1706.03762"
    fake = index.match(
        Reference("d", title="Attention Is Not All You Need for Graph Reasoning", year=2023)
    )
    assert fake.status == "unmatched" and fake.candidates[0][1].arxiv_id == "1706.03762"
    assert "best fuzzy score" in fake.reason
    # a real identifier under someone else's title is flagged, with the owner shown
    stolen = index.match(
        Reference("e", title="Quantum Transformers for Protein Folding", arxiv_id="1706.03762")
    )
    assert stolen.status == "unmatched" and "Attention Is All You Need" in stolen.reason
    # identifiers only (the baseline): the typo'd title is no longer accepted
    assert (
        index.match(Reference("c", title="Atention is all you need!"), use_fuzzy=False).status
        == "unmatched"
    )


def test_fuzzy_score_formula():
    from workers.surveys.index import IndexPaper

    p = IndexPaper(
        "p", "Deep Residual Learning for Image Recognition", ["Kaiming He", "Xiangyu Zhang"], 2016
    )
    r = Reference("r", "Deep residual learning for image recognition", ["K. He"], 2015)
    # title identical after normalisation -> 1; one of min(1, 2) last names shared -> 1; |2016-2015| = 1 -> 0.5
    assert fuzzy_score(r, p) == pytest.approx(0.7 * 1 + 0.2 * 1 + 0.1 * 0.5)
    assert title_similarity("A: b", "a b") == 1.0


def test_bad_index_line_names_the_line(tmp_path):
    (tmp_path / "bad.jsonl").write_text(json.dumps(ARXIV[0]) + "\n{not json\n")
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        load_index(tmp_path / "bad.jsonl")
    with pytest.raises(ValueError, match="unsupported index format"):
        load_index(tmp_path / "x.csv")


def test_empty_index_matches_nothing():
    assert BibIndex().match(Reference("a", title="Anything at all")).status == "unmatched"
