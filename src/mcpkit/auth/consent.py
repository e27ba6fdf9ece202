"""The embedded authorization server's consent page: "<client> wants <scopes> on
<resource>", Allow or Deny.

The page may not be framed (``X-Frame-Options: DENY``, ``frame-ancestors 'none'``:
clickjacking), its form goes to this server only (and the redirect after it to the client's
redirect URI: ``form-action``), and its answer must come from it: the page sets a random token in an
``HttpOnly``, ``SameSite=Strict`` cookie scoped to the consent path and repeats it in the
form; the answer is refused unless both match (double submit: a cross-site form has neither
the cookie nor the token). What was asked travels in a ticket sealed with HMAC-SHA256 (bound
to that token, valid :data:`TTL` seconds), so any replica with the signing key serves the
answer and nothing can be changed in it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson

if TYPE_CHECKING:
    from starlette.responses import Response

__all__ = ["COOKIE", "TTL", "cookie_path", "open_ticket", "page", "seal"]

#: The cookie carrying the form token.
COOKIE = "mcpkit_consent"
#: Seconds a consent page may be answered.
TTL = 600


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def seal(key: bytes, payload: dict[str, Any]) -> str:
    """``payload`` as a ticket: its JSON and an HMAC-SHA256 of it."""
    body = _b64(orjson.dumps(payload))
    tag = _b64(hmac.new(key, body.encode(), hashlib.sha256).digest())
    return f"{body}.{tag}"


def open_ticket(key: bytes, ticket: str) -> dict[str, Any] | None:
    """The payload of a ticket sealed with ``key``; None when forged or malformed."""
    body, _, tag = ticket.partition(".")
    expected = _b64(hmac.new(key, body.encode(), hashlib.sha256).digest())
    if not tag or not hmac.compare_digest(tag.encode(), expected.encode()):
        return None
    try:
        payload = orjson.loads(_unb64(body))
    except (ValueError, orjson.JSONDecodeError):
        return None
    return payload if isinstance(payload, dict) else None


def cookie_path(issuer: str) -> str:
    """The path the consent cookie is sent to (the answer's endpoint only)."""
    return urlsplit(issuer).path.rstrip("/") + "/authorize/consent"


_HEADERS = {
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
}
#: A source expression the redirect URI's origin may appear as in the policy.
_SOURCE = re.compile(r"[a-z][a-z0-9+.-]*:(//[a-z0-9.\-]+(:[0-9]+)?|//\[[0-9a-f:.]+\](:[0-9]+)?)?")


def policy(redirect_uri: str) -> str:
    """The page's Content-Security-Policy: nothing loads, it cannot be framed, and its form
    goes to this server only, whose answer may redirect to the client's ``redirect_uri``
    (browsers hold a form's redirects to ``form-action`` too)."""
    parts = urlsplit(redirect_uri)
    scheme = parts.scheme.lower()
    target = f"{scheme}://{parts.netloc.lower()}" if parts.netloc else f"{scheme}:"
    allowed = "'self'"
    if _SOURCE.fullmatch(target):
        allowed += " " + target
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"form-action {allowed}; frame-ancestors 'none'; base-uri 'none'"
    )


def page(
    *,
    client_name: str,
    redirect_uri: str,
    scopes: Sequence[str],
    resource: str,
    action: str,
    ticket: str,
    csrf: str,
    secure: bool,
    warning: str | None = None,
) -> Response:
    """The consent page (every value escaped, ``warning`` shown above the buttons), with
    its cookie and headers."""
    from starlette.responses import HTMLResponse

    host = urlsplit(redirect_uri).netloc or redirect_uri
    items = "".join(f"<li>{escape(s)}</li>" for s in scopes) or "<li>(no scope)</li>"
    note = f"<p><b>Warning:</b> {escape(warning)}</p>" if warning else ""
    html = (
        "<!doctype html><meta charset=utf-8><title>Allow access?</title>"
        "<style>body{font:16px system-ui;max-width:32em;margin:3em auto}</style>"
        f"<h1>{escape(client_name)} wants access</h1>"
        f"<p>to <b>{escape(resource)}</b>, for:</p><ul>{items}</ul>"
        f"<p>You will be sent back to <b>{escape(host)}</b>.</p>{note}"
        f'<form method=post action="{escape(action)}">'
        f'<input type=hidden name=ticket value="{escape(ticket)}">'
        f'<input type=hidden name=csrf value="{escape(csrf)}">'
        "<button name=decision value=allow>Allow</button> "
        "<button name=decision value=deny>Deny</button></form>"
    )
    headers = {**_HEADERS, "content-security-policy": policy(redirect_uri)}
    response = HTMLResponse(html, 200, headers=headers)
    path = action
    response.set_cookie(
        COOKIE, csrf, max_age=TTL, path=path, secure=secure, httponly=True, samesite="strict"
    )
    return response
