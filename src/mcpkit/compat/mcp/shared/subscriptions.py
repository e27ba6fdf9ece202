"""``mcp.shared.subscriptions`` on mcpkit (2.x): the events a server publishes to the
``subscriptions/listen`` streams of the 2026-07-28 revision, and what each is on the wire."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LISTEN_STREAM_METHODS",
    "SUBSCRIPTION_ID_META_KEY",
    "PromptsListChanged",
    "ResourceUpdated",
    "ResourcesListChanged",
    "ServerEvent",
    "ToolsListChanged",
    "event_from_wire",
    "event_matches",
]

#: The ``_meta`` key naming the listen request each frame of its stream belongs to.
SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"


@dataclass(frozen=True)
class ToolsListChanged:
    """The tool list changed."""


@dataclass(frozen=True)
class PromptsListChanged:
    """The prompt list changed."""


@dataclass(frozen=True)
class ResourcesListChanged:
    """The resource list changed."""


@dataclass(frozen=True)
class ResourceUpdated:
    """The resource at ``uri`` changed."""

    uri: str


ServerEvent = ToolsListChanged | PromptsListChanged | ResourcesListChanged | ResourceUpdated

_LISTS: dict[str, ServerEvent] = {
    "notifications/tools/list_changed": ToolsListChanged(),
    "notifications/prompts/list_changed": PromptsListChanged(),
    "notifications/resources/list_changed": ResourcesListChanged(),
}
#: The notifications a listen stream carries.
LISTEN_STREAM_METHODS = frozenset({*_LISTS, "notifications/resources/updated"})


def event_from_wire(method: str, params: Mapping[str, Any] | None) -> ServerEvent | None:
    """The event a notification announces (None for any other notification)."""
    event = _LISTS.get(method)
    if event is not None:
        return event
    uri = (params or {}).get("uri") if method == "notifications/resources/updated" else None
    return ResourceUpdated(uri=uri) if isinstance(uri, str) else None


def event_matches(honored: Any, uris: frozenset[str], event: ServerEvent) -> bool:
    """Whether a stream whose filter is ``honored`` (its resource URIs ``uris``) gets
    ``event``."""
    if isinstance(event, ResourceUpdated):
        return event.uri in uris
    flag = {
        ToolsListChanged: "tools_list_changed",
        PromptsListChanged: "prompts_list_changed",
        ResourcesListChanged: "resources_list_changed",
    }[type(event)]
    return getattr(honored, flag, None) is True
