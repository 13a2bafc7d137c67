"""Configuration base: a pydantic model whose JSON schema drives the launch form and the API."""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict


class PluginConfig(BaseModel):
    """Base class for benchmark and method configuration.

    Unknown keys are rejected so that a typo in an API submission fails loudly instead of
    silently running with a default. Give every field a default, a description and bounds
    (`Field(3, ge=1, le=100, description="...")`): the launch form shows them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)


class ConfigError(ValueError):
    """Raised when a configuration does not validate. `errors` maps field path to reasons."""

    def __init__(self, errors: dict[str, list[str]], prefix: str = "") -> None:
        self.errors = {f"{prefix}{k}" if prefix else k: v for k, v in errors.items()}
        text = "; ".join(f"{k}: {', '.join(v)}" for k, v in self.errors.items())
        super().__init__(text or "invalid configuration")


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "__all__"


def validate_config(config_cls: type[PluginConfig], data: dict | None) -> PluginConfig:
    """Validate `data` against `config_cls`; raise ConfigError naming each bad field."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError({"__all__": [f"expected an object, got {type(data).__name__}"]})
    try:
        return config_cls.model_validate(data)
    except pydantic.ValidationError as exc:
        errors: dict[str, list[str]] = {}
        for err in exc.errors():
            errors.setdefault(_field_path(tuple(err["loc"])), []).append(err["msg"])
        raise ConfigError(errors) from None
