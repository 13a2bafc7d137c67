from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from apps.accounts.models import ApiToken, Membership, Team, User

admin.site.register(User, UserAdmin)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "max_concurrent_runs", "max_runs_per_day")
    inlines = [MembershipInline]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "user",
        "key_prefix",
        "scopes",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    )
    readonly_fields = ("key_prefix", "key_hash", "created_at", "last_used_at")
