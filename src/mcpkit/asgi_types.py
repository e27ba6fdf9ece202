"""The ASGI types, in one place: ``Scope``, ``Message``, ``Receive``, ``Send``, ``ASGIApp``.

Plain aliases (any ASGI server's dicts and callables fit), imported by the HTTP transport,
the authorization middleware and the routes alike.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, TypeAlias

__all__ = ["ASGIApp", "Message", "Receive", "Scope", "Send"]

Scope: TypeAlias = MutableMapping[str, Any]
"""An ASGI connection scope."""
Message: TypeAlias = MutableMapping[str, Any]
"""An ASGI event, received or sent."""
Receive: TypeAlias = Callable[[], Awaitable[Message]]
"""The ASGI ``receive`` callable."""
Send: TypeAlias = Callable[[Message], Awaitable[None]]
"""The ASGI ``send`` callable."""
ASGIApp: TypeAlias = Callable[[Scope, Receive, Send], Awaitable[None]]
"""An ASGI application."""
