"""Dynamic Live Surveys: versioned survey documents, update/edit proposals, the paper index."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Visibility(models.TextChoices):
    PUBLIC = "public"
    TEAM = "team"


class IndexedPaper(models.Model):
    """A paper of the bibliographic index (arXiv metadata, BibTeX, DBLP) that update proposals
    and audits draw on. `pid` is the library's IndexPaper.pid (arXiv:<id>, DOI, dblp:<key>)."""

    pid = models.CharField(max_length=200, unique=True)
    title = models.CharField(max_length=1000)
    authors = models.JSONField(default=list)
    year = models.PositiveIntegerField(null=True, blank=True)
    doi = models.CharField(max_length=200, blank=True, db_index=True)
    arxiv_id = models.CharField(max_length=40, blank=True, db_index=True)
    abstract = models.TextField(blank=True)
    categories = models.JSONField(default=list)
    published = models.CharField(
        max_length=10, blank=True, help_text="ISO date of the first version"
    )
    citation_count = models.PositiveIntegerField(null=True, blank=True)
    source = models.CharField(max_length=40, blank=True)
    added_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.title


class LiveSurvey(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=300)
    topic = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    team = models.ForeignKey(
        "accounts.Team", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    visibility = models.CharField(
        max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    maintainers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="maintained_surveys", blank=True
    )
    contributors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="contributed_surveys", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


class SurveyVersion(models.Model):
    """An immutable snapshot. `content` = {"abstract": str, "sections": [{"title", "level",
    "text", "keywords": [...], "references": [{"key", "title", "authors", "year", "doi",
    "arxiv_id", "venue"}]}]}; `audit` holds the audit library's report of this version."""

    survey = models.ForeignKey(LiveSurvey, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    content = models.JSONField(default=dict)
    message = models.CharField(max_length=500, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    audit = models.JSONField(default=dict, blank=True)
    audit_error = models.TextField(blank=True)

    class Meta:
        ordering = ["survey", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "number"], name="surveys_version_unique_number"
            ),
            models.CheckConstraint(
                condition=models.Q(number__gte=1), name="surveys_version_number_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.survey.slug} v{self.number}"


class ProposalKind(models.TextChoices):
    UPDATE = "update", "automated update"
    EDIT = "edit", "contributor edit"


class ProposalStatus(models.TextChoices):
    OPEN = "open"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class Proposal(models.Model):
    survey = models.ForeignKey(LiveSurvey, on_delete=models.CASCADE, related_name="proposals")
    kind = models.CharField(max_length=10, choices=ProposalKind.choices)
    status = models.CharField(
        max_length=10, choices=ProposalStatus.choices, default=ProposalStatus.OPEN
    )
    base_version = models.ForeignKey(SurveyVersion, on_delete=models.CASCADE, related_name="+")
    # update: the paper to add to a section, and why it matched
    section_title = models.CharField(max_length=300, blank=True)
    paper = models.ForeignKey(
        IndexedPaper, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    similarity = models.FloatField(null=True, blank=True)
    why = models.TextField(blank=True)
    # edit: the full proposed content
    content = models.JSONField(default=dict, blank=True)
    message = models.CharField(max_length=500, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    review_note = models.CharField(max_length=500, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    result_version = models.ForeignKey(
        SurveyVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(kind="update", paper__isnull=False) | models.Q(kind="edit")),
                name="surveys_update_proposal_has_paper",
            ),
            models.UniqueConstraint(
                fields=["survey", "paper"],
                condition=models.Q(kind="update"),
                name="surveys_one_update_proposal_per_paper",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.survey.slug} proposal #{self.pk} ({self.kind}, {self.status})"
