"""REST API of Dynamic Live Surveys and survey audits (mounted at /api/surveys/)."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status, views
from rest_framework.response import Response

from apps.surveys import selectors, services
from apps.surveys.models import Proposal


class VersionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    message = serializers.CharField()
    author = serializers.CharField(source="author.username", default=None)
    created_at = serializers.DateTimeField()
    content = serializers.JSONField()
    audit = serializers.JSONField()
    audit_error = serializers.CharField()


class SurveySerializer(serializers.Serializer):
    slug = serializers.SlugField()
    title = serializers.CharField()
    topic = serializers.CharField()
    description = serializers.CharField()
    visibility = serializers.CharField()
    maintainers = serializers.SerializerMethodField()
    contributors = serializers.SerializerMethodField()

    def get_maintainers(self, obj) -> list[str]:
        return [u.username for u in obj.maintainers.all()]

    def get_contributors(self, obj) -> list[str]:
        return [u.username for u in obj.contributors.all()]


class SurveyCreateSerializer(serializers.Serializer):
    slug = serializers.SlugField(max_length=100)
    title = serializers.CharField(max_length=300)
    topic = serializers.CharField(max_length=200, required=False, default="")
    description = serializers.CharField(required=False, default="", allow_blank=True)
    visibility = serializers.ChoiceField(["public", "team"], default="public")
    content = serializers.JSONField()


class ProposalSerializer(serializers.ModelSerializer):
    paper = serializers.SerializerMethodField()
    author = serializers.CharField(source="author.username", default=None)
    base_version = serializers.IntegerField(source="base_version.number")
    result_version = serializers.IntegerField(source="result_version.number", default=None)

    class Meta:
        model = Proposal
        fields = [
            "id",
            "kind",
            "status",
            "base_version",
            "section_title",
            "paper",
            "similarity",
            "why",
            "content",
            "message",
            "author",
            "review_note",
            "result_version",
            "created_at",
        ]

    def get_paper(self, obj) -> dict | None:
        p = obj.paper
        return (
            None
            if p is None
            else {
                "id": p.pid,
                "title": p.title,
                "authors": p.authors,
                "year": p.year,
                "published": p.published,
                "doi": p.doi,
                "arxiv_id": p.arxiv_id,
            }
        )


class ContentSerializer(serializers.Serializer):
    content = serializers.JSONField(
        help_text="{abstract, sections: [{title, level, text, keywords, references}]}"
    )
    message = serializers.CharField(required=False, allow_blank=True, max_length=500)


class NoteSerializer(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class GenerateSerializer(serializers.Serializer):
    min_similarity = serializers.FloatField(
        required=False, default=0.4, min_value=0.0, max_value=1.0
    )
    since = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=10,
        help_text="ISO date: only papers first posted on/after it",
    )


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField()


class AuditUploadSerializer(serializers.Serializer):
    survey = serializers.FileField(help_text=".tex, .md or .pdf")
    bib = serializers.FileField(required=False)
    index = serializers.ListField(
        child=serializers.FileField(), help_text=".jsonl (arXiv), .bib, .xml (DBLP)"
    )
    corpus = serializers.ListField(child=serializers.FileField(), required=False)
    method = serializers.CharField(required=False, default="survey_auditor")
    audit_corpus = serializers.BooleanField(required=False, default=False)
    topic = serializers.CharField(required=False, default="", max_length=100)


class UsernameSerializer(serializers.Serializer):
    username = serializers.CharField()


DICT = serializers.DictField()


def _survey(request, slug):
    return get_object_or_404(selectors.surveys_visible(request.user), slug=slug)


class SurveyListView(views.APIView):
    public = True

    @extend_schema(responses={200: SurveySerializer(many=True)})
    def get(self, request):
        qs = selectors.surveys_visible(request.user).prefetch_related("maintainers", "contributors")
        return Response(SurveySerializer(qs, many=True).data)

    @extend_schema(request=SurveyCreateSerializer, responses={201: SurveySerializer})
    def post(self, request):
        ser = SurveyCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        survey = services.survey_create(user=request.user, **ser.validated_data)
        return Response(SurveySerializer(survey).data, status=status.HTTP_201_CREATED)


class SurveyDetailView(views.APIView):
    public = True

    @extend_schema(responses={200: DICT})
    def get(self, request, slug):
        survey = _survey(request, slug)
        data = SurveySerializer(survey).data
        data["latest"] = VersionSerializer(selectors.survey_latest_version(survey)).data
        return Response(data)


class VersionListView(views.APIView):
    """GET: history; POST {content, message}: a maintainer's direct edit (a new version)."""

    public = True

    @extend_schema(responses={200: serializers.ListField(child=DICT)})
    def get(self, request, slug):
        survey = _survey(request, slug)
        return Response(
            [
                {
                    "number": v.number,
                    "message": v.message,
                    "created_at": v.created_at,
                    "author": v.author.username if v.author else None,
                    "reference_validity": (v.audit.get("scorecard") or {}).get(
                        "reference_validity"
                    ),
                }
                for v in survey.versions.select_related("author").order_by("-number")
            ]
        )

    @extend_schema(request=ContentSerializer, responses={201: VersionSerializer})
    def post(self, request, slug):
        survey = _survey(request, slug)
        if not selectors.survey_can_maintain(request.user, survey):
            raise ValidationError(
                {"user": "only maintainers edit directly; contributors post to proposals/"}
            )
        ser = ContentSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        v = services.version_create(
            survey=survey,
            content=ser.validated_data["content"],
            author=request.user,
            message=ser.validated_data.get("message", ""),
        )
        return Response(VersionSerializer(v).data, status=status.HTTP_201_CREATED)


