import json

from django import template

register = template.Library()


@register.filter
def json_compact(value) -> str:
    """Configs as JSON (what the API takes), not Python reprs."""
    return json.dumps(value, separators=(", ", ": "), default=str)
