"""How a :class:`~mcpkit.Client` opens a connection: which era, and the first exchange.

``era="auto"`` opens with ``server/discover`` (on stdio the probe of
:func:`~mcpkit.client.modern.probe`) and speaks the stateless 2026-07-28 wire to a server
that answers it, the ``initialize`` handshake to any other (:mod:`mcpkit.client.era`
decides from the answer); what it learnt is remembered per target in :data:`ERA_MEMO`.
``"legacy"`` (or a pinned handshake-era version) goes straight to ``initialize``;
``"2026-07-28"`` never falls back. :class:`EraNegotiator` runs that on a started session.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final, Literal

from mcpkit import versions
from mcpkit.client.era import EraDecision, EraMemo
from mcpkit.client.modern import MODERN_VERSION, ModernWire, probe
from mcpkit.errors import UnsupportedProtocolVersion
from mcpkit.http_headers import HeaderParam
from mcpkit.jsonrpc import JSONObject
from mcpkit.session import ClientSession

__all__ = ["ERAS", "ERA_MEMO", "Era", "EraNegotiator", "check_era"]

logger = logging.getLogger("mcpkit.client")

#: ``Client(era=...)``: ``"auto"`` (probe, fall back to the handshake), ``"legacy"`` (the
#: ``initialize`` handshake only) or ``"2026-07-28"`` (the stateless wire only).
Era = Literal["auto", "legacy", "2026-07-28"]
ERAS: Final = ("auto", "legacy", MODERN_VERSION)
#: What ``era="auto"`` learnt of each target (the server process's command line, or the
#: origin of an HTTP server), shared by the clients of this process.
ERA_MEMO: Final = EraMemo()


def check_era(era: str, protocol_version: str | None) -> None:
    """ValueError unless ``era`` is one of :data:`ERAS` and agrees with ``protocol_version``."""
    if era not in ERAS:
        raise ValueError(f"era must be one of {', '.join(ERAS)}; got {era!r}")
    if protocol_version is not None and era != "auto":
        modern = protocol_version == MODERN_VERSION
        if modern != (era == MODERN_VERSION):
            raise ValueError(
                f"protocol version {protocol_version!r} contradicts era={era!r}: "
                f"{protocol_version} is "
                + ("the stateless revision" if modern else "a handshake-era revision")
                + "; give one of them, or both alike"
            )


class EraNegotiator:
    """Opens a client's sessions: ``protocol_version`` is the version asked for (None: the
    newest), ``client_info`` the client's ``Implementation``."""

    def __init__(self, *, protocol_version: str | None, client_info: JSONObject) -> None:
        self.protocol_version = protocol_version
        self.client_info = client_info

    async def initialize(
        self, session: ClientSession, capabilities: JSONObject, version: str | None = None
    ) -> JSONObject:
        """The ``initialize`` handshake; its result."""
        return await session.initialize(
            self.client_info, capabilities, protocol_version=self.protocol_version or version
        )

    async def open(
        self,
        session: ClientSession,
        era: Era,
        *,
        probe_timeout: float | None,
        start_timeout: float | None,
        capabilities: Callable[[], JSONObject],
        log_level: str | None,
        memo_key: str | None,
        http: Any,
        unread: Any,
        request_timeout: float | None,
        header_params: Callable[[str], tuple[HeaderParam, ...]],
    ) -> tuple[JSONObject, ModernWire | None]:
        """Choose the era and open ``session`` in it: the ``initialize`` result and None on
        the handshake wire, ``{}`` and the :class:`~mcpkit.client.modern.ModernWire` on the
        stateless one. ``http``: the HTTP client transport (None on stdio and in memory);
        ``probe_timeout``/``start_timeout``: a stdio server's seconds to answer the probe once
        it read it, and to start reading (None: no limit)."""
        key = memo_key if era == "auto" else None
        remembered = ERA_MEMO.get(key) if key is not None else None
        # Asking for a handshake-era version (or an unknown one) asks for the handshake.
        pinned_legacy = self.protocol_version not in (None, MODERN_VERSION)
        if era == "legacy" or pinned_legacy or (remembered and remembered[0] == "legacy"):
            return await self.initialize(session, capabilities()), None
        # No handshake on the modern wire: the session may send from now on.
        session.lifecycle.assume(versions.V2026_07_28, {})
        session.lifecycle.capabilities = capabilities()
        wire = ModernWire(MODERN_VERSION, capabilities(), self.client_info, log_level=log_level)
        if http is not None:
            http.header_params = header_params
        retried = False
        while True:
            timeout = None if http is not None else probe_timeout
            if request_timeout is not None and timeout is not None:
                timeout = min(timeout, request_timeout)
            decision, result, error = await probe(
                session,
                wire,
                http=http,
                retried=retried,
                timeout=timeout,
                unread=unread,
                start_timeout=start_timeout,
            )
            if decision.action == "retry" and decision.version is not None:
                wire.version, retried = decision.version, True
                continue
            if decision.action == "fallback" and era == "auto":
                logger.debug("%s: %s; opening with initialize", memo_key, decision.reason)
                try:
                    opened = await self.initialize(session, capabilities(), decision.version)
                except UnsupportedProtocolVersion as exc:
                    # A modern server that read the probe too late for it: it speaks the
                    # version it names now.
                    if wire.version not in exc.supported:
                        raise
                    decision = EraDecision("modern", wire.version, "initialize answered -32022")
                    result = None
                else:
                    if key is not None:
                        ERA_MEMO.remember(key, decision)
                    return opened, None
            if decision.action == "modern":
                wire.version = decision.version or wire.version
                wire.discover = result if isinstance(result, dict) else {}
                if not wire.discover:
                    discovered = await session.request("server/discover", wire.wrap({}))
                    wire.discover = discovered if isinstance(discovered, dict) else {}
                session.lifecycle.peer_capabilities = wire.server_capabilities
                session.lifecycle.peer_info = wire.server_info
                if key is not None:
                    ERA_MEMO.remember(key, decision)
                return {}, wire
            if error is not None and decision.action != "fallback":
                raise error
            raise UnsupportedProtocolVersion(
                f"The server does not speak {MODERN_VERSION}: {decision.reason}",
                {"supported": [], "requested": wire.version},
            )
