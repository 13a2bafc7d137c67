"""Bearer-token authentication against hashed, scoped, expiring tokens."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from rest_framework import authentication, exceptions

from apps.accounts.models import ApiToken


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("bearer", "token")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower().decode(errors="replace") not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <token>'.")
        raw = header[1].decode(errors="replace")
        try:
            token = ApiToken.objects.select_related("user").get(key_hash=ApiToken.hash_key(raw))
        except ApiToken.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed("Token has been revoked.")
        if token.expires_at is not None and token.expires_at <= timezone.now():
            raise exceptions.AuthenticationFailed("Token has expired.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User is inactive.")
        now = timezone.now()
        # Touch last_used at most once a minute: a write per request would dominate the API's cost.
        if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request):
        return "Bearer"
