"""The ``subscriptions/listen`` request's params of the 2026-07-28 revision as ``mcp.types``
models (``SubscriptionsListenRequestParams``, ``SubscriptionFilter``), for servers that read
them (a middleware checking what a client may watch)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = ["SubscriptionFilter", "SubscriptionsListenRequestParams"]


class SubscriptionFilter(BaseModel):
    """Which changes a listen stream asks for (or, acknowledged, is sent)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    tools_list_changed: bool | None = None
    prompts_list_changed: bool | None = None
    resources_list_changed: bool | None = None
    resource_subscriptions: list[str] | None = None


class SubscriptionsListenRequestParams(BaseModel):
    """The params of ``subscriptions/listen``: its ``notifications`` filter."""

    model_config = ConfigDict(populate_by_name=True, extra="allow")

    notifications: SubscriptionFilter
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")
