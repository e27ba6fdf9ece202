"""The authenticated principal of the request being handled: the verified token the HTTP
edge (the resource server, :mod:`mcpkit.auth.server`) sets once per request, and its owner
key. :mod:`mcpkit.owner` decides with it who owns what a server keeps.
"""

from __future__ import annotations

import contextvars
from typing import Protocol

__all__ = ["PRINCIPAL_PREFIX", "Principal", "current_token", "principal", "token_var"]

#: The prefix of a principal's owner key (``oauth:<subject>\x1f<client id>``).
PRINCIPAL_PREFIX = "oauth:"


class Principal(Protocol):
    """Who a verified token speaks for, as ownership reads it (a
    :class:`~mcpkit.auth.AccessToken` is one)."""

    @property
    def owner_key(self) -> str:
        """The owner of what requests with this token keep (``PRINCIPAL_PREFIX`` + ...)."""

    @property
    def subject(self) -> str | None: ...

    @property
    def client_id(self) -> str | None: ...


#: The verified access token of the HTTP request being handled (set by the resource server).
token_var: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "mcpkit_access_token", default=None
)


def current_token() -> Principal | None:
    """The verified access token of the request being handled (None without authorization)."""
    return token_var.get()


def principal() -> str | None:
    """The owner key of the authenticated principal of the request being handled, or None."""
    token = token_var.get()
    return None if token is None else token.owner_key
