"""Who owns what a server keeps: one rule for every stored object.

Every object a server keeps between requests has an owner, decided here and nowhere else:
a 2025 session (with its GET stream and event log), a legacy HTTP+SSE session, a task in
either design (2025-11-25 ``tasks/*`` and the 2026-07-28 tasks extension), an MRTR
``requestState``, a ``subscriptions/listen`` stream and a proxy's upstream lease. The owner
is

1. the **authenticated principal** of the request that created it, whenever a
   :class:`~mcpkit.auth.ResourceServer` checked its token, wherever it was attached
   (``Server(auth=)``, ``Server.http_app(auth=)``, ``StreamableHTTPApp(auth=)``);
2. else the **2025 session** the request belongs to (an HTTP ``Mcp-Session-Id``, a legacy
   HTTP+SSE session, one stdio or in-memory connection);
3. else **nobody**: the object is reachable only through its own unguessable id (128 random
   bits or more) and is never listed.

Every read, list, cancel, resume and delete compares the stored owner with the owner of the
asking request (:func:`allowed`); a mismatch answers as if the object did not exist. The
owner is a plain string kept with the object (in the session hash and the task hash when
the state lives in Redis), so every replica checks it the same way, and the check is one
comparison: the principal is read from a context variable the resource server sets once per
HTTP request.
"""

from __future__ import annotations

from typing import Any

from mcpkit.principal import PRINCIPAL_PREFIX, Principal, current_token, principal, token_var

__all__ = [
    "PRINCIPAL_PREFIX",
    "Principal",
    "allowed",
    "current_token",
    "listable",
    "principal",
    "task_owner",
    "token_var",
]


def task_owner(session: Any) -> str | None:
    """The owner of what a request of ``session`` creates or reaches: the principal, else
    the 2025 session (HTTP ``Mcp-Session-Id``, legacy HTTP+SSE session, or one stdio or
    in-memory connection), else None (a stateless or 2026-07-28 request: nobody)."""
    token = token_var.get()
    if token is not None:
        return token.owner_key
    info = session.transport.info
    if info.kind == "http" or info.kind == "legacy-sse":
        return info.session_id  # type: ignore[no-any-return]  # None: stateless
    key = getattr(session, "task_owner_key", None)  # an AppSession's connection key
    return key if type(key) is str else None


def allowed(stored: str | None, asking: str | None) -> bool:
    """Whether a request owned by ``asking`` may reach an object whose owner is ``stored``
    by the object's id (``None`` and ``None``: nobody's object, reached by its id)."""
    return stored == asking


def listable(asking: str | None) -> bool:
    """Whether a request owned by ``asking`` may list objects: nobody's are never listed."""
    return asking is not None
