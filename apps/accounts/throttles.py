from rest_framework.throttling import SimpleRateThrottle

from apps.accounts.models import ApiToken


class TokenRateThrottle(SimpleRateThrottle):
    """Rate limit per API token (per user for session requests, per IP when anonymous)."""

    scope = "token"

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiToken):
            ident = f"tok{request.auth.pk}"
        elif request.user and request.user.is_authenticated:
            ident = f"user{request.user.pk}"
        else:
            ident = self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}
