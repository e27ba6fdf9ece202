"""The shapes the stateless 2026-07-28 revision adds, as models beside the 2025 ones.

:class:`DiscoverResult` (``server/discover``), :class:`InputRequiredResult` (a request that
needs the client's input first) and :class:`RequestMeta`, the ``_meta`` envelope every
2026-07-28 request carries. The hot paths build and read these as plain dicts
(:mod:`mcpkit.envelope` on every request); the models are for typed access and checks.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .base import McpModel, ProgressToken, Result
from .lifecycle import ClientCapabilities, Implementation, ServerCapabilities
from .logging import LoggingLevel

__all__ = ["DiscoverResult", "InputRequiredResult", "RequestMeta"]


class DiscoverResult(Result):
    """The ``server/discover`` result: versions, capabilities and how long to keep it."""

    result_type: str = "complete"
    supported_versions: list[str]
    capabilities: ServerCapabilities
    instructions: str | None = None
    cache_scope: Literal["private", "public"]
    ttl_ms: int


class InputRequiredResult(Result):
    """The server needs the client's input before it can answer: ``input_requests`` (key ->
    a ``sampling/createMessage``, ``elicitation/create`` or ``roots/list`` request) and/or
    ``request_state`` to send back with the retry. At least one of them is present."""

    result_type: Literal["input_required"] = "input_required"
    input_requests: dict[str, dict[str, Any]] | None = None
    request_state: str | None = None


class RequestMeta(McpModel):
    """The ``_meta`` envelope of a 2026-07-28 request (other ``_meta`` keys are kept)."""

    protocol_version: str = Field(alias="io.modelcontextprotocol/protocolVersion")
    client_capabilities: ClientCapabilities = Field(
        alias="io.modelcontextprotocol/clientCapabilities"
    )
    client_info: Implementation | None = Field(
        default=None, alias="io.modelcontextprotocol/clientInfo"
    )
    log_level: LoggingLevel | None = Field(default=None, alias="io.modelcontextprotocol/logLevel")
    progress_token: ProgressToken | None = Field(default=None, alias="progressToken")
