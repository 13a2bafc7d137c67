"""Writes for Dynamic Live Surveys: create, version, audit, propose, review, import the index."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.surveys import selectors
from apps.surveys.models import (
    IndexedPaper,
    LiveSurvey,
    Proposal,
    ProposalKind,
    ProposalStatus,
    SurveyVersion,
)
from workers.surveys import livedoc
from workers.surveys.audit import AuditOptions, audit_survey
from workers.surveys.embed import get_embedder
from workers.surveys.index import BibIndex, IndexPaper, load_index
from workers.surveys.proposals import SectionQuery, propose_updates

log = logging.getLogger(__name__)


def _embedder():
    # "minilm" in production; tests and small installs may set SURVEYS_EMBEDDER = "hashing".
    return get_embedder(getattr(settings, "SURVEYS_EMBEDDER", "minilm"))


def _validated(content: Any) -> dict:
    try:
        return livedoc.validate_content(content)
    except ValueError as exc:
        raise ValidationError(
            exc.args[0] if isinstance(exc.args[0], dict) else {"content": str(exc)}
        ) from None


def _require_maintainer(survey: LiveSurvey, user) -> None:
    if not selectors.survey_can_maintain(user, survey):
        raise ValidationError({"user": "only the survey's maintainers can do this"})


@transaction.atomic
def survey_create(
    *,
    user,
    slug: str,
    title: str,
    content: Any,
    topic: str = "",
    description: str = "",
    visibility: str = "public",
    audit: bool = True,
) -> LiveSurvey:
    survey = LiveSurvey(
        slug=slug,
        title=title,
        topic=topic,
        description=description,
        owner=user,
        visibility=visibility,
    )
    survey.full_clean()
    clean = _validated(content)
    survey.save()
    survey.maintainers.add(user)
    version_create(
        survey=survey, content=clean, author=user, message="initial version", audit=audit
    )
    return survey


def version_create(
    *, survey: LiveSurvey, content: Any, author, message: str = "", audit: bool = True
) -> SurveyVersion:
    """Append a new version (numbers are consecutive) and audit it."""
    clean = _validated(content)
    latest = survey.versions.order_by("-number").first()
    version = SurveyVersion(
        survey=survey,
        number=(latest.number + 1) if latest else 1,
        content=clean,
        message=message[:500],
        author=author,
    )
    version.full_clean()
    version.save()
    if author is not None and not survey.maintainers.filter(pk=author.pk).exists():
        survey.contributors.add(author)
    if audit:
        version_audit(version=version)
    return version


def _index() -> BibIndex:
    return BibIndex(
        [
            IndexPaper(
                pid=p.pid,
                title=p.title,
                authors=p.authors,
                year=p.year,
                doi=p.doi,
                arxiv_id=p.arxiv_id,
                abstract=p.abstract,
                categories=p.categories,
                published=p.published,
                citation_count=p.citation_count,
                source=p.source,
            )
            for p in IndexedPaper.objects.all().iterator(chunk_size=2000)
        ]
    )


def version_audit(*, version: SurveyVersion) -> SurveyVersion:
    """Re-run the audit library on this version: index = IndexedPaper, corpus = the latest
    version of every other live survey. An audit failure is stored, never raised: a version
    must be saved even when, say, the embedding model is missing."""
    survey = version.survey
    doc = livedoc.content_to_survey(survey.title, version.content, year=version.created_at.year)
    corpus = [
        livedoc.content_to_survey(v.survey.title, v.content, year=v.created_at.year)
        for v in selectors.latest_versions().exclude(survey=survey)
    ]
    try:
        if not doc.references:
            raise ValueError("this version has no references yet")
        report = audit_survey(
            doc, index=_index(), embedder=_embedder(), corpus=corpus, options=AuditOptions()
        )
        version.audit, version.audit_error = report.as_dict(), ""
    except Exception as exc:  # noqa: BLE001 - stored and shown on the version page
        log.warning("audit of %s failed: %s", version, exc)
        version.audit, version.audit_error = {}, f"{type(exc).__name__}: {exc}"
    version.save(update_fields=["audit", "audit_error"])
    return version


@transaction.atomic
def proposals_generate(
    *,
    survey: LiveSurvey,
    user,
    min_similarity: float = 0.4,
    since: str = "",
    max_per_section: int = 5,
) -> list[Proposal]:
    """Automated update proposals: index papers matching a section (embedding similarity plus the
    section's keyword filter), skipping papers already cited or already proposed."""
    _require_maintainer(survey, user)
    if not 0.0 <= min_similarity <= 1.0:
        raise ValidationError({"min_similarity": "must be in [0, 1]"})
    version = selectors.survey_latest_version(survey)
    index = _index()
    sections = []
    for sec in version.content["sections"]:
        cited = set()
        for ref in sec["references"]:
            match = index.match(livedoc.reference_from_dict(ref))
            if match.paper is not None:
                cited.add(match.paper.pid)
        sections.append(SectionQuery(sec["title"], sec["text"], sec["keywords"], cited))
    all_cited = set().union(*(s.cited for s in sections))
    for s in sections:
        s.cited = all_cited
    already = set(
        survey.proposals.filter(kind=ProposalKind.UPDATE).values_list("paper__pid", flat=True)
    )
    papers = [p for p in index.papers if p.pid not in already]
    found = propose_updates(
        sections,
        papers,
        _embedder(),
        min_similarity=min_similarity,
        since=since,
        max_per_section=max_per_section,
    )
    by_pid = {p.pid: p for p in IndexedPaper.objects.filter(pid__in=[f.paper.pid for f in found])}
    created = []
    for f in found:
        created.append(
            Proposal.objects.create(
                survey=survey,
                kind=ProposalKind.UPDATE,
                base_version=version,
                section_title=f.section,
                paper=by_pid[f.paper.pid],
                similarity=f.similarity,
                why=f.why,
                message=f"add '{f.paper.title}'",
            )
        )
    return created


def proposal_create_edit(*, survey: LiveSurvey, user, content: Any, message: str = "") -> Proposal:
    """A contributor's edit, reviewed by a maintainer before it becomes a version."""
    if user is None or not user.is_authenticated:
        raise ValidationError({"user": "log in to propose an edit"})
    clean = _validated(content)
    proposal = Proposal(
        survey=survey,
        kind=ProposalKind.EDIT,
        base_version=selectors.survey_latest_version(survey),
        content=clean,
        message=message[:500],
        author=user,
    )
    proposal.full_clean()
    proposal.save()
    return proposal


def _apply_update(content: dict, proposal: Proposal) -> dict:
    paper = proposal.paper
    key = (paper.arxiv_id and f"arXiv:{paper.arxiv_id}") or paper.doi or paper.pid
    ref = {
        "key": key.replace(" ", "_")[:100],
        "title": paper.title,
        "authors": paper.authors,
        "year": paper.year,
        "doi": paper.doi,
        "arxiv_id": paper.arxiv_id,
        "venue": "",
    }
    sections = [dict(s) for s in content["sections"]]
    target = next((s for s in sections if s["title"] == proposal.section_title), None)
    if target is None:
        raise ValidationError(
            {"section_title": f"section {proposal.section_title!r} no longer exists"}
        )
    target["references"] = [*target["references"], ref]
    return {**content, "sections": sections}


@transaction.atomic
def proposal_accept(*, proposal: Proposal, user, note: str = "") -> SurveyVersion:
    """Accepting creates a new version on top of the LATEST version (an edit proposal made on an
    older version replaces the content as proposed; the diff page shows what that changes)."""
    proposal = (
        Proposal.objects.select_for_update().select_related("survey", "paper").get(pk=proposal.pk)
    )
    _require_maintainer(proposal.survey, user)
    if proposal.status != ProposalStatus.OPEN:
        raise ValidationError({"status": f"proposal is already {proposal.status}"})
    latest = selectors.survey_latest_version(proposal.survey)
    if proposal.kind == ProposalKind.UPDATE:
        content = _apply_update(latest.content, proposal)
        message = f"accepted update proposal #{proposal.pk}: {proposal.message}"
    else:
        content = proposal.content
        message = f"accepted edit proposal #{proposal.pk}: {proposal.message}"
    version = version_create(
        survey=proposal.survey, content=content, author=proposal.author or user, message=message
    )
    proposal.status, proposal.reviewed_by, proposal.reviewed_at = (
        ProposalStatus.ACCEPTED,
        user,
        timezone.now(),
    )
    proposal.review_note, proposal.result_version = note[:500], version
    proposal.save()
    return version


def proposal_reject(*, proposal: Proposal, user, note: str = "") -> Proposal:
    _require_maintainer(proposal.survey, user)
    if proposal.status != ProposalStatus.OPEN:
        raise ValidationError({"status": f"proposal is already {proposal.status}"})
    proposal.status, proposal.reviewed_by, proposal.reviewed_at = (
        ProposalStatus.REJECTED,
        user,
        timezone.now(),
    )
    proposal.review_note = note[:500]
    proposal.save()
    return proposal


def survey_add_maintainer(*, survey: LiveSurvey, user, username: str) -> None:
    from django.contrib.auth import get_user_model

    _require_maintainer(survey, user)
    other = get_user_model().objects.filter(username=username).first()
    if other is None:
        raise ValidationError({"username": f"no user {username!r}"})
    survey.maintainers.add(other)


def index_import(*, filename: str, data: bytes) -> int:
    """Add papers to the index from an uploaded arXiv .jsonl, .bib or DBLP .xml; existing ids are
    updated. Returns the number of papers read."""
    suffix = Path(filename).suffix.lower()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        try:
            papers = load_index(path).papers
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValidationError({"file": str(exc).replace(str(path), filename)}) from None
    with transaction.atomic():
        for p in papers:
            fields = {k: v for k, v in p.as_dict().items() if k != "pid"}
            fields["title"] = fields["title"][:1000]
            try:
                IndexedPaper.objects.update_or_create(pid=p.pid[:200], defaults=fields)
            except IntegrityError as exc:  # pragma: no cover - pid is unique per file already
                raise ValidationError({"file": f"{p.pid}: {exc}"}) from None
    return len(papers)


SURVEY_SUFFIXES = (".tex", ".md", ".markdown", ".pdf")
INDEX_SUFFIXES = (".jsonl", ".json", ".bib", ".xml")


def audit_submit(
    *,
    user,
    files,
    method: str,
    data_dir: Path,
    method_config: dict | None = None,
    audit_corpus: bool = False,
    topic: str = "",
):
    """Store an uploaded survey (+ .bib, index files, corpus surveys) under
    <data dir>/surveys/uploads/<uuid>/ and submit a `survey_audit` run on it."""
    import uuid

    from apps.runs.services import run_submit

    survey = files.get("survey")
    if survey is None or Path(survey.name).suffix.lower() not in SURVEY_SUFFIXES:
        raise ValidationError({"survey": "upload the survey as .tex, .md or .pdf"})
    index_files = files.getlist("index")
    if not index_files:
        raise ValidationError({"index": "upload at least one index file (.jsonl, .bib or .xml)"})
    for f in index_files:
        if Path(f.name).suffix.lower() not in INDEX_SUFFIXES:
            raise ValidationError({"index": f"{f.name}: use .jsonl, .bib or .xml"})
    rel = Path("uploads") / uuid.uuid4().hex
    root = data_dir / "surveys" / rel
    (root / "index").mkdir(parents=True)
    (root / "corpus").mkdir()

    def save(upload, folder: Path) -> str:
        name = Path(upload.name).name  # never trust a client path
        (folder / name).write_bytes(upload.read())
        return str((folder / name).relative_to(data_dir / "surveys"))

    config = {
        "source": "files",
        "topic": topic.strip()[:100],
        "survey_path": save(survey, root),
        "index_paths": ",".join(save(f, root / "index") for f in index_files),
    }
    if bib := files.get("bib"):
        config["bib_path"] = save(bib, root)
    corpus = files.getlist("corpus")
    for f in corpus:
        if Path(f.name).suffix.lower() in SURVEY_SUFFIXES + (".bib",):
            save(f, root / "corpus")
    if corpus:
        config["corpus_dir"] = str(rel / "corpus")
        config["audit_corpus"] = bool(audit_corpus)
    return run_submit(
        user=user,
        benchmark="survey_audit",
        method=method,
        benchmark_config=config,
        method_config=method_config or {},
        name=f"audit of {Path(survey.name).name}",
    )


def audit_leaderboard(*, user, topic: str | None) -> dict:
    """Audited surveys ranked per topic by reference validity (the share of references found in
    the index), with every score-card metric; one row per succeeded audit run."""
    from apps.runs.models import Run, RunStatus
    from apps.runs.selectors import visible_q

    runs = (
        Run.objects.filter(
            visible_q(user),
            benchmark__name="survey_audit",
            status=RunStatus.SUCCEEDED,
            is_chunk=False,
        )
        .select_related("method")
        .order_by("-id")
    )
    topics = sorted(
        {(cfg or {}).get("topic", "") for cfg in runs.values_list("benchmark_config", flat=True)}
    )
    chosen = (
        [r for r in runs if (r.benchmark_config or {}).get("topic", "") == (topic or "")]
        if topic is not None
        else []
    )
    keys = sorted({k for r in chosen for k in (r.summary or {})})
    rows = sorted(
        (
            {
                "run": r.pk,
                "name": r.name,
                "method": r.method.name,
                "survey": r.benchmark_config.get("survey_path", "fixture"),
                "metrics": r.summary,
            }
            for r in chosen
        ),
        key=lambda row: -(row["metrics"].get("reference_validity") or 0.0),
    )
    return {"topics": topics, "topic": topic, "keys": keys, "rows": rows}
