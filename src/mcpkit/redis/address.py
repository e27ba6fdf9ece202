"""Where the shared store is: one Redis server or a Redis Cluster, named by one URL.

``redis://host:port/db`` (``rediss://`` with TLS, ``unix:///path``) is one server;
``redis+cluster://host:port,host:port/`` (``rediss+cluster://`` with TLS) is a Redis
Cluster reached through the listed seed nodes (any of its masters or replicas: the client
discovers the rest and follows slot moves). User and password go before the hosts
(``redis+cluster://user:secret@h1:7000,h2:7000/``); a cluster has only database 0.
``RedisBackend(url, cluster=True)`` treats a plain ``redis://host:port`` as a cluster seed.

:class:`StoreAddress` makes the three kinds of client the backend needs from it: the
asyncio command client (``redis.asyncio.Redis`` or ``redis.asyncio.cluster.RedisCluster``),
a blocking one (start-up reads), and the pub/sub connection. On a cluster the pub/sub
connection is a plain connection to one node (classic ``SUBSCRIBE``: a ``PUBLISH`` on any
node reaches every node's subscribers), moving to the next seed when that node fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote

__all__ = ["CLUSTER_SCHEMES", "SERVER_SCHEMES", "StoreAddress"]

#: URL schemes naming one Redis server.
SERVER_SCHEMES: Final = ("redis", "rediss", "unix")
#: URL schemes naming a Redis Cluster.
CLUSTER_SCHEMES: Final = ("redis+cluster", "rediss+cluster")


def _host_port(item: str) -> tuple[str, int]:
    if item.startswith("["):  # [::1]:7000
        host, _, rest = item[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        host, sep, port = item.rpartition(":")
        if not sep:
            host, port = item, ""
    if not host:
        raise ValueError(f"a Redis Cluster node needs a host, not {item!r}")
    if port and not port.isdigit():
        raise ValueError(f"a Redis Cluster node's port must be a number, not {port!r}")
    return host, int(port) if port else 6379


@dataclass(frozen=True, slots=True)
class StoreAddress:
    """A parsed store URL (see the module docstring)."""

    url: str
    cluster: bool
    nodes: tuple[tuple[str, int], ...] = ()
    username: str | None = None
    password: str | None = None
    tls: bool = False

    @classmethod
    def parse(cls, url: str, *, cluster: bool = False) -> StoreAddress:
        """``url`` as an address; ``cluster``: a ``redis://`` / ``rediss://`` URL names a
        cluster seed. ValueError for anything else."""
        scheme, sep, rest = url.partition("://")
        if not sep or scheme not in (*SERVER_SCHEMES, *CLUSTER_SCHEMES):
            raise ValueError(
                f"a store URL is redis://host:port/db, rediss://..., unix:///path or "
                f"redis+cluster://host:port,host:port/, not {url!r}"
            )
        if scheme in SERVER_SCHEMES and not cluster:
            return cls(url, False)
        if scheme == "unix":
            raise ValueError("a Redis Cluster is reached over TCP: redis+cluster://host:port,.../")
        netloc, _, tail = rest.partition("/")
        path, _, query = tail.partition("?")
        if query:
            raise ValueError(f"options go to RedisBackend(...), not the cluster URL: ?{query}")
        if path not in ("", "0"):
            raise ValueError(f"a Redis Cluster has only database 0, not /{path}")
        userinfo, at, hosts = netloc.rpartition("@")
        username = password = None
        if at:
            user, colon, secret = userinfo.partition(":")
            username = unquote(user) or None
            password = unquote(secret) if colon else None
        nodes = tuple(_host_port(item) for item in hosts.split(",") if item)
        if not nodes:
            raise ValueError(f"a Redis Cluster URL lists at least one node: {url!r}")
        return cls(url, True, nodes, username, password, scheme.startswith("rediss"))

    def _auth(self) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if self.username is not None:
            options["username"] = self.username
        if self.password is not None:
            options["password"] = self.password
        if self.tls:
            options["ssl"] = True
        return options

    def async_client(
        self, *, connect_timeout: float, command_timeout: float, max_connections: int
    ) -> Any:
        """The asyncio command client (a cluster client follows ``MOVED``/``ASK``). At most
        ``max_connections`` connections (per node of a cluster); on one server a command
        beyond them waits up to ``command_timeout`` for one to be free."""
        if not self.cluster:
            import redis.asyncio as aioredis
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff
            from redis.exceptions import ConnectionError as RedisConnectionError

            pool = aioredis.BlockingConnectionPool.from_url(
                self.url,
                max_connections=max_connections,
                timeout=command_timeout,
                socket_connect_timeout=connect_timeout,
                socket_timeout=command_timeout,
                health_check_interval=0,
                # A pooled connection that Redis closed while it sat idle (Redis restarted)
                # fails its next command: that command goes once more on a new connection.
                retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            )
            client = aioredis.Redis(connection_pool=pool)
            client.auto_close_connection_pool = True  # aclose() closes the pool too
            return client
        from redis.asyncio.cluster import ClusterNode, RedisCluster

        return RedisCluster(
            startup_nodes=[ClusterNode(host, port) for host, port in self.nodes],
            max_connections=max_connections,
            socket_connect_timeout=connect_timeout,
            socket_timeout=command_timeout,
            **self._auth(),
        )

    def sync_client(self, *, connect_timeout: float, command_timeout: float) -> Any:
        """A blocking ``redis.Redis`` or ``redis.cluster.RedisCluster`` (a few start-up
        reads; close it after use)."""
        import redis as sync_redis

        if not self.cluster:
            return sync_redis.Redis.from_url(
                self.url, socket_connect_timeout=connect_timeout, socket_timeout=command_timeout
            )
        from redis.cluster import ClusterNode, RedisCluster

        nodes = [ClusterNode(host, port) for host, port in self.nodes]  # type: ignore[no-untyped-call]
        return RedisCluster(
            startup_nodes=nodes,
            socket_connect_timeout=connect_timeout,
            socket_timeout=command_timeout,
            **self._auth(),
        )

    def pubsub_client(self, attempt: int, *, connect_timeout: float) -> Any:
        """The client whose connection carries pub/sub on this ``attempt`` (counting
        reconnects): for a cluster, a plain client of the next seed node in turn."""
        import redis.asyncio as aioredis

        if not self.cluster:
            return None
        host, port = self.nodes[attempt % len(self.nodes)]
        return aioredis.Redis(
            host=host,
            port=port,
            socket_connect_timeout=connect_timeout,
            socket_timeout=None,
            health_check_interval=0,
            **self._auth(),
        )
