from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.accounts.models import ApiToken
from apps.accounts.services import api_token_create, api_token_revoke


@login_required
def tokens(request):
    created = None
    error = None
    if request.method == "POST":
        scopes = request.POST.getlist("scopes") or ["read", "submit"]
        try:
            days = int(request.POST.get("expires_in_days") or 90)
            _, created = api_token_create(
                user=request.user,
                name=request.POST.get("name") or "default",
                scopes=scopes,
                expires_in_days=days,
            )
        except (ValueError, ValidationError) as exc:
            error = "; ".join(getattr(exc, "messages", [str(exc)]))
    return render(
        request,
        "accounts/tokens.html",
        {
            "tokens": request.user.api_tokens.order_by("-id"),
            "created": created,
            "error": error,
            "scopes": ApiToken.SCOPES,
        },
    )


@login_required
@require_POST
def token_revoke(request, pk: int):
    api_token_revoke(token=get_object_or_404(ApiToken, pk=pk, user=request.user))
    return redirect("tokens")
