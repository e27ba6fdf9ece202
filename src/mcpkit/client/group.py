"""One client for many servers: :class:`ClientGroup`.

```python
async with ClientGroup("mcp.json") as group:          # an mcpServers config (file, text, dict)
    tools = await group.list_tools()                   # weather_forecast, files_read, ...
    for failure in tools.failures.values():            # the servers that did not answer
        print(failure.server, failure.error)
    result = await group.call_tool("weather_forecast", {"city": "Oslo"})
```

The servers are an ``mcpServers`` config (``{"mcpServers": {name: entry}}`` as a dict, JSON
text or a file path; or the inner ``{name: entry}`` mapping), a mapping of names to anything
:class:`~mcpkit.Client` takes, or a list of such targets (named after the server object, the
script or package of a command line, or the URL's host, made unique).

Names: a tool or prompt is ``<server><separator><name>`` (``weather_forecast``) unless
``names`` gives it a name of its own (``names={"weather": {"forecast": "get_forecast"}}``);
with ``prefix=False`` names stay as the servers give them and two servers giving the same one
is a :class:`NameCollision`. Resource URIs are not renamed; each is read from the server
that listed it (or whose template matches it).

Connections: each server is connected on first use (a listing connects every server not
yet connected, concurrently, each within ``connect_timeout``). A server that fails to connect
or breaks does not fail the others: listings return what the others answered, with a
:class:`ServerFailure` per server that did not (``.failures``), and a call routed to it raises
its :class:`ServerFailure`. A failed server is tried again after ``retry_after`` seconds (or
at once after :meth:`ClientGroup.reconnect`). Leaving ``async with`` (or :meth:`close`)
closes every connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import urlsplit

from mcpkit.client.targets import is_url
from mcpkit.errors import ConnectionClosed, McpkitError

if TYPE_CHECKING:
    from mcpkit.client.client import Client
    from mcpkit.types import (
        CallToolResult,
        GetPromptResult,
        Prompt,
        ReadResourceResult,
        Resource,
        ResourceTemplate,
        Tool,
    )

__all__ = ["ClientGroup", "GroupList", "NameCollision", "ServerFailure", "UnknownName"]

T = TypeVar("T")
R = TypeVar("R")


class ServerFailure(McpkitError):
    """One server of a group did not answer: it failed to connect, its connection broke, or
    the operation failed there. ``server`` names it, ``operation`` is what was tried
    (``"connect"``, ``"tools/list"``, ...), ``error`` the exception it ended with."""

    def __init__(self, server: str, operation: str, error: BaseException) -> None:
        super().__init__(f"server {server!r}: {operation} failed: {error or type(error).__name__}")
        self.server = server
        self.operation = operation
        self.error = error


class NameCollision(McpkitError, ValueError):
    """Two servers of a group give the same tool or prompt name (``prefix=False``)."""


class UnknownName(McpkitError, LookupError):
    """No server of the group has that tool, prompt or resource."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown name"


class GroupList(list[T], Generic[T]):
    """What a group listing returns: the items of every server that answered, and a
    :class:`ServerFailure` for each one that did not (``failures``, by server name)."""

    failures: dict[str, ServerFailure]

    def __init__(self, items: Iterable[T] = (), failures: Mapping[str, ServerFailure] = {}):
        super().__init__(items)
        self.failures = dict(failures)


class _Member:
    __slots__ = ("client", "failed_at", "failure", "lock", "name", "options", "target")

    def __init__(self, name: str, target: Any, options: dict[str, Any]) -> None:
        self.name = name
        self.target = target
        self.options = options
        self.client: Client | None = None
        self.failure: ServerFailure | None = None
        self.failed_at = 0.0
        self.lock = asyncio.Lock()


