"""Encryption at rest for model API keys (Fernet, key from the environment or SECRET_KEY)."""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    key = settings.CRUCIBLE_FERNET_KEY
    if not key:
        key = base64.urlsafe_b64encode(
            hashlib.sha256(("crucible-fernet:" + settings.SECRET_KEY).encode()).digest()
        )
    return Fernet(key)


def encrypt_secret(plain: str) -> bytes:
    return _fernet().encrypt(plain.encode())


def decrypt_secret(token: bytes | memoryview | None) -> str:
    if not token:
        return ""
    try:
        return _fernet().decrypt(bytes(token)).decode()
    except InvalidToken:
        raise ValueError("stored API key cannot be decrypted with the current key") from None
