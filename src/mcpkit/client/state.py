"""What a :class:`~mcpkit.Client`'s connection established: the session and its transport,
the server's identity and capabilities, the negotiated revision and the wire it speaks.

:class:`ConnectionState` is the part of :class:`~mcpkit.Client` that reads them: on the
handshake era from the session's ``initialize`` result, on the 2026-07-28 wire from the
``server/discover`` result the opening kept (:class:`~mcpkit.client.modern.ModernWire`).
Each raises :class:`~mcpkit.errors.ConnectionClosed` when there is no connection to ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpkit import versions
from mcpkit.errors import ConnectionClosed
from mcpkit.lifecycle import has_capability

if TYPE_CHECKING:
    from mcpkit.client.connector import Connector
    from mcpkit.client.modern import ModernWire
    from mcpkit.jsonrpc import JSONObject
    from mcpkit.session import ClientSession
    from mcpkit.transports.base import Transport
    from mcpkit.types import Implementation, ServerCapabilities
    from mcpkit.versions import ProtocolVersion

__all__ = ["ConnectionState"]


class ConnectionState:
    """The connection's state as :class:`~mcpkit.Client` shows it (a base of the client)."""

    _connector: Connector
    #: The 2026-07-28 wire of this connection (None on the handshake era).
    _wire: ModernWire | None
    _server_info: Implementation | None
    _server_caps: ServerCapabilities | None

    @property
    def session(self) -> ClientSession:
        """The raw :class:`~mcpkit.session.ClientSession` (for requests mcpkit has no call for)."""
        if self._connector.session is None:
            raise ConnectionClosed("Client is not connected (use 'async with Client(...)')")
        return self._connector.session

    @property
    def connected(self) -> bool:
        """True while the connection is open."""
        return self._connector.session is not None and not self._connector.session.closed

    @property
    def transport(self) -> Transport:
        """The transport under the session."""
        conn = self._connector.conn
        if conn is None:
            raise ConnectionClosed("Client is not connected")
        return conn.transport

    @property
    def server_url(self) -> str | None:
        """The server's URL when it is remote (HTTP), else None."""
        return self._connector.server_url

    @property
    def server_info(self) -> Implementation:
        """The server's name, version and presentation details."""
        if self._server_info is None:
            raise ConnectionClosed("Client is not connected")
        return self._server_info

    @property
    def server_capabilities(self) -> ServerCapabilities:
        """What the server declared it supports."""
        if self._server_caps is None:
            raise ConnectionClosed("Client is not connected")
        return self._server_caps

    @property
    def negotiated_version(self) -> ProtocolVersion | None:
        """The negotiated revision with its feature flags (on the modern wire the one
        chosen from ``server/discover``)."""
        if self._wire is not None:
            return versions.get(self._wire.version)
        return (
            self._connector.session.protocol_version
            if self._connector.session is not None
            else None
        )

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol version, e.g. ``"2025-11-25"``."""
        v = self.negotiated_version
        return v.name if v is not None else None

    @property
    def modern(self) -> bool:
        """True when this connection speaks the stateless (2026-07-28) wire."""
        return self._wire is not None

    @property
    def discover_result(self) -> JSONObject | None:
        """The raw ``server/discover`` result on the modern wire (None on the legacy one)."""
        return dict(self._wire.discover) if self._wire is not None else None

    @property
    def instructions(self) -> str | None:
        """The server's instructions for the model, if it gave any."""
        if self._wire is not None:
            return self._wire.instructions
        return self._connector.session.instructions if self._connector.session is not None else None

    def supports(self, *path: str) -> bool:
        """True when the server declared the capability ``path`` (e.g. ``"resources",
        "subscribe"``)."""
        return has_capability(self.session.server_capabilities, path)
