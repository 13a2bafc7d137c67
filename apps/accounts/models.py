"""Users, teams with roles, and hashed, scoped, expiring API tokens."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone


class User(AbstractUser):
    """Custom user from day one (cookiecutter-django); teams come through Membership."""

    def team_ids(self) -> list[int]:
        if not hasattr(self, "_team_ids"):
            self._team_ids = list(self.memberships.values_list("team_id", flat=True))
        return self._team_ids


class Team(models.Model):
    name = models.SlugField(max_length=64, unique=True)
    max_concurrent_runs = models.PositiveIntegerField(default=50)
    max_runs_per_day = models.PositiveIntegerField(default=5000)
    max_storage_bytes = models.PositiveBigIntegerField(
        default=20 * 1024**3, help_text="uploads and artifacts"
    )

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        MEMBER = "member"
        MAINTAINER = "maintainer"
        ADMIN = "admin"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "team"], name="one_membership_per_team")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.team_id} as {self.role}"


class ApiToken(models.Model):
    """An API token. Only its SHA-256 is stored; the plain value is shown once at creation."""

    SCOPES = ("read", "submit", "admin")
    PREFIX = "cru_"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, default="default")
    key_prefix = models.CharField(max_length=12, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.key_prefix}…)"

    @staticmethod
    def hash_key(raw: str) -> str:
        return hashlib.sha256(raw.encode()).hexdigest()

    @classmethod
    def generate_raw(cls) -> str:
        return cls.PREFIX + secrets.token_urlsafe(32)

    @property
    def is_active(self) -> bool:
        now = timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)
