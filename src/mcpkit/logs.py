"""What mcpkit's own log records show of secrets: a session id over HTTP is a bearer
credential (whoever holds it speaks in that session), so logs name a session by a short
hash of its id (:func:`session_tag`), the same for every record of that session and useless
for taking it over. To find a session's records, compute the tag of its id."""

from __future__ import annotations

import hashlib
import logging
import re

__all__ = ["SessionIdFilter", "client_label", "session_tag"]

# ``session_id=<id>`` (or ``sessionId=``) in a URL's query: the 2024-11-05 HTTP+SSE
# transport puts the session id there, and access logs write whole request paths.
_QUERY_ID = re.compile(r"(?i)\b(session_?id=)([^&#\s\"']+)")


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


class SessionIdFilter(logging.Filter):
    """A logging filter that rewrites ``session_id=<id>`` in a record's message and string
    arguments to ``session_id=<tag>``; mcpkit's ``serve`` puts it on uvicorn's access log."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, str) and "=" in a for a in args):
            record.args = tuple(redact_url(a) if isinstance(a, str) else a for a in args)
        if isinstance(record.msg, str) and "=" in record.msg:
            record.msg = redact_url(record.msg)
        return True


#: The one instance serving installs (adding it twice to a logger is a no-op).
SESSION_ID_FILTER = SessionIdFilter()
