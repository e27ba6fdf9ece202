"""Errors of the OAuth machinery."""

from __future__ import annotations

from typing import Any

__all__ = ["OAuthError"]


class OAuthError(Exception):
    """Authorization could not be obtained (discovery, registration, the authorization
    response or the token endpoint failed, or a security check refused to go on).

    ``error`` is the OAuth error code when an endpoint returned one (``invalid_grant``, ...).
    """

    def __init__(self, message: str, *, error: str | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.error = error
        self.data = data
