"""Roots: directories or files the client exposes to the server."""

from typing import Literal

from pydantic import Field

from .base import (
    McpModel,
    Meta,
    NotificationBase,
    NotificationParams,
    RequestBase,
    RequestParams,
    Result,
)


class Root(McpModel):
    """A root directory or file (``file://`` URI) the server may operate on."""

    uri: str
    name: str | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class ListRootsRequest(RequestBase):
    """Asks the client for its current list of roots."""

    method: Literal["roots/list"] = "roots/list"
    params: RequestParams | None = None


class ListRootsResult(Result):
    """Client's answer to roots/list."""

    roots: list[Root]


class RootsListChangedNotification(NotificationBase):
    """Tells the server that the client's list of roots changed."""

    method: Literal["notifications/roots/list_changed"] = "notifications/roots/list_changed"
    params: NotificationParams | None = None
