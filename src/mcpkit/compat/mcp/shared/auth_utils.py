"""``mcp.shared.auth_utils`` on mcpkit: resource indicators (RFC 8707) as the official
SDK's token verifiers compare them."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlparse, urlsplit, urlunsplit

__all__ = ["calculate_token_expiry", "check_resource_allowed", "resource_url_from_server_url"]


def resource_url_from_server_url(url: Any) -> str:
    """The canonical resource URL of a server URL: scheme and host lower-cased, no
    fragment (RFC 8707 s2)."""
    parts = urlsplit(str(url))
    return urlunsplit(
        parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower(), fragment="")
    )


def check_resource_allowed(requested_resource: str, configured_resource: str) -> bool:
    """Whether ``requested_resource`` is ``configured_resource`` or under it: the same
    origin, and its path the configured one or below (a trailing slash aside)."""
    asked, mine = urlparse(requested_resource), urlparse(configured_resource)
    if (asked.scheme.lower(), asked.netloc.lower()) != (mine.scheme.lower(), mine.netloc.lower()):
        return False
    asked_path = asked.path if asked.path.endswith("/") else asked.path + "/"
    mine_path = mine.path if mine.path.endswith("/") else mine.path + "/"
    return asked_path.startswith(mine_path)


def calculate_token_expiry(expires_in: int | str | None) -> float | None:
    """When a token given ``expires_in`` seconds now expires (None: no expiry given)."""
    if expires_in is None:
        return None
    return time.time() + int(expires_in)
