"""``fastmcp.client.auth.bearer`` on mcpkit."""

from __future__ import annotations

from collections.abc import Generator

import httpx
from pydantic import SecretStr

__all__ = ["BearerAuth"]


class BearerAuth(httpx.Auth):
    """Send ``token`` as ``Authorization: Bearer`` on every request."""

    def __init__(self, token: str) -> None:
        self.token = SecretStr(token)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response]:
        request.headers["Authorization"] = f"Bearer {self.token.get_secret_value()}"
        yield request
