"""Writes for accounts: users, teams, tokens."""

from __future__ import annotations

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.accounts.models import ApiToken, Membership, Team, User


def team_get_or_create_personal(*, user: User) -> Team:
    """Every user gets a personal team so private objects always have an owner team."""
    team, _ = Team.objects.get_or_create(name=f"user-{user.pk}")
    Membership.objects.get_or_create(user=user, team=team, defaults={"role": Membership.Role.ADMIN})
    return team


@transaction.atomic
def user_create(
    *,
    username: str,
    password: str,
    email: str = "",
    is_staff: bool = False,
    is_superuser: bool = False,
) -> User:
    user = User(username=username, email=email, is_staff=is_staff, is_superuser=is_superuser)
    user.set_password(password)
    user.full_clean()
    user.save()
    team_get_or_create_personal(user=user)
    return user


def api_token_create(
    *,
    user: User,
    name: str = "default",
    scopes: list[str] | None = None,
    expires_in_days: int | None = 90,
) -> tuple[ApiToken, str]:
    """Create a token; return it and the raw key, which is never retrievable again."""
    scopes = list(scopes or ["read", "submit"])
    bad = [s for s in scopes if s not in ApiToken.SCOPES]
    if bad:
        raise ValidationError(
            {"scopes": f"unknown scope(s) {bad}; choose from {list(ApiToken.SCOPES)}"}
        )
    if "admin" in scopes and not user.is_staff:
        raise ValidationError({"scopes": "only staff users can hold the admin scope"})
    raw = ApiToken.generate_raw()
    token = ApiToken(
        user=user,
        name=name,
        key_prefix=raw[:12],
        key_hash=ApiToken.hash_key(raw),
        scopes=scopes,
        expires_at=timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None,
    )
    token.full_clean()
    token.save()
    return token, raw


def api_token_revoke(*, token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])


def team_storage_used(*, team: Team) -> int:
    """Bytes a team stores: its datasets' versions and its runs' artifacts."""
    from django.db.models import Sum

    from apps.catalog.models import DatasetVersion
    from apps.runs.models import Artifact

    datasets = (
        DatasetVersion.objects.filter(dataset__team=team).aggregate(n=Sum("size_bytes"))["n"] or 0
    )
    artifacts = Artifact.objects.filter(run__team=team).aggregate(n=Sum("size_bytes"))["n"] or 0
    return int(datasets) + int(artifacts)


def storage_quota_check(*, user, incoming_bytes: int, field: str = "file") -> None:
    """Refuse an upload that would take the user's personal team over its storage quota."""
    if user is None or not user.is_authenticated or user.is_staff:
        return
    team = team_get_or_create_personal(user=user)
    used = team_storage_used(team=team)
    if used + incoming_bytes > team.max_storage_bytes:
        raise ValidationError(
            {
                field: f"storage quota: team {team.name} stores {used} of {team.max_storage_bytes} "
                f"bytes; this upload needs {incoming_bytes} more"
            }
        )
