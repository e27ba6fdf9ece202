"""What mcpkit's own log records show of secrets: a session id over HTTP is a bearer
credential (whoever holds it speaks in that session), so logs name a session by a short
hash of its id (:func:`session_tag`), the same for every record of that session and useless
for taking it over. To find a session's records, compute the tag of its id."""

from __future__ import annotations

import hashlib

__all__ = ["client_label", "session_tag"]


def session_tag(session_id: str) -> str:
    """12 hex characters of the BLAKE2b hash of ``session_id``: stable per session, and the
    id cannot be recovered from it."""
    return hashlib.blake2b(session_id.encode(), digest_size=6).hexdigest()


def client_label(client_id: str) -> str:
    """A client id (:attr:`~mcpkit.server.middleware.MiddlewareContext.client_id`) fit for
    logs: ``session:<id>`` becomes ``session:<tag>``; principals and addresses stay."""
    if client_id.startswith("session:"):
        return "session:" + session_tag(client_id[len("session:") :])
    return client_id
