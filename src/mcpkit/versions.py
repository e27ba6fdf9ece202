"""Protocol revisions and what each one allows on the wire.

Version differences are decided here, in one place: code asks the :class:`ProtocolVersion`
in effect what it supports (``version.batching``, ``version.structured_content``) instead
of comparing version strings.

Two eras exist. **Legacy** revisions (2025-11-25 and earlier) open a connection with the
``initialize`` handshake, which fixes one version for the whole connection (or HTTP
session); :func:`negotiate` serves that handshake and only ever picks a legacy revision.
**Modern** revisions (2026-07-28 and later) have no handshake: every request names its
version (and the client's capabilities) in ``_meta``. The era of a request is decided once,
at the edge (the transport or the session's first look at the message: an ``initialize``
selects legacy, a request carrying ``io.modelcontextprotocol/protocolVersion`` selects
modern); code below the edge asks ``version.era`` or a feature flag, never re-derives it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Literal

__all__ = [
    "LATEST",
    "LATEST_LEGACY",
    "LEGACY_SUPPORTED",
    "MODERN_SUPPORTED",
    "SUPPORTED",
    "SUPPORTED_VERSIONS",
    "V2024_11_05",
    "V2025_03_26",
    "V2025_06_18",
    "V2025_11_25",
    "V2026_07_28",
    "Era",
    "ProtocolVersion",
    "get",
    "negotiate",
]

Era = Literal["legacy", "modern"]


@dataclass(frozen=True, slots=True)
class ProtocolVersion:
    """One revision of MCP and the wire features it has."""

    name: str
    #: ``"legacy"``: an ``initialize`` handshake fixes the version; ``"modern"``: every
    #: request carries its version, capabilities and identity in ``_meta`` (stateless).
    era: Era = "legacy"
    #: JSON-RPC batches (only 2025-03-26 allowed them).
    batching: bool = False
    #: Audio content (``type: "audio"``).
    audio_content: bool = False
    #: Tool ``annotations`` (readOnlyHint, destructiveHint, ...).
    tool_annotations: bool = False
    #: The ``completions`` server capability gates ``completion/complete``.
    completions_capability: bool = False
    #: ``notifications/progress`` carries a ``message``.
    progress_message: bool = False
    #: ``structuredContent`` and ``outputSchema`` on tools.
    structured_content: bool = False
    #: ``elicitation/create`` (form mode).
    elicitation: bool = False
    #: ``resource_link`` content.
    resource_links: bool = False
    #: ``title`` fields on tools, prompts, resources and implementations.
    titles: bool = False
    #: Icons, URL elicitation, sampling tools, tasks, tool ``execution``.
    icons: bool = False
    url_elicitation: bool = False
    sampling_tools: bool = False
    #: Tasks in the core protocol (2025-11-25: ``tasks/*``, task-augmented requests).
    tasks: bool = False
    #: Streamable HTTP requires the MCP-Protocol-Version header on every request.
    version_header: bool = False
    #: Invalid tool arguments are tool execution errors (isError) rather than -32602.
    input_errors_as_tool_results: bool = False
    #: Streamable HTTP SSE priming events and server-closed streams with ``retry`` (SEP-1699).
    sse_polling: bool = False
    #: ``notifications/elicitation/complete`` and ``elicitationId`` (2025-11-25 only).
    elicitation_complete: bool = False
    # -- what legacy revisions have and the modern ones dropped --
    #: The ``initialize``/``notifications/initialized`` handshake.
    initialize: bool = True
    #: ``ping``.
    ping: bool = True
    #: ``logging/setLevel`` (modern: the level is ``_meta`` ``io.modelcontextprotocol/logLevel``).
    logging_set_level: bool = True
    #: ``resources/subscribe``/``resources/unsubscribe`` (modern: ``subscriptions/listen``).
    resource_subscribe: bool = True
    #: ``notifications/roots/list_changed``.
    roots_list_changed: bool = True
    #: Protocol-level sessions (the HTTP ``Mcp-Session-Id`` header).
    sessions: bool = True
    # -- what the modern revisions added --
    #: Every request carries the ``_meta`` envelope (protocolVersion, clientCapabilities, ...).
    request_meta: bool = False
    #: ``server/discover``.
    server_discover: bool = False
    #: Multi round-trip requests: ``InputRequiredResult`` instead of server-to-client requests.
    input_required: bool = False
    #: Every result carries ``resultType`` (``"complete"`` or ``"input_required"``).
    result_type: bool = False
    #: ``ttlMs``/``cacheScope`` caching hints on list and read results.
    cache_hints: bool = False
    #: ``subscriptions/listen``.
    subscriptions_listen: bool = False
    #: Tasks as the ``io.modelcontextprotocol/tasks`` extension (``tasks/get``, ``tasks/update``).
    tasks_extension: bool = False
    #: The JSON-RPC code for an unknown resource (-32002 before 2026-07-28, then -32602).
    resource_not_found_code: int = -32002

    @property
    def modern(self) -> bool:
        """True for the stateless revisions (``era == "modern"``)."""
        return self.era == "modern"

    # Former names, kept for callers not yet migrated (see the flag each one maps to).
    @property
    def audio(self) -> bool:
        """Former name of the 2025-03-26 additions: prefer :attr:`audio_content`,
        :attr:`tool_annotations`, :attr:`completions_capability`, :attr:`progress_message`."""
        return self.audio_content

    @property
    def structured_output(self) -> bool:
        """Former name of the 2025-06-18 additions: prefer :attr:`structured_content`,
        :attr:`elicitation`, :attr:`resource_links`, :attr:`titles`."""
        return self.structured_content

    def __str__(self) -> str:
        return self.name


V2024_11_05: Final = ProtocolVersion("2024-11-05")
V2025_03_26: Final = ProtocolVersion(
    "2025-03-26",
    batching=True,
    audio_content=True,
    tool_annotations=True,
    completions_capability=True,
    progress_message=True,
)
V2025_06_18: Final = replace(
    V2025_03_26,
    name="2025-06-18",
    batching=False,
    structured_content=True,
    elicitation=True,
    resource_links=True,
    titles=True,
    version_header=True,
)
V2025_11_25: Final = replace(
    V2025_06_18,
    name="2025-11-25",
    icons=True,
    url_elicitation=True,
    sampling_tools=True,
    tasks=True,
    input_errors_as_tool_results=True,
    sse_polling=True,
    elicitation_complete=True,
)
V2026_07_28: Final = replace(
    V2025_11_25,
    name="2026-07-28",
    era="modern",
    tasks=False,
    sse_polling=False,
    elicitation_complete=False,
    initialize=False,
    ping=False,
    logging_set_level=False,
    resource_subscribe=False,
    roots_list_changed=False,
    sessions=False,
    request_meta=True,
    server_discover=True,
    input_required=True,
    result_type=True,
    cache_hints=True,
    subscriptions_listen=True,
    tasks_extension=True,
    resource_not_found_code=-32602,
)

#: The revisions the ``initialize`` handshake can agree on, newest first.
LEGACY_SUPPORTED: tuple[ProtocolVersion, ...] = (V2025_11_25, V2025_06_18, V2025_03_26, V2024_11_05)
#: The stateless revisions, newest first.
MODERN_SUPPORTED: tuple[ProtocolVersion, ...] = (V2026_07_28,)
#: What a connection opened with ``initialize`` speaks (legacy only, newest first).
SUPPORTED: tuple[ProtocolVersion, ...] = LEGACY_SUPPORTED
SUPPORTED_VERSIONS: tuple[str, ...] = tuple(v.name for v in SUPPORTED)
LATEST: ProtocolVersion = SUPPORTED[0]
LATEST_LEGACY: ProtocolVersion = LEGACY_SUPPORTED[0]
_BY_NAME = {v.name: v for v in (*MODERN_SUPPORTED, *LEGACY_SUPPORTED)}


def get(name: str) -> ProtocolVersion | None:
    """The revision called ``name`` (either era), or None when mcpkit does not speak it."""
    return _BY_NAME.get(name)


def negotiate(
    requested: object, supported: tuple[ProtocolVersion, ...] = SUPPORTED
) -> ProtocolVersion:
    """Server side of the ``initialize`` handshake: the client's version when supported,
    else our latest. Legacy only: modern revisions in ``supported`` are never chosen, as a
    handshake never lands on a stateless revision."""
    legacy = [v for v in supported if v.era == "legacy"]
    if not legacy:
        raise ValueError("negotiate() needs at least one legacy revision")
    if isinstance(requested, str):
        for v in legacy:
            if v.name == requested:
                return v
    return legacy[0]
