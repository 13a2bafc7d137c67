"""The launch form, generated from the plugins' pydantic JSON schemas."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FormField:
    name: str  # e.g. "benchmark_config.budget"
    label: str
    widget: str  # number | checkbox | select | text | json
    value: Any
    help: str = ""
    choices: list[Any] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    json_type: str = "string"


def _resolve(schema: dict, prop: dict) -> dict:
    """Inline $ref and Optional[...] (anyOf with null) so the widget sees the real type."""
    if "$ref" in prop:
        name = prop["$ref"].split("/")[-1]
        merged = dict(schema.get("$defs", {}).get(name, {}))
        merged.update({k: v for k, v in prop.items() if k != "$ref"})
        return merged
    if "anyOf" in prop:
        options = [o for o in prop["anyOf"] if o.get("type") != "null"]
        if len(options) == 1:
            merged = dict(_resolve(schema, options[0]))
            merged.update({k: v for k, v in prop.items() if k != "anyOf"})
            return merged
    return prop


def schema_fields(schema: dict, prefix: str, values: dict | None = None) -> list[FormField]:
    values = values or {}
    out = []
    for name, raw in (schema.get("properties") or {}).items():
        prop = _resolve(schema, raw)
        value = values.get(name, prop.get("default"))
        json_type = prop.get("type", "string")
        attrs: dict[str, Any] = {}
        if "enum" in prop or "const" in prop:
            widget, choices = "select", prop.get("enum", [prop.get("const")])
        elif json_type == "boolean":
            widget, choices = "checkbox", []
        elif json_type in ("integer", "number"):
            widget, choices = "number", []
            for key, attr in (
                ("minimum", "min"),
                ("maximum", "max"),
                ("exclusiveMinimum", "min"),
                ("exclusiveMaximum", "max"),
            ):
                if key in prop:
                    attrs[attr] = prop[key]
            attrs["step"] = 1 if json_type == "integer" else "any"
        elif json_type == "array" and "enum" in _resolve(schema, prop.get("items", {})):
            widget, choices = "multiselect", _resolve(schema, prop["items"])["enum"]
            value = list(value or [])
        elif json_type in ("array", "object"):
            widget, choices = "json", []
            value = json.dumps(value) if value is not None else ""
        else:
            widget, choices = "text", []
            if "maxLength" in prop:
                attrs["maxlength"] = prop["maxLength"]
        out.append(
            FormField(
                name=f"{prefix}.{name}",
                label=prop.get("title", name),
                widget=widget,
                value=value,
                help=prop.get("description", ""),
                choices=choices,
                attrs=attrs,
                json_type=json_type,
            )
        )
    return out


def parse_submitted(fields: list[FormField], post) -> tuple[dict, dict[str, list[str]]]:
    """Turn POSTed strings into typed config values; unparseable ones become field errors.
    Range checks are left to pydantic so the messages are the same as the API's."""
    config: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for f in fields:
        key = f.name.split(".", 1)[1]
        if f.widget == "checkbox":
            config[key] = post.get(f.name) in ("on", "true", "1")
            f.value = config[key]
            continue
        if f.widget == "multiselect":
            config[key] = post.getlist(f.name)
            f.value = config[key]
            continue
        raw = post.get(f.name, "")
        f.value = raw
        if raw == "":
            continue  # use the default
        try:
            if f.widget == "json":
                config[key] = json.loads(raw)
            elif f.json_type == "integer":
                config[key] = int(raw)
            elif f.json_type == "number":
                config[key] = float(raw)
            elif f.widget == "select" and f.choices and not isinstance(f.choices[0], str):
                config[key] = type(f.choices[0])(raw)
            else:
                config[key] = raw
        except (ValueError, TypeError):
            errors.setdefault(f.name, []).append(f"not a valid {f.json_type}")
    return config, errors
