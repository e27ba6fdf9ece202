"""``ctx.state``: small JSON values a handler keeps between requests of one caller.

```python
@app.tool()
async def remember(ctx: Context, city: str) -> str:
    previous = await ctx.state.get("city")           # None the first time
    await ctx.state.set("city", city, ttl=3600)      # gone after an hour
    return f"was {previous}, now {city}"
```

**Whose state.** Every value belongs to the caller of the request, decided once per
request by :func:`state_owner`:

- a **2025 session** keeps its own (its HTTP ``Mcp-Session-Id``, or one stdio or in-memory
  connection): what one session sets, no other session sees, even of the same principal;
- a **2026-07-28 request** (no session) uses its **authenticated principal** (the subject and
  client id of the checked token or API key), so the state follows the user from request
  to request and replica to replica; over stdio or in memory, where there is one client,
  the connection;
- a request with neither (stateless HTTP without authorization) has nobody to keep state
  for: every operation raises :class:`StateOwnerMissing`. The client's self-reported
  ``clientInfo`` or its IP address are no identity (one is chosen by the client, the other
  shared behind a NAT), so they are never used: attach ``auth`` to the server.

The owner names the store's keys (hashed), so one caller's state never reaches another.

**Values** are anything JSON encodes (dict, list, str, int, float, bool, None), copied in
and out: mutating what :meth:`State.get` returned changes nothing stored. Keys are
non-empty strings of at most :data:`MAX_KEY_CHARS` characters; a value is at most
``max_bytes`` encoded (1 MiB by default). Bad keys or values raise :class:`StateValueError`.

**Lifetime.** ``set(..., ttl=seconds)`` expires the value that long after it was set.
Without a ttl it lives while it is used: it expires ``Server(state_ttl=...)`` seconds (a day
by default) after it was last read or written. In memory, a 2025 session's state also
ends with the session.

**Where.** In this process by default; on a server with ``store=`` (Redis) in the store,
so every replica sees the same state: each value is one key ``P:st:{<owner digest>}:<key>``
with its expiry (see :mod:`mcpkit.redis.keyspace`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit import owner as _owner
from mcpkit._defaults import DEFAULT
from mcpkit.errors import McpkitError
from mcpkit.server.errors import ToolError
from mcpkit.server.state_store import (
    DEFAULT_STATE_TTL,
    MemoryStateStore,
    NamespacedStateStore,
    RedisStateStore,
    StateHolder,
    StateStore,
)

if TYPE_CHECKING:
    from mcpkit.server.session import Caller

__all__ = [
    "DEFAULT_STATE_TTL",
    "MAX_KEY_CHARS",
    "MAX_VALUE_BYTES",
    "MemoryStateStore",
    "NamespacedStateStore",
    "RedisStateStore",
    "State",
    "StateHolder",
    "StateOwnerMissing",
    "StateStore",
    "StateValueError",
    "state_owner",
]

#: Longest key, in characters.
MAX_KEY_CHARS: Final = 256
#: Largest value, encoded as JSON, unless the server says otherwise.
MAX_VALUE_BYTES: Final = 1 << 20

_NOT_HTTP: Final = frozenset({"stdio", "memory"})
_JSON_OPTS: Final = (
    orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


class StateOwnerMissing(ToolError, RuntimeError):
    """``ctx.state`` was used by a request that belongs to nobody: a stateless HTTP request
    (2026-07-28, or a 2025 request without a session) with no authenticated principal. A
    :class:`~mcpkit.server.errors.ToolError`: the caller reads why, never masked."""


class StateValueError(McpkitError, ValueError):
    """A key or value ``ctx.state`` cannot keep: not a non-empty string key of at most
    :data:`MAX_KEY_CHARS` characters, a value JSON cannot encode, or one too large."""


def state_owner(ctx: Caller) -> str:
    """The owner of the state ``ctx``'s request reaches (see the module); raises
    :class:`StateOwnerMissing` when there is none."""
    session = ctx.session
    info = session.transport.info
    local = info.kind in _NOT_HTTP
    if ctx.envelope is None:  # 2025: the session, else (stateless HTTP) the principal
        if local:
            return "connection:" + session.task_owner_key
        sid = info.session_id
        if sid is not None:
            return "session:" + sid
    principal = _owner.principal()
    if principal is not None:
        return principal
    if local:
        return "connection:" + session.task_owner_key
    raise StateOwnerMissing(
        "ctx.state needs an owner: this request has no session (a 2026-07-28 or stateless "
        "HTTP request) and no authenticated principal. Attach auth to the server "
        "(Server(auth=...)) so state is kept per principal, or serve 2025 sessions"
    )


def encode(value: Any, max_bytes: int) -> bytes:
    """``value`` as JSON bytes (StateValueError when it is not JSON or too large)."""
    try:
        data = orjson.dumps(value, option=_JSON_OPTS)
    except TypeError as exc:
        raise StateValueError(f"state values must be JSON values: {exc}") from None
    if len(data) > max_bytes:
        raise StateValueError(
            f"a state value is at most {max_bytes} bytes as JSON; this one is {len(data)}"
        )
    return data


def check_key(key: Any) -> str:
    """``key`` when it is a usable state key (StateValueError otherwise)."""
    if type(key) is not str or not key or len(key) > MAX_KEY_CHARS or "\x1f" in key:
        raise StateValueError(
            f"state keys are non-empty strings of at most {MAX_KEY_CHARS} characters "
            f"(no \\x1f), not {key!r:.80}"
        )
    return key


def check_ttl(ttl: float | None) -> float | None:
    """``ttl`` when it is None or a positive number of seconds (StateValueError otherwise)."""
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not ttl > 0:
        raise StateValueError(f"ttl must be a positive number of seconds, not {ttl!r}")
    if ttl == float("inf"):
        raise StateValueError("ttl must be finite (omit it to keep the value while it is used)")
    return float(ttl)


class State:
    """The state of the caller of one request (``ctx.state``; see the module)."""

    __slots__ = ("_ctx", "_owner")

    def __init__(self, ctx: Caller) -> None:
        self._ctx = ctx
        self._owner: str | None = None

    @property
    def owner(self) -> str:
        """Whose state this is (StateOwnerMissing when nobody's)."""
        owner = self._owner
        if owner is None:
            owner = self._owner = state_owner(self._ctx)
        return owner

    async def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, else ``default``."""
        data = await self._ctx.server.state_store.get(self.owner, check_key(key))
        return default if data is None else orjson.loads(data)

    async def set(self, key: str, value: Any, *, ttl: float | None = None) -> None:
        """Keep ``value`` (JSON) under ``key``; ``ttl``: seconds it lives (default: while it
        is used, see the module)."""
        server = self._ctx.server
        data = encode(value, server.state_max_bytes)
        await server.state_store.set(self.owner, check_key(key), data, check_ttl(ttl))

    async def delete(self, key: str) -> bool:
        """Forget ``key``; True when it was set."""
        return await self._ctx.server.state_store.delete(self.owner, check_key(key))

    async def has(self, key: str) -> bool:
        """Whether ``key`` is set."""
        return await self.get(key, DEFAULT) is not DEFAULT
