"""``mcp.server.connection`` on mcpkit: ``Connection``, the per-client state a 2.x transport
entry builds for the kernel drivers of :mod:`mcp.server.runner` (``stories/serve_one``).

``Connection.from_envelope(version, client_info, client_capabilities)`` is the 2026-07-28
single exchange (born ready, no back-channel): :func:`~mcp.server.runner.serve_one` sends
its request to mcpkit's engine with that envelope. ``Connection.for_loop(dispatcher)`` is
the handshake loop of :func:`~mcp.server.runner.serve_connection`, whose session mcpkit's
engine runs (the client's identity is the session's, not this object's).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import Any

import anyio
from pydantic import BaseModel, ValidationError

from mcpkit.compat.mcp.shared.exceptions import NoBackChannelError
from mcpkit.compat.mcp.types.version import LATEST_HANDSHAKE_VERSION

__all__ = ["Connection"]

logger = logging.getLogger(__name__)


def _typed(model: type[BaseModel], raw: Any) -> Any:
    """``raw`` as ``model`` (a model already, or its wire form); None when it is not one."""
    if raw is None or isinstance(raw, model):
        return raw
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


class Connection:
    """One client's connection: its revision, identity and capabilities, a scratch
    :attr:`state` and an :attr:`exit_stack` closed when the driver ends."""

    def __init__(
        self,
        outbound: Any,
        *,
        protocol_version: str,
        session_id: str | None = None,
        client_params: Any = None,
    ) -> None:
        self.outbound = outbound
        self.protocol_version = protocol_version
        self.session_id = session_id
        self.client_params = client_params
        self.client_capabilities: Any = (
            getattr(client_params, "capabilities", None) if client_params is not None else None
        )
        self.state: dict[str, Any] = {}
        self.exit_stack = AsyncExitStack()
        self.initialized = anyio.Event()

    @property
    def client_info(self) -> Any:
        """The client's ``Implementation`` (None when it gave none)."""
        return getattr(self.client_params, "client_info", None)

    @property
    def has_standalone_channel(self) -> bool:
        """Whether the server can reach the client outside a request."""
        return self.outbound is not None

    @classmethod
    def from_envelope(
        cls,
        protocol_version: str,
        client_info: Any,
        client_capabilities: Any,
        *,
        outbound: Any = None,
    ) -> Connection:
        """A born-ready connection from a request's ``_meta`` envelope (2026-07-28); a
        mis-shaped ``client_info`` or ``client_capabilities`` reads as not given."""
        from mcpkit.types import ClientCapabilities, Implementation, InitializeRequestParams

        info = _typed(Implementation, client_info)
        capabilities = _typed(ClientCapabilities, client_capabilities)
        params = None
        if info is not None and capabilities is not None:
            params = InitializeRequestParams(
                protocol_version=protocol_version, capabilities=capabilities, client_info=info
            )
        connection = cls(outbound, protocol_version=protocol_version, client_params=params)
        connection.client_capabilities = capabilities
        connection.initialized.set()
        return connection

    @classmethod
    def for_loop(
        cls,
        outbound: Any,
        *,
        session_id: str | None = None,
        protocol_version_hint: str | None = None,
    ) -> Connection:
        """A connection for the handshake loop (``outbound``: its dispatcher)."""
        return cls(
            outbound,
            protocol_version=protocol_version_hint or LATEST_HANDSHAKE_VERSION,
            session_id=session_id,
        )

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Best effort, as on the SDK: a connection with no channel drops it."""
        logger.debug("dropped %s: no standalone channel", method)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None = None, opts: Any = None
    ) -> dict[str, Any]:
        """Refused: mcpkit's session sends the server's requests (this connection has no
        channel of its own)."""
        raise NoBackChannelError(method)
