"""The Host and Origin policy (the spec's security warning), as one small ASGI middleware.

Refusals are HTTP 403 with a JSON-RPC error body saying what was refused:

* ``Origin`` is validated on every request, whatever the bind. A request without one (a
  non-browser client) passes. One with an ``Origin`` passes when it is the origin the
  request's ``Host`` names (same host and port; a missing port is the scheme's default), when
  it is listed in ``allowed_origins`` (``"https://app.example.com"``, any port with
  ``"http://localhost:*"``, every origin with ``"*"``), or, under DNS-rebinding protection
  with no ``allowed_origins``, when it is a loopback origin.
* DNS-rebinding protection also validates ``Host``: only loopback names, or those in
  ``allowed_hosts`` (``"mcp.example.com"``, ``"mcp.example.com:8443"``,
  ``"mcp.example.com:*"``). ``dns_rebinding_protection=None`` turns it on when the server is
  bound to a loopback address or ``allowed_hosts`` is given; ``True`` or ``False`` force it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Final

from mcpkit.asgi_types import Receive, Scope, Send
from mcpkit.jsonrpc import INVALID_REQUEST
from mcpkit.transports.http.asgi import respond_error

__all__ = ["HostOriginMiddleware", "check_bind"]

logger = logging.getLogger("mcpkit.http")

_LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


def _split_host(value: str) -> tuple[str, str | None]:
    """``host[:port]`` (IPv6 in brackets) -> (lower-case host, port or None)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        host, rest = value[: end + 1], value[end + 1 :]
        return host, rest[1:] if rest.startswith(":") else None
    host, sep, port = value.rpartition(":")
    if not sep:
        return value, None
    return host, port


def _host_allowed(value: str, allowed: frozenset[str] | None) -> bool:
    host, port = _split_host(value)
    if allowed is None:
        return host in _LOOPBACK_NAMES
    return (
        host in allowed
        or f"{host}:*" in allowed
        or (port is not None and f"{host}:{port}" in allowed)
    )


def _origin_allowed(origin: str, allowed: frozenset[str] | None) -> bool:
    scheme, sep, rest = origin.strip().lower().partition("://")
    if not sep or scheme not in ("http", "https"):
        return False
    rest = rest.rstrip("/")
    if allowed is None:
        return _split_host(rest)[0] in _LOOPBACK_NAMES
    host, port = _split_host(rest)
    return (
        f"{scheme}://{rest}" in allowed
        or f"{scheme}://{host}:*" in allowed
        or (port is None and f"{scheme}://{host}" in allowed)
    )


_DEFAULT_PORTS: Final = {"http": "80", "https": "443"}


def _same_origin(origin: str, host: str | None) -> bool:
    """Whether ``origin`` (``scheme://host[:port]``) names the server the ``Host`` header
    names (a missing port is the origin scheme's default; the scheme is not compared with the
    request's, which a TLS-terminating proxy hides)."""
    if host is None:
        return False
    scheme, sep, rest = origin.strip().lower().partition("://")
    default = _DEFAULT_PORTS.get(scheme)
    if not sep or default is None:
        return False
    rest = rest.rstrip("/")
    if not rest or "/" in rest or "@" in rest:
        return False
    o_host, o_port = _split_host(rest)
    h_host, h_port = _split_host(host)
    return bool(o_host) and o_host == h_host and (o_port or default) == (h_port or default)


