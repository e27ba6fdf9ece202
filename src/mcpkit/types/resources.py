"""Resources: listing, templates, reading and subscribing to server-side data."""

from typing import Literal

from pydantic import Field

from .base import (
    BaseMetadata,
    Meta,
    NotificationBase,
    NotificationParams,
    PaginatedRequest,
    PaginatedResult,
    RequestBase,
    RequestParams,
    Result,
)
from .content import Annotations, TextOrBlobResourceContents, joined_text
from .lifecycle import Icons


class Resource(BaseMetadata, Icons):
    """A resource the server can read, identified by URI."""

    uri: str
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: Annotations | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class ResourceTemplate(BaseMetadata, Icons):
    """A parameterised family of resources described by an RFC 6570 URI template."""

    uri_template: str
    description: str | None = None
    mime_type: str | None = None
    annotations: Annotations | None = None
    meta: Meta | None = Field(default=None, alias="_meta")


class ResourceRequestParams(RequestParams):
    """Common params of requests about one resource: its URI."""

    uri: str


class ListResourcesRequest(PaginatedRequest):
    """Asks the server for a (paginated) list of its resources."""

    method: Literal["resources/list"] = "resources/list"


class ListResourcesResult(PaginatedResult):
    """Answer to resources/list."""

    resources: list[Resource]


class ListResourceTemplatesRequest(PaginatedRequest):
    """Asks the server for a (paginated) list of its resource templates."""

    method: Literal["resources/templates/list"] = "resources/templates/list"


class ListResourceTemplatesResult(PaginatedResult):
    """Answer to resources/templates/list."""

    resource_templates: list[ResourceTemplate]


class ReadResourceRequestParams(ResourceRequestParams):
    """Params of resources/read: the URI to read."""


class ReadResourceRequest(RequestBase):
    """Asks the server to read a specific resource URI."""

    method: Literal["resources/read"] = "resources/read"
    params: ReadResourceRequestParams


class ReadResourceResult(Result):
    """Answer to resources/read: the contents (text or blob) of the resource."""

    contents: list[TextOrBlobResourceContents]

    @property
    def text(self) -> str:
        """The text of every text contents, joined by newlines ("" when there is none)."""
        return joined_text(self.contents)


class SubscribeRequestParams(ResourceRequestParams):
    """Params of resources/subscribe: the URI to watch."""


class SubscribeRequest(RequestBase):
    """Asks to receive resources/updated notifications when a resource changes."""

    method: Literal["resources/subscribe"] = "resources/subscribe"
    params: SubscribeRequestParams


class UnsubscribeRequestParams(ResourceRequestParams):
    """Params of resources/unsubscribe: the URI to stop watching."""


class UnsubscribeRequest(RequestBase):
    """Cancels an earlier resources/subscribe."""

    method: Literal["resources/unsubscribe"] = "resources/unsubscribe"
    params: UnsubscribeRequestParams


class ResourceListChangedNotification(NotificationBase):
    """Tells the client that the server's list of resources changed."""

    method: Literal["notifications/resources/list_changed"] = "notifications/resources/list_changed"
    params: NotificationParams | None = None


class ResourceUpdatedNotificationParams(NotificationParams):
    """Params of notifications/resources/updated: the URI that changed."""

    uri: str


class ResourceUpdatedNotification(NotificationBase):
    """Tells a subscribed client that a resource changed and may need re-reading."""

    method: Literal["notifications/resources/updated"] = "notifications/resources/updated"
    params: ResourceUpdatedNotificationParams
