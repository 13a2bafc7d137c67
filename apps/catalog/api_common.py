"""API plumbing shared by every app: pagination and JSON errors that name the field."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500


def django_errors(exc: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(exc, "error_dict"):
        return {
            field: [str(m) for e in errs for m in e.messages]
            for field, errs in exc.error_dict.items()
        }
    return {"non_field_errors": [str(m) for m in exc.messages]}


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            out.update(_flatten(value, name))
    elif isinstance(detail, list):
        if all(not isinstance(v, (dict, list)) for v in detail):
            out[prefix or "non_field_errors"] = [str(v) for v in detail]
        else:
            for i, value in enumerate(detail):
                out.update(_flatten(value, f"{prefix}[{i}]" if prefix else f"[{i}]"))
    else:
        out[prefix or "non_field_errors"] = [str(detail)]
    return out


def exception_handler(exc, context):
    """Errors as {"errors": {field: [reason, ...]}} for validation, {"detail": ...} otherwise."""
    if isinstance(exc, DjangoValidationError):
        return Response({"errors": django_errors(exc)}, status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, ValidationError):
        response.data = {"errors": _flatten(exc.detail)}
    return response
