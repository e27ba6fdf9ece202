"""The settings of a Streamable HTTP app, as one value: :class:`HttpServerOptions`.

```python
options = HttpServerOptions(stateless=True, max_body_size=1 << 20, allowed_hosts=["mcp.example"])
asgi = StreamableHTTPApp(app.session, "/mcp", options)
asgi = app.http_app("/mcp", options)                        # the same settings
app.run("http", port=8000, options=options)
```

:meth:`Server.http_app <mcpkit.server.app.Server.http_app>` and :meth:`Server.run
<mcpkit.server.app.Server.run>` also take any field as a keyword (``http_app(stateless=True)``),
folded into the value by :meth:`HttpServerOptions.merged`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, TypedDict

from mcpkit import versions
from mcpkit.versions import ProtocolVersion

if TYPE_CHECKING:
    from mcpkit.transports.http.event_store import EventStore

__all__ = ["HttpServerOptions", "HttpSettings"]


@dataclass(frozen=True, slots=True)
class HttpServerOptions:
    """How a :class:`~mcpkit.transports.http.StreamableHTTPApp` serves.

    What is served: ``stateless`` (no session ids; each POST is served by a fresh session),
    ``json_response`` (answer requests with ``application/json`` instead of an SSE stream),
    ``event_store`` (None: a :class:`~mcpkit.transports.http.MemoryEventStore`; False: no
    resumability; or any :class:`~mcpkit.transports.http.EventStore` such as
    :class:`~mcpkit.transports.http.SQLiteEventStore`), ``supported_versions``,
    ``legacy_sse`` (also serve the 2024-11-05 HTTP+SSE endpoints ``legacy_sse_path`` and
    ``legacy_messages_path``).

    Host and Origin (see :mod:`mcpkit.transports.http.host_origin`): ``allowed_hosts``,
    ``allowed_origins``, ``dns_rebinding_protection`` (None: on when bound to a loopback
    address or ``allowed_hosts`` is given).

    Request limits: ``max_body_size`` (bytes, else 413), ``max_header_bytes`` and
    ``max_header_count`` (past either: 431), ``body_timeout`` (seconds for a POST body to
    arrive, else 408), ``min_body_rate`` (bytes per second a POST body must arrive at once it
    has taken ``body_rate_grace`` seconds, else 408 and the connection closes; None: no
    minimum).

    Sessions: ``session_idle_timeout`` (seconds unused before a session ends),
    ``initialize_timeout`` (seconds a session may stay with nothing after its
    ``initialize``, not even ``notifications/initialized``; None: only
    ``session_idle_timeout``), ``max_sessions``, ``max_sessions_per_client`` (open sessions
    of one authenticated principal, else of one remote address; past it ``initialize`` is
    answered 429 with ``Retry-After``; None: no limit).

    Streams: ``max_stream_buffer`` (bytes waiting for one SSE reader before its producers
    wait for it), ``slow_reader_timeout`` (seconds a reader may take nothing while producers
    wait before it is dropped; it may resume), ``sse_retry_ms`` (the ``retry`` field of
    priming events), ``keepalive_interval`` (seconds between SSE comments on idle streams).
    """

    stateless: bool = False
    json_response: bool = False
    event_store: EventStore | bool | None = None
    allowed_hosts: Iterable[str] | None = None
    allowed_origins: Iterable[str] | None = None
    dns_rebinding_protection: bool | None = None
    max_body_size: int = 4 * 1024 * 1024
    max_header_bytes: int = 64 * 1024
    max_header_count: int = 100
    body_timeout: float | None = 30.0
    min_body_rate: float | None = 240.0
    body_rate_grace: float = 5.0
    session_idle_timeout: float | None = 1800.0
    initialize_timeout: float | None = 45.0
    max_sessions: int = 10_000
    max_sessions_per_client: int | None = 100
    sse_retry_ms: int | None = None
    keepalive_interval: float = 15.0
    max_stream_buffer: int = 4 * 1024 * 1024
    slow_reader_timeout: float = 30.0
    supported_versions: tuple[ProtocolVersion, ...] = versions.SUPPORTED
    legacy_sse: bool = False
    legacy_sse_path: str = "/sse"
    legacy_messages_path: str = "/messages"

    def __post_init__(self) -> None:
        # A generator given for a list of names is read once, here.
        for name in ("allowed_hosts", "allowed_origins"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))

    @classmethod
    def merged(
        cls, options: HttpServerOptions | None, settings: Mapping[str, Any]
    ) -> HttpServerOptions:
        """``options`` (None: the defaults) with the fields named in ``settings`` replaced;
        a name that is no field is a :class:`TypeError` naming it."""
        base = cls() if options is None else options
        if not settings:
            return base
        unknown = sorted(set(settings) - FIELDS)
        if unknown:
            raise TypeError(
                f"unknown HTTP option(s) {', '.join(map(repr, unknown))} "
                "(see mcpkit.transports.http.HttpServerOptions)"
            )
        return replace(base, **settings)


#: The names of the fields of :class:`HttpServerOptions`.
FIELDS: frozenset[str] = frozenset(f.name for f in fields(HttpServerOptions))


class HttpSettings(TypedDict, total=False):
    """The fields of :class:`HttpServerOptions` as keywords (``Server.run("http", ...)`` and
    ``Server.http_app(...)`` take them typed)."""

    stateless: bool
    json_response: bool
    event_store: EventStore | bool | None
    allowed_hosts: Iterable[str] | None
    allowed_origins: Iterable[str] | None
    dns_rebinding_protection: bool | None
    max_body_size: int
    max_header_bytes: int
    max_header_count: int
    body_timeout: float | None
    min_body_rate: float | None
    body_rate_grace: float
    session_idle_timeout: float | None
    initialize_timeout: float | None
    max_sessions: int
    max_sessions_per_client: int | None
    sse_retry_ms: int | None
    keepalive_interval: float
    max_stream_buffer: int
    slow_reader_timeout: float
    supported_versions: tuple[ProtocolVersion, ...]
    legacy_sse: bool
    legacy_sse_path: str
    legacy_messages_path: str