class ClientGroup:
    """Many servers as one client (see the module docstring).

    ``client_options`` go to every :class:`~mcpkit.Client` (handlers, hooks, ``era``,
    ``timeout``, ...); ``options`` adds per-server ones (``{"weather": {"era": "legacy"}}``).
    """

    def __init__(
        self,
        servers: Mapping[str, Any] | Sequence[Any] | str | os.PathLike[str],
        *,
        prefix: bool = True,
        separator: str = "_",
        names: Mapping[str, Mapping[str, str]] | None = None,
        connect_timeout: float | None = 30.0,
        retry_after: float = 30.0,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        **client_options: Any,
    ) -> None:
        targets = _targets(servers)
        if not targets:
            raise ValueError("ClientGroup needs at least one server")
        unknown = set(options or {}) - set(targets)
        if unknown:
            raise ValueError(f"options for unknown server(s): {', '.join(sorted(unknown))}")
        unknown = set(names or {}) - set(targets)
        if unknown:
            raise ValueError(f"names for unknown server(s): {', '.join(sorted(unknown))}")
        self.prefix = prefix
        self.separator = separator
        self.connect_timeout = connect_timeout
        self.retry_after = retry_after
        self._names = {s: dict(m) for s, m in (names or {}).items()}
        self._members: dict[str, _Member] = {
            name: _Member(name, target, {**client_options, **dict((options or {}).get(name, {}))})
            for name, target in targets.items()
        }
        # public name -> (server, its own name), learnt from listings
        self._tools: dict[str, tuple[str, str]] = {}
        self._prompts: dict[str, tuple[str, str]] = {}
        self._resources: dict[str, str] = {}
        self._templates: list[tuple[str, str]] = []

    # -- the servers -----------------------------------------------------------------------------

    @property
    def servers(self) -> list[str]:
        """The servers' names, in order."""
        return list(self._members)

    @property
    def failures(self) -> dict[str, ServerFailure]:
        """The servers that failed last time they were tried (by name)."""
        return {n: m.failure for n, m in self._members.items() if m.failure is not None}

    async def __aenter__(self) -> ClientGroup:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def client(self, server: str) -> Client:
        """The connected :class:`~mcpkit.Client` of ``server`` (connected now if need be);
        its :class:`ServerFailure` when it cannot be."""
        member = self._members.get(server)
        if member is None:
            raise UnknownName(f"no server named {server!r} (servers: {', '.join(self._members)})")
        if member.client is not None and member.client.connected:
            return member.client
        async with member.lock:
            if member.client is not None and member.client.connected:
                return member.client
            now = time.monotonic()
            if member.failure is not None and now - member.failed_at < self.retry_after:
                raise member.failure
            await self._drop(member)
            from mcpkit.client.client import Client

            client = Client(member.target, **member.options)
            try:
                async with asyncio.timeout(self.connect_timeout):
                    await client.connect()
            except Exception as exc:
                with contextlib.suppress(Exception):
                    await client.close()
                failure = ServerFailure(member.name, "connect", exc)
                member.failure, member.failed_at = failure, time.monotonic()
                raise failure from exc
            member.client, member.failure = client, None
            return client

    async def connect(self) -> dict[str, ServerFailure]:
        """Connect every server not yet connected, concurrently; the failures, by name."""
        await self._each(lambda client: asyncio.sleep(0), "connect")
        return self.failures

    async def reconnect(self, server: str) -> Client:
        """Close ``server``'s connection (or forget its failure) and connect it again."""
        member = self._members.get(server)
        if member is None:
            raise UnknownName(f"no server named {server!r}")
        async with member.lock:
            await self._drop(member)
            member.failure = None
        return await self.client(server)

    async def close(self) -> None:
        """Close every connection (concurrently; errors while closing are ignored)."""
        await asyncio.gather(*(self._drop(m) for m in self._members.values()))

    async def _drop(self, member: _Member) -> None:
        client, member.client = member.client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()

    async def _on(self, server: str, operation: str, call: Callable[[Client], Awaitable[R]]) -> R:
        """``call(client)`` on ``server``; a broken connection or failure is its
        :class:`ServerFailure` (the connection is reopened next time)."""
        client = await self.client(server)
        try:
            return await call(client)
        except ConnectionClosed as exc:
            member = self._members[server]
            failure = ServerFailure(server, operation, exc)
            member.failure, member.failed_at = failure, time.monotonic()
            await self._drop(member)
            raise failure from exc

    async def _each(
        self, call: Callable[[Client], Awaitable[R]], operation: str
    ) -> tuple[dict[str, R], dict[str, ServerFailure]]:
        names = list(self._members)

        async def one(name: str) -> R | ServerFailure:
            try:
                return await self._on(name, operation, call)
            except ServerFailure as failure:
                return failure
            except Exception as exc:  # the server answered an error: that server failed
                return ServerFailure(name, operation, exc)

        outcomes = await asyncio.gather(*(one(n) for n in names))
        results: dict[str, R] = {}
        failures: dict[str, ServerFailure] = {}
        for name, outcome in zip(names, outcomes, strict=True):
            if isinstance(outcome, ServerFailure):
                failures[name] = outcome
            else:
                results[name] = outcome
        return results, failures

    # -- names -----------------------------------------------------------------------------------

    def public_name(self, server: str, name: str) -> str:
        """The group's name of ``server``'s tool or prompt ``name``."""
        own = self._names.get(server, {}).get(name)
        if own is not None:
            return own
        return f"{server}{self.separator}{name}" if self.prefix else name

    def route(self, name: str, kind: str = "tool") -> tuple[str, str]:
        """(server, its own name) for the group's tool (or ``kind="prompt"``) ``name``:
        from the last listing, else from the names and prefixes; :class:`UnknownName`."""
        known = (self._tools if kind == "tool" else self._prompts).get(name)
        if known is not None:
            return known
        for server, mapping in self._names.items():
            for own, public in mapping.items():
                if public == name:
                    return server, own
        if self.prefix:
            for server in sorted(self._members, key=len, reverse=True):
                head = server + self.separator
                if name.startswith(head) and len(name) > len(head):
                    return server, name[len(head) :]
        raise UnknownName(
            f"no server of the group has a {kind} named {name!r} (list the {kind}s first "
            "when names are not prefixed)"
        )

    def _rename(
        self, kind: str, per_server: Mapping[str, list[Any]], routes: dict[str, tuple[str, str]]
    ) -> list[Any]:
        out: list[Any] = []
        seen: dict[str, str] = {}
        fresh: dict[str, tuple[str, str]] = {}
        for server, items in per_server.items():
            for item in items:
                public = self.public_name(server, item.name)
                if public in seen:
                    raise NameCollision(
                        f"{kind} {public!r} is given by servers {seen[public]!r} and {server!r}: "
                        "prefix the names (prefix=True) or rename one (names=...)"
                    )
                seen[public] = server
                fresh[public] = (server, item.name)
                out.append(
                    item if public == item.name else item.model_copy(update={"name": public})
                )
        # The servers that failed keep the routes they had.
        for public, (server, own) in routes.items():
            if server not in per_server and public not in fresh:
                fresh[public] = (server, own)
        routes.clear()
        routes.update(fresh)
        return out

    # -- listings --------------------------------------------------------------------------------

    async def list_tools(self) -> GroupList[Tool]:
        """Every server's tools, renamed (see the module docstring), with the failures."""
        results, failures = await self._each(lambda c: c.list_tools(), "tools/list")
        return GroupList(self._rename("tool", results, self._tools), failures)

    async def list_prompts(self) -> GroupList[Prompt]:
        """Every server's prompts, renamed, with the failures."""
        results, failures = await self._each(lambda c: c.list_prompts(), "prompts/list")
        return GroupList(self._rename("prompt", results, self._prompts), failures)

    async def list_resources(self) -> GroupList[Resource]:
        """Every server's resources (URIs as they are), with the failures."""
        results, failures = await self._each(lambda c: c.list_resources(), "resources/list")
        items: list[Resource] = []
        for server, resources in results.items():
            for resource in resources:
                self._resources.setdefault(str(resource.uri), server)
                items.append(resource)
        return GroupList(items, failures)

    async def list_resource_templates(self) -> GroupList[ResourceTemplate]:
        """Every server's resource templates, with the failures."""
        results, failures = await self._each(
            lambda c: c.list_resource_templates(), "resources/templates/list"
        )
        items: list[ResourceTemplate] = []
        templates: list[tuple[str, str]] = []
        for server, found in results.items():
            for template in found:
                templates.append((str(template.uri_template), server))
                items.append(template)
        self._templates = templates + [t for t in self._templates if t[1] not in results]
        return GroupList(items, failures)

    # -- calls -----------------------------------------------------------------------------------

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, **options: Any
    ) -> CallToolResult:
        """Call the group's tool ``name`` on its server (``options`` as
        :meth:`mcpkit.Client.call_tool`'s); :class:`ServerFailure` when that server is down,
        :class:`UnknownName` when no server has it."""
        server, own = self.route(name, "tool")
        return await self._on(
            server, "tools/call", lambda c: c.call_tool(own, dict(arguments or {}), **options)
        )

    async def get_prompt(
        self, name: str, arguments: Mapping[str, Any] | None = None
    ) -> GetPromptResult:
        """Get the group's prompt ``name`` from its server."""
        server, own = self.route(name, "prompt")
        return await self._on(server, "prompts/get", lambda c: c.get_prompt(own, arguments))

    async def read_resource(self, uri: str, *, server: str | None = None) -> ReadResourceResult:
        """Read ``uri`` from ``server``, else from the server that listed it (or whose
        template matches it); :class:`UnknownName` when none did."""
        if server is None:
            server = self._resources.get(uri)
        if server is None:
            from mcpkit.server.uri_template import URITemplate

            for template, owner in self._templates:
                if URITemplate(template).match(uri) is not None:
                    server = owner
                    break
        if server is None:
            raise UnknownName(
                f"no server of the group listed the resource {uri!r} (list resources and "
                "templates first, or pass server=)"
            )
        return await self._on(server, "resources/read", lambda c: c.read_resource(uri))


