"""What mcpkit's own log records show of secrets: a session id over HTTP is a bearer
credential (whoever holds it speaks in that session), so logs name a session by a short
hash of its id (:func:`session_tag`), the same for every record of that session and useless
for taking it over. To find a session's records, compute the tag of its id. The HTTP
servers' access logs (uvicorn's and granian's) go through :class:`SessionIdFilter`, which
does the same to session ids in request queries and to credentials in ``Authorization``
values (``Bearer <token>``)."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["SessionIdFilter", "client_label", "session_tag"]

# ``session_id=<id>`` (or ``sessionId=``) in a URL's query: the 2024-11-05 HTTP+SSE
# transport puts the session id there, and access logs write whole request paths.
_QUERY_ID = re.compile(r"(?i)\b(session_?id=)([^&#\s\"']+)")
# An ``Authorization`` value (a header an access log format may name): its credential.
_CREDENTIAL = re.compile(r"(?i)\b(Bearer|DPoP|Basic) +([A-Za-z0-9._~+/=-]{8,})")


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


def redact_url(text: str) -> str:
    """``text`` with every ``session_id=<id>`` query value replaced by its tag."""
    return _QUERY_ID.sub(lambda m: m.group(1) + session_tag(m.group(2)), text)


def redact(text: str) -> str:
    """``text`` with session ids in queries and credentials of ``Authorization`` values
    (``Bearer <token>``) replaced by their tags."""
    if "=" in text:
        text = redact_url(text)
    if " " in text:
        text = _CREDENTIAL.sub(lambda m: m.group(1) + " " + session_tag(m.group(2)), text)
    return text


def _redacted(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class SessionIdFilter(logging.Filter):
    """A logging filter that rewrites ``session_id=<id>`` in a record's message and string
    arguments (a tuple, as uvicorn's access log has, or a mapping, as granian's) to
    ``session_id=<tag>``, and ``Bearer <token>`` to ``Bearer <tag>``; mcpkit's ``serve``
    puts it on uvicorn's and granian's access logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(_redacted(a) for a in args)
        elif isinstance(args, Mapping):
            record.args = {k: _redacted(v) for k, v in args.items()}
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


#: The one instance serving installs (adding it twice to a logger is a no-op).
SESSION_ID_FILTER = SessionIdFilter()


def session_id_filter() -> SessionIdFilter:
    """:data:`SESSION_ID_FILTER`, as a logging configuration's filter factory: a logger
    configured again in the same process keeps one filter (two would tag a tag)."""
    return SESSION_ID_FILTER
