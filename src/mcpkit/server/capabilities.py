"""The capabilities a server declares, from what it serves.

A server's registrations come down to five facts (:data:`Features`: tools, resources,
prompts, completions, tool tasks): :func:`features_of` finds them, :func:`declare` turns
them into the ``capabilities`` object of one protocol version. The server adds what
optional features advertise (MCP Apps, skills) and keeps the result until a registration
changes.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from mcpkit.jsonrpc import JSONObject
from mcpkit.versions import ProtocolVersion

__all__ = ["Features", "declare", "features_of"]


class Features(NamedTuple):
    """What a server serves now (or declares before serving: ``Server(declare=...)``)."""

    tools: bool
    resources: bool
    prompts: bool
    completions: bool
    #: Some tool accepts task-augmented calls.
    tasks: bool


def features_of(
    *,
    tools: int,
    resources: int,
    templates: int,
    prompts: int,
    completions: bool,
    task_tools: int,
    declared: Collection[str] = (),
) -> Features:
    """The features of a server with that many tools, resources, templates and prompts,
    completion handlers or not, and ``declared`` features (``"tools"``, ...)."""
    has_prompts = bool(prompts) or "prompts" in declared
    return Features(
        bool(tools) or "tools" in declared,
        bool(resources or templates) or "resources" in declared,
        has_prompts,
        has_prompts
        or bool(templates)
        or completions
        or "resources" in declared
        or "completions" in declared,
        task_tools > 0 or "tasks" in declared,
    )


def declare(version: ProtocolVersion, features: Features, *, modern: bool) -> JSONObject:
    """The ``capabilities`` of ``features`` on ``version`` (``modern``: the server serves
    the 2026-07-28 revision, whose ``subscriptions/listen`` makes resources subscribable)."""
    caps: JSONObject = {"logging": {}}
    if features.completions and version.audio:
        caps["completions"] = {}
    if features.prompts:
        caps["prompts"] = {"listChanged": True}
    if features.resources:
        # Modern: `subscribe` means subscriptions/listen serves resourceSubscriptions.
        caps["resources"] = (
            {"subscribe": True, "listChanged": True}
            if version.resource_subscribe or (version.subscriptions_listen and modern)
            else {"listChanged": True}
        )
    if features.tools:
        caps["tools"] = {"listChanged": True}
    if features.tasks and version.tasks:
        caps["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    return caps
