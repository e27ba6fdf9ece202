"""``Server.http_app()`` returns a :class:`ServerHTTPApp` around the
:class:`StreamableHTTPApp`: every public attribute of the inner app reads the same through it,
assigning a forwarded one assigns the inner app's, and no ``__getattr__`` does it (CPython
then specializes the wrapper's own attribute reads, made on every request)."""

from __future__ import annotations

import pytest

from mcpkit import Server
from mcpkit.server import ServerHTTPApp
from mcpkit.transports.http import StreamableHTTPApp


def _public(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


def test_every_public_attribute_of_the_inner_app_reads_through() -> None:
    asgi = Server("fwd").http_app(allowed_hosts=["mcp.example.com"])
    inner = asgi.app
    assert isinstance(inner, StreamableHTTPApp)
    own = {"app", "server", "gate", "startup_error", "probes", "routes", "lifespan", "aclose"}
    missing = sorted(name for name in _public(inner) - own if not hasattr(type(asgi), name))
    assert missing == [], f"not forwarded by ServerHTTPApp: {missing}"
    for name in _public(inner) - own:
        # the same object (a bound method of the inner app: an equal one)
        assert getattr(asgi, name) == getattr(inner, name), name
    assert asgi.sessions is inner.table.sessions
    assert asgi.max_body_size == inner.options.max_body_size


def test_assigning_a_forwarded_attribute_assigns_the_inner_app() -> None:
    asgi = Server("fwd").http_app()
    asgi.session_idle_timeout = 7.0
    assert asgi.app.session_idle_timeout == 7.0 == asgi.app.table.idle_timeout
    asgi.shutdown_grace = 0.5
    assert asgi.app.shutdown_grace == 0.5
    with pytest.raises(AttributeError):
        asgi.max_body_size = 1  # type: ignore[misc]  # a setting of options: read-only
    assert asgi.app.options.max_body_size != 1


def test_no_getattr_hook_on_the_wrapper() -> None:
    assert not any("__getattr__" in vars(cls) for cls in ServerHTTPApp.__mro__)
    asgi = Server("fwd").http_app()
    with pytest.raises(AttributeError):
        _ = asgi.no_such_attribute


def test_the_served_server_follows_the_session_factory() -> None:
    server = Server("fwd")
    asgi = server.http_app()
    assert asgi.served is not None and asgi.served_app() is asgi.served
    assert asgi.served.made_by(server.session)

    def factory(transport: object) -> object:
        return server.session(transport)  # type: ignore[arg-type]

    asgi.session_factory = factory  # type: ignore[assignment]
    assert asgi.app.session_factory is factory
    assert asgi.served is None and asgi.served_app() is None  # served through the factory
    asgi.session_factory = server.session
    assert asgi.served is not None and asgi.served.made_by(server.session)
