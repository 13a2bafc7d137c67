"""One permission class for every API view: authentication plus token scopes.

A view declares `required_scope` ("read" by default for safe methods, "submit" for writes,
"admin" for pool management). Session users (the browser) have read and submit; staff also admin.
"""

from __future__ import annotations

from rest_framework import permissions

from apps.accounts.models import ApiToken


def request_scopes(request) -> set[str]:
    if isinstance(request.auth, ApiToken):
        return set(request.auth.scopes)
    user = request.user
    if not user or not user.is_authenticated:
        return set()
    return {"read", "submit", "admin"} if user.is_staff else {"read", "submit"}


class ScopedPermission(permissions.BasePermission):
    message = "Your credentials lack the scope this endpoint needs."

    def has_permission(self, request, view) -> bool:
        if getattr(view, "public", False) and request.method in permissions.SAFE_METHODS:
            return True
        if not request.user or not request.user.is_authenticated:
            return False
        needed = getattr(view, "required_scope", None)
        if needed is None:
            needed = "read" if request.method in permissions.SAFE_METHODS else "submit"
        scopes = request_scopes(request)
        if needed == "admin" and not request.user.is_staff:
            return False
        if needed not in scopes:
            self.message = f"This endpoint needs the '{needed}' scope."
            return False
        return True