class VersionDetailView(views.APIView):
    public = True

    @extend_schema(responses={200: VersionSerializer})
    def get(self, request, slug, number):
        survey = _survey(request, slug)
        return Response(VersionSerializer(get_object_or_404(survey.versions, number=number)).data)


class VersionDiffView(views.APIView):
    """GET ?against=<n> (default: the previous version): a unified diff of the Markdown."""

    public = True

    @extend_schema(parameters=[OpenApiParameter("against", int)], responses={200: DICT})
    def get(self, request, slug, number):
        survey = _survey(request, slug)
        new = get_object_or_404(survey.versions, number=number)
        against = request.query_params.get("against", str(number - 1))
        if not against.isdigit():
            raise ValidationError({"against": "must be a version number"})
        old = get_object_or_404(survey.versions, number=int(against))
        return Response(
            {"from": old.number, "to": new.number, "diff": selectors.version_diff(survey, old, new)}
        )


class ExportView(views.APIView):
    public = True

    @extend_schema(
        parameters=[OpenApiParameter("version", int)], responses={(200, "text/plain"): bytes}
    )
    def get(self, request, slug, fmt):
        if fmt not in ("md", "bib"):
            raise Http404("export formats: md, bib")
        survey = _survey(request, slug)
        number = request.query_params.get("version")
        version = (
            get_object_or_404(survey.versions, number=int(number))
            if number and number.isdigit()
            else selectors.survey_latest_version(survey)
        )
        if fmt == "md":
            return HttpResponse(
                selectors.export_markdown(version), content_type="text/markdown; charset=utf-8"
            )
        return HttpResponse(
            selectors.export_bibtex(version), content_type="application/x-bibtex; charset=utf-8"
        )


class ProposalListView(views.APIView):
    """GET: proposals (?status=open); POST {content, message}: a contributor's edit proposal."""

    public = True

    @extend_schema(
        parameters=[OpenApiParameter("status", str)], responses={200: ProposalSerializer(many=True)}
    )
    def get(self, request, slug):
        qs = _survey(request, slug).proposals.select_related(
            "paper", "author", "base_version", "result_version"
        )
        if value := request.query_params.get("status"):
            qs = qs.filter(status=value)
        return Response(ProposalSerializer(qs, many=True).data)

    @extend_schema(request=ContentSerializer, responses={201: ProposalSerializer})
    def post(self, request, slug):
        ser = ContentSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        p = services.proposal_create_edit(
            survey=_survey(request, slug),
            user=request.user,
            content=ser.validated_data["content"],
            message=ser.validated_data.get("message", ""),
        )
        return Response(ProposalSerializer(p).data, status=status.HTTP_201_CREATED)


