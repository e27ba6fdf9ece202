"""The health probes and metrics of a :class:`~mcpkit.server.app.Server` over HTTP.

```python
from mcpkit.server.probes import health_of

health_of(app).add_check("database", database)   # on every /readyz
```

:func:`health_of` is the server's :class:`~mcpkit.transports.http.health.Health` (its
lifespan and its stores, told as callables); :func:`probes_for` the app answering
``/healthz``, ``/readyz`` and ``/metrics`` (see :mod:`mcpkit.transports.http.health`).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Protocol

from mcpkit.telemetry.observe import ObservedServer
from mcpkit.transports.http.health import Health, ObservabilityApp

if TYPE_CHECKING:
    from mcpkit.bus import NotificationBus
    from mcpkit.redis.backend import RedisBackend
    from mcpkit.server.middleware.base import Middleware
    from mcpkit.server.tasks import TaskManager
    from mcpkit.transports.http.server import StreamableHTTPApp


__all__ = ["ProbedServer", "health_of", "probes_for"]


class ProbedServer(ObservedServer, Protocol):
    """What the probes read of a server (a :class:`~mcpkit.server.core.ServerCore` is
    one): whether its lifespan runs, its stores, and what metrics read (adding the
    middleware that records)."""

    def add_middleware(self, middleware: Middleware) -> None: ...

    @property
    def lifespan_running(self) -> bool: ...

    @property
    def store_backend(self) -> RedisBackend | None: ...

    @property
    def bus(self) -> NotificationBus: ...

    @property
    def task_manager(self) -> TaskManager: ...


_HEALTH: weakref.WeakKeyDictionary[ProbedServer, Health] = weakref.WeakKeyDictionary()


def health_of(server: ProbedServer) -> Health:
    """The :class:`~mcpkit.transports.http.health.Health` of ``server`` (made on first use;
    one per server): ready while its lifespan runs, with its ``store_backend``, ``bus`` and
    task store checked when they can say so."""
    found = _HEALTH.get(server)
    if found is None:
        ref = weakref.ref(server)

        def running() -> bool:
            alive = ref()
            return alive is not None and alive.lifespan_running

        def stores() -> list[tuple[str, object]]:
            alive = ref()
            if alive is None:
                return []
            return [
                ("store", alive.store_backend),
                ("bus", alive.bus),
                ("task_store", alive.task_manager.store),
            ]

        found = _HEALTH[server] = Health(running, stores)
    return found


def probes_for(
    server: ProbedServer,
    http_app: StreamableHTTPApp | None = None,
    *,
    health: bool = True,
    metrics: bool = False,
) -> ObservabilityApp:
    """The probe app of ``server`` (and of its Streamable HTTP app ``http_app``):
    ``health`` adds ``/healthz`` and ``/readyz``, ``metrics`` ``/metrics`` (installing the
    server's :class:`~mcpkit.telemetry.prometheus.PrometheusMiddleware` on first use)."""
    if not metrics:
        return ObservabilityApp(health=health_of(server) if health else None, http_app=http_app)
    from mcpkit.telemetry.prometheus import CONTENT_TYPE, metrics_for

    return ObservabilityApp(
        health=health_of(server) if health else None,
        metrics=metrics_for(server).render,
        metrics_type=CONTENT_TYPE,
        http_app=http_app,
    )
