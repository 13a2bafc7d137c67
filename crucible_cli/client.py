"""A small REST client: token auth, JSON errors turned into readable messages."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import requests

CONFIG_PATH = Path(
    os.environ.get("CRUCIBLE_CONFIG", Path.home() / ".config" / "crucible" / "config.json")
)


class ApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        self.status, self.body = status, body
        super().__init__(format_error(status, body))


def format_error(status: int, body: Any) -> str:
    if isinstance(body, dict) and "errors" in body:
        parts = [
            f"{field}: {'; '.join(map(str, reasons))}" for field, reasons in body["errors"].items()
        ]
        return f"HTTP {status}: " + " | ".join(parts)
    if isinstance(body, dict) and "detail" in body:
        return f"HTTP {status}: {body['detail']}"
    return f"HTTP {status}: {str(body)[:300]}"


def load_config() -> dict[str, str]:
    config: dict[str, str] = {}
    if CONFIG_PATH.is_file():
        config.update(json.loads(CONFIG_PATH.read_text()))
    if os.environ.get("CRUCIBLE_URL"):
        config["url"] = os.environ["CRUCIBLE_URL"]
    if os.environ.get("CRUCIBLE_TOKEN"):
        config["token"] = os.environ["CRUCIBLE_TOKEN"]
    config.setdefault("url", "http://127.0.0.1:8000")
    return config


def save_config(url: str, token: str) -> Path:
    CONFIG_PATH.parent.mkdir(parents=True, exist_ok=True)
    CONFIG_PATH.write_text(json.dumps({"url": url, "token": token}))
    CONFIG_PATH.chmod(0o600)
    return CONFIG_PATH


class Client:
    def __init__(self, url: str, token: str | None, timeout: float = 30.0) -> None:
        self.base = url.rstrip("/")
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"
        self.timeout = timeout

    def request(self, method: str, path: str, **kwargs) -> Any:
        response = self.session.request(
            method, f"{self.base}{path}", timeout=self.timeout, **kwargs
        )
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = response.text
            raise ApiError(response.status_code, body)
        if "json" in response.headers.get("Content-Type", ""):
            return response.json()
        return response.text

    def get(self, path: str, **params) -> Any:
        return self.request("GET", path, params={k: v for k, v in params.items() if v is not None})

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, json=body)
