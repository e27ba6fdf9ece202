"""``fastmcp.server.auth.providers.debug`` on mcpkit: :class:`DebugTokenVerifier`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier

__all__ = ["DebugTokenVerifier"]


class DebugTokenVerifier(TokenVerifier):
    """Accepts the tokens ``validate(token)`` (sync or async) says are valid (by default
    any non-empty one), as ``client_id`` with ``scopes``: for tests and development."""

    def __init__(
        self,
        validate: Callable[[str], bool] | Callable[[str], Awaitable[bool]] = lambda token: True,
        client_id: str = "debug-client",
        scopes: list[str] | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.validate = validate
        self.client_id = client_id
        self.scopes = scopes or []

    async def verify_token(self, token: str) -> AccessToken | None:
        """An :class:`AccessToken` (no expiry, the token in its claims) when valid."""
        if not token or not token.strip():
            return None
        try:
            result = self.validate(token)
            valid = await result if inspect.isawaitable(result) else result
        except Exception:
            return None
        if not valid:
            return None
        return AccessToken(
            token=token,
            client_id=self.client_id,
            scopes=self.scopes,
            expires_at=None,
            claims={"token": token},
        )