class HostOriginMiddleware:
    """Refuse (403) HTTP requests whose ``Host`` or ``Origin`` the policy does not allow; pass
    every other request, and every other scope, to ``app`` unchanged. The policy is fixed
    when it is made (its attributes are read-only): what it decided of a Host, an Origin
    and a server address holds for as long as it serves."""

    def __init__(
        self,
        app: Any,
        *,
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] | None = None,
        dns_rebinding_protection: bool | None = None,
    ) -> None:
        self.app = app
        self._allowed_hosts = (
            frozenset(h.lower() for h in allowed_hosts) if allowed_hosts is not None else None
        )
        self._allowed_origins = (
            frozenset(o.lower().rstrip("/") for o in allowed_origins)
            if allowed_origins is not None
            else None
        )
        self._any_origin = self._allowed_origins is not None and "*" in self._allowed_origins
        self._protection = dns_rebinding_protection
        #: :func:`check_bind` has logged its warning for this policy (once is enough).
        self.bind_warned = False
        self._protect_cache: dict[Any, bool] = {}
        self._host_cache: dict[str, bool] = {}

    @property
    def allowed_hosts(self) -> frozenset[str] | None:
        """The Host values allowed (lower-cased), None: the default rule."""
        return self._allowed_hosts

    @property
    def allowed_origins(self) -> frozenset[str] | None:
        """The Origin values allowed (lower-cased, no trailing slash), None: the default."""
        return self._allowed_origins

    @property
    def dns_rebinding_protection(self) -> bool | None:
        """On, off, or None: on when bound to a loopback address or ``allowed_hosts`` set."""
        return self._protection

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = origin = None
            for k, v in scope["headers"]:
                if k == b"host":
                    host = v.decode("latin-1")
                elif k == b"origin":
                    origin = v.decode("latin-1")
            refused = self.refusal(scope, host, origin)
            if refused is not None:
                await respond_error(send, 403, INVALID_REQUEST, refused)
                return
        await self.app(scope, receive, send)

    def _host_ok(self, host: str) -> bool:
        # Remembered per Host value (a server sees the same few over and over), bounded.
        known = self._host_cache.get(host)
        if known is None:
            known = _host_allowed(host, self._allowed_hosts)
            if len(self._host_cache) < 256:
                self._host_cache[host] = known
        return known

    def refusal(self, scope: Scope, host: str | None, origin: str | None) -> str | None:
        """Why the request is refused with 403 (None: it may go on)."""
        enabled = self._protection
        if enabled is None:
            if self._allowed_hosts is not None:
                enabled = True
            else:
                server = scope.get("server")
                if type(server) is list:  # ASGI allows a list (Starlette's TestClient)
                    server = tuple(server)
                cached = self._protect_cache.get(server)
                if cached is None:
                    bound = str(server[0]) if server else ""
                    cached = bound in _LOOPBACK_NAMES or bound.startswith("127.")
                    self._protect_cache[server] = cached
                enabled = cached
        if enabled and (
            host is None or not (self._host_cache.get(host) or self._host_ok(host))
        ):  # (a Host allowed before: one lookup)
            logger.warning("Rejected a request for Host %r (DNS rebinding protection)", host)
            return f"Forbidden: Host {host!r} is not allowed (DNS rebinding protection)"
        if origin is None or self._any_origin:
            return None  # not a browser (or every origin allowed)
        allowed = self._allowed_origins
        if (allowed is not None or enabled) and _origin_allowed(origin, allowed):
            return None
        if _same_origin(origin, host):
            return None
        logger.warning("Rejected a request from Origin %r (Host %r)", origin, host)
        return (
            f"Forbidden: Origin {origin!r} is not allowed (neither the origin of Host "
            f"{host!r} nor listed in allowed_origins)"
        )


def _policy_of(app: Any) -> HostOriginMiddleware | None:
    """The Host/Origin policy of ``app`` (a StreamableHTTPApp, the app of ``Server.http_app``
    or this middleware, possibly wrapped in apps that keep theirs as ``.app``)."""
    for _ in range(8):
        if isinstance(app, HostOriginMiddleware):
            return app
        found = getattr(app, "host_origin", None)
        if isinstance(found, HostOriginMiddleware):
            return found
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None


def _is_loopback(host: str) -> bool:
    name = host.strip().lower().strip("[]")
    return name in _LOOPBACK_NAMES or name.startswith("127.")


def check_bind(app: Any, host: str) -> str | None:
    """When serving ``app`` on ``host`` leaves DNS-rebinding protection off without anyone
    having said so (a non-loopback bind, no ``allowed_hosts``, ``dns_rebinding_protection``
    left to its default), log a warning saying what to set (once per app), and return it;
    else None."""
    policy = _policy_of(app)
    if (
        policy is None
        or policy.allowed_hosts is not None
        or policy.dns_rebinding_protection is not None
        or _is_loopback(host)
    ):
        return None
    shown = host or "every address"
    text = (
        f"DNS rebinding protection is off: serving on {shown} with no allowed_hosts, so "
        "requests for any Host name are accepted (a web page can reach this server through "
        "a name it controls). Set allowed_hosts to the names clients use "
        "(http_app(allowed_hosts=['mcp.example.com']), or mcpkit run --allowed-host "
        "mcp.example.com), or dns_rebinding_protection=False when a proxy in front checks Host."
    )
    if not policy.bind_warned:
        policy.bind_warned = True
        logger.warning("%s", text)
    return text
