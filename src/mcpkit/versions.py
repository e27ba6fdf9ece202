"""Protocol revisions and what each one allows on the wire.

Version differences are decided here, in one place: code asks the negotiated
:class:`ProtocolVersion` what it supports (``version.batching``, ``version.structured_output``)
instead of comparing version strings.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "LATEST",
    "SUPPORTED",
    "SUPPORTED_VERSIONS",
    "V2024_11_05",
    "V2025_03_26",
    "V2025_06_18",
    "V2025_11_25",
    "ProtocolVersion",
    "get",
    "negotiate",
]


@dataclass(frozen=True, slots=True)
class ProtocolVersion:
    """One revision of MCP and the wire features it has."""

    name: str
    #: JSON-RPC batches (only 2025-03-26 allowed them).
    batching: bool = False
    #: Audio content, tool annotations, completions capability, progress ``message``.
    audio: bool = False
    #: ``structuredContent``/``outputSchema``, elicitation, resource links, ``title`` fields.
    structured_output: bool = False
    #: Icons, URL elicitation, sampling tools, tasks, tool ``execution``.
    icons: bool = False
    url_elicitation: bool = False
    sampling_tools: bool = False
    tasks: bool = False
    #: Streamable HTTP requires the MCP-Protocol-Version header on every request.
    version_header: bool = False
    #: Invalid tool arguments are tool execution errors (isError) rather than -32602.
    input_errors_as_tool_results: bool = False
    #: Streamable HTTP SSE priming events and server-closed streams with ``retry`` (SEP-1699).
    sse_polling: bool = False

    def __str__(self) -> str:
        return self.name


V2024_11_05 = ProtocolVersion("2024-11-05")
V2025_03_26 = ProtocolVersion("2025-03-26", batching=True, audio=True)
V2025_06_18 = ProtocolVersion("2025-06-18", audio=True, structured_output=True, version_header=True)
V2025_11_25 = ProtocolVersion(
    "2025-11-25",
    audio=True,
    structured_output=True,
    icons=True,
    url_elicitation=True,
    sampling_tools=True,
    tasks=True,
    version_header=True,
    input_errors_as_tool_results=True,
    sse_polling=True,
)

#: Newest first.
SUPPORTED: tuple[ProtocolVersion, ...] = (V2025_11_25, V2025_06_18, V2025_03_26, V2024_11_05)
SUPPORTED_VERSIONS: tuple[str, ...] = tuple(v.name for v in SUPPORTED)
LATEST: ProtocolVersion = SUPPORTED[0]
_BY_NAME = {v.name: v for v in SUPPORTED}


def get(name: str) -> ProtocolVersion | None:
    """The revision called ``name``, or None when mcpkit does not speak it."""
    return _BY_NAME.get(name)


def negotiate(
    requested: object, supported: tuple[ProtocolVersion, ...] = SUPPORTED
) -> ProtocolVersion:
    """Server side of version negotiation: the client's version when supported, else our latest."""
    if isinstance(requested, str):
        for v in supported:
            if v.name == requested:
                return v
    return supported[0]