# -- targets -------------------------------------------------------------------------------------


def _targets(servers: Any) -> dict[str, Any]:
    if isinstance(servers, (str, os.PathLike)):
        text = os.fspath(servers)
        if not text.lstrip().startswith("{"):
            text = Path(text).read_text(encoding="utf-8")
        servers = json.loads(text)
    if isinstance(servers, Mapping):
        inner = servers.get("mcpServers", servers.get("servers", servers))
        if not isinstance(inner, Mapping):
            raise ValueError("Server config: 'mcpServers' must be an object")
        return {str(name): target for name, target in inner.items()}
    if isinstance(servers, Sequence):
        named: dict[str, Any] = {}
        for target in servers:
            base = _name_of(target)
            name, n = base, 2
            while name in named:
                name, n = f"{base}{n}", n + 1
            named[name] = target
        return named
    raise TypeError(
        "ClientGroup takes an mcpServers config (dict, JSON text or path), a mapping of "
        f"names to targets or a list of targets, not {type(servers).__name__}"
    )


def _name_of(target: Any) -> str:
    """A short name for a target: the Server's name, a command's script or package, a URL's
    host."""
    raw: str | None = getattr(target, "name", None) if not isinstance(target, str) else None
    if raw is None and isinstance(target, Mapping):
        raw = target.get("command") or target.get("url")
        if isinstance(raw, str) and not is_url(raw):
            raw = " ".join([raw, *map(str, target.get("args") or [])])
    if raw is None and isinstance(target, (list, tuple)):
        raw = " ".join(map(str, target))
    if isinstance(target, str):
        raw = target
    text = str(raw or "server")
    if is_url(text):
        parts = urlsplit(text)
        text = parts.hostname or "server"
    else:
        words = [w for w in shlex.split(text) if not w.startswith("-")] or ["server"]
        text = Path(words[-1].split(":")[0]).stem or "server"
    name = re.sub(r"[^A-Za-z0-9-]+", "-", text).strip("-")
    return name or "server"
