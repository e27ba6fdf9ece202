"""The HTTP surface shared by the endpoints of the embedded authorization server: the
OAuth error they raise, the form body they read, and the JSON, error and HTML responses
they answer with (RFC 6749 s5.2 error bodies; ``no-store`` on tokens; pages that refuse to
be framed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["EndpointError", "error_page", "error_response", "json_response", "read_form"]


class EndpointError(Exception):
    """An OAuth error an endpoint answers: ``error`` (RFC 6749 code), its description and
    the HTTP status."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


async def read_form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body; a repeated parameter is refused."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise EndpointError("invalid_request", "The body must be form-encoded")
    pairs = parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    form: dict[str, str] = {}
    for k, v in pairs:
        if k in form:
            raise EndpointError("invalid_request", f"Parameter {k!r} is repeated")
        form[k] = v
    return form


def json_response(
    body: Any, status: int, *, cors: bool = False, no_store: bool = False
) -> Response:
    """``body`` as JSON (``cors``: readable from any origin; ``no_store``: never cached)."""
    import orjson
    from starlette.responses import Response

    headers = {}
    if cors:
        headers["access-control-allow-origin"] = "*"
    if no_store:
        headers["cache-control"] = "no-store"
    return Response(orjson.dumps(body), status, headers, media_type="application/json")


def error_response(error: str, description: str, status: int = 400) -> Response:
    """An OAuth error body (a 401 asks for Basic client credentials)."""
    response = json_response({"error": error, "error_description": description}, status)
    if status == 401:
        response.headers["www-authenticate"] = 'Basic realm="token"'
    return response


def error_page(status: int, message: str) -> Response:
    """An error shown to the user's browser (never sent to an unverified redirect URI)."""
    from html import escape

    from starlette.responses import HTMLResponse

    return HTMLResponse(
        f"<!doctype html><title>Authorization failed</title><p>{escape(message)}</p>",
        status,
        headers={"x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'"},
    )
