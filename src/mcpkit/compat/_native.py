"""The native server the compat layers register on: a :class:`mcpkit.Server` whose
``initialize`` result declares the capabilities the way the other SDK declares them.

Only the declaration changes: the session still allows itself what mcpkit serves (log
messages, list-change notifications), as the other SDKs send those whatever they declared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit.jsonrpc import JSONObject
from mcpkit.server.app import Server

__all__ = ["CompatServer"]

#: ``declare_as(native_capabilities) -> capabilities`` for a handshake-era client.
CapabilityRule = Callable[[JSONObject], JSONObject]


class CompatServer(Server[Any]):
    """A :class:`mcpkit.Server` whose ``initialize`` answer carries :attr:`declare_as`'s
    capabilities (the 2026-07-28 era, which has no handshake, keeps mcpkit's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Rewrites the capabilities mcpkit would declare at ``initialize`` (None: as is).
        self.declare_as: CapabilityRule | None = None
        self.request_handler("initialize")(self._initialize)

    async def _initialize(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        session = rctx.session
        result: JSONObject = await type(session)._initialize(session, params, rctx)
        rule = self.declare_as
        if rule is not None:
            result = {**result, "capabilities": rule(dict(result["capabilities"]))}
        return result
