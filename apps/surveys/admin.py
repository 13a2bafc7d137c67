from django.contrib import admin

from apps.surveys.models import IndexedPaper, LiveSurvey, Proposal, SurveyVersion


@admin.register(LiveSurvey)
class LiveSurveyAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "topic", "visibility", "owner")
    search_fields = ("slug", "title", "topic")
    filter_horizontal = ("maintainers", "contributors")


@admin.register(SurveyVersion)
class SurveyVersionAdmin(admin.ModelAdmin):
    list_display = ("survey", "number", "author", "created_at", "message")
    list_filter = ("survey",)


@admin.register(Proposal)
class ProposalAdmin(admin.ModelAdmin):
    list_display = ("survey", "kind", "status", "section_title", "author", "created_at")
    list_filter = ("kind", "status")


@admin.register(IndexedPaper)
class IndexedPaperAdmin(admin.ModelAdmin):
    list_display = ("pid", "title", "year", "source")
    search_fields = ("pid", "title", "doi", "arxiv_id")