class ProposalGenerateView(views.APIView):
    """POST {min_similarity, since}: automated update proposals from the index (maintainers)."""

    @extend_schema(request=GenerateSerializer, responses={201: ProposalSerializer(many=True)})
    def post(self, request, slug):
        ser = GenerateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        found = services.proposals_generate(
            survey=_survey(request, slug),
            user=request.user,
            min_similarity=ser.validated_data["min_similarity"],
            since=ser.validated_data.get("since", ""),
        )
        return Response(ProposalSerializer(found, many=True).data, status=status.HTTP_201_CREATED)


class ProposalReviewView(views.APIView):
    """POST .../proposals/<id>/accept or /reject, with an optional {note}."""

    @extend_schema(
        request=NoteSerializer, responses={200: ProposalSerializer, 201: VersionSerializer}
    )
    def post(self, request, slug, pk, action):
        if action not in ("accept", "reject"):
            raise Http404("actions: accept, reject")
        proposal = get_object_or_404(_survey(request, slug).proposals, pk=pk)
        ser = NoteSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        note = ser.validated_data.get("note", "")
        if action == "accept":
            version = services.proposal_accept(proposal=proposal, user=request.user, note=note)
            return Response(VersionSerializer(version).data, status=status.HTTP_201_CREATED)
        services.proposal_reject(proposal=proposal, user=request.user, note=note)
        return Response(ProposalSerializer(Proposal.objects.get(pk=pk)).data)


class IndexImportView(views.APIView):
    """POST multipart `file`: arXiv metadata .jsonl, .bib or DBLP .xml into the paper index."""

    @extend_schema(request={"multipart/form-data": UploadSerializer}, responses={201: DICT})
    def post(self, request):
        upload = request.FILES.get("file")
        if upload is None:
            raise ValidationError({"file": "upload a .jsonl, .bib or .xml file"})
        n = services.index_import(filename=upload.name, data=upload.read())
        return Response({"imported": n}, status=status.HTTP_201_CREATED)


class AuditUploadView(views.APIView):
    """POST multipart `survey` (.tex/.md/.pdf), optional `bib`, one or more `index` files and
    optional `corpus` files, plus `method` (default survey_auditor): stores them under the data
    cache and submits a `survey_audit` run on them. Returns the run."""

    @extend_schema(request={"multipart/form-data": AuditUploadSerializer}, responses={201: DICT})
    def post(self, request):
        from apps.runs.serializers import RunSerializer

        run = services.audit_submit(
            user=request.user,
            files=request.FILES,
            method=str(request.data.get("method", "survey_auditor")),
            data_dir=Path(settings.CRUCIBLE_DATA_DIR),
            audit_corpus=str(request.data.get("audit_corpus", "")).lower() in ("1", "true", "on"),
            topic=str(request.data.get("topic", ""))[:100],
        )
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


class MaintainerView(views.APIView):
    """POST {username}: a maintainer adds another maintainer."""

    @extend_schema(request=UsernameSerializer, responses={201: SurveySerializer})
    def post(self, request, slug):
        survey = _survey(request, slug)
        ser = UsernameSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        services.survey_add_maintainer(
            survey=survey, user=request.user, username=ser.validated_data["username"]
        )
        return Response(SurveySerializer(survey).data, status=status.HTTP_201_CREATED)


class AuditLeaderboardView(views.APIView):
    """Audited surveys of one topic, ranked by reference validity."""

    @extend_schema(
        parameters=[OpenApiParameter("topic", str)], responses={200: serializers.DictField()}
    )
    def get(self, request):
        return Response(
            services.audit_leaderboard(user=request.user, topic=request.query_params.get("topic"))
        )
