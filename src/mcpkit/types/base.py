"""Foundations shared by every MCP type: the base model, ids, `_meta`, requests, results.

Wire names are camelCase (generated from the snake_case Python names); `_meta` is
exposed as the Python attribute ``meta``. Unknown fields are kept (``extra="allow"``)
so a message survives a parse/dump round trip even if it carries fields from a newer
protocol revision. Models are built lazily (``defer_build=True``) so importing
:mod:`mcpkit.types` stays cheap.
"""

import re
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

RequestId: TypeAlias = str | int
"""A uniquely identifying ID for a request in JSON-RPC."""

ProgressToken: TypeAlias = str | int
"""Token tying progress notifications to the request that asked for them."""

Cursor: TypeAlias = str
"""Opaque pagination cursor."""

Role: TypeAlias = Literal["user", "assistant"]
"""The sender or recipient of messages and data in a conversation."""

Meta: TypeAlias = dict[str, Any]
"""Free-form `_meta` object (keys may be namespaced, e.g. ``io.modelcontextprotocol/...``)."""


_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


class McpModel(BaseModel):
    """Base of every MCP model: camelCase on the wire, unknown fields kept, lazy build."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        defer_build=True,
        protected_namespaces=(),
    )

    def to_wire(self) -> dict[str, Any]:
        """Dump to a JSON-ready dict with wire (camelCase) names, omitting unset optionals."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")

    @classmethod
    def from_wire(cls, data: Any) -> Self:
        """Parse a wire dict (camelCase or snake_case keys) into this model."""
        return cls.model_validate(data)

    if not TYPE_CHECKING:  # typed code uses the snake_case names

        def __getattr__(self, name: str) -> Any:
            # A field read by its wire (camelCase) name, as the official SDK's 1.x models
            # spell their attributes (``tool.inputSchema``): only reached when the normal
            # lookup failed, so it costs nothing otherwise.
            try:
                return super().__getattr__(name)
            except AttributeError:
                snake = _CAMEL_HUMP.sub(r"_\1", name).lower()
                if snake != name and snake in type(self).model_fields:
                    return getattr(self, snake)
                raise


class NullPreservingModel(McpModel):
    """McpModel whose listed fields keep an explicit JSON ``null`` when dumped.

    ``to_wire`` omits ``None`` values; fields named in ``_wire_nullable`` are written
    back as ``null`` when they were explicitly set (e.g. ``Task.ttl`` is required and
    nullable, ``Error.data`` may legitimately be ``null``).
    """

    _wire_nullable: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _restore_explicit_nulls(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if info.exclude_none:
            fields_set = self.model_fields_set
            for name in self._wire_nullable:
                if name in fields_set and getattr(self, name) is None:
                    data.setdefault(to_camel(name) if info.by_alias else name, None)
        return data


class BaseMetadata(McpModel):
    """Common naming fields: a programmatic ``name`` and an optional display ``title``."""

    name: str
    title: str | None = None


# --------------------------------------------------------------------------- params


class RequestMeta(McpModel):
    """The `_meta` object of request params; may carry a progress token and any other keys."""

    progress_token: ProgressToken | None = None


class RequestParams(McpModel):
    """Common params of any request (just the optional `_meta`)."""

    meta: RequestMeta | None = Field(default=None, alias="_meta")


class NotificationParams(McpModel):
    """Common params of any notification (just the optional `_meta`)."""

    meta: Meta | None = Field(default=None, alias="_meta")


class PaginatedRequestParams(RequestParams):
    """Params of a paginated list request: an optional cursor to continue from."""

    cursor: Cursor | None = None


# ----------------------------------------------------------------- generic shapes


class Request(McpModel):
    """Generic request shape (method plus untyped params), without the JSON-RPC envelope."""

    method: str
    params: dict[str, Any] | None = None


class Notification(McpModel):
    """Generic notification shape (method plus untyped params), without the envelope."""

    method: str
    params: dict[str, Any] | None = None


class Result(McpModel):
    """Base of every result; may carry `_meta` and arbitrary extra fields."""

    meta: Meta | None = Field(default=None, alias="_meta")


class EmptyResult(Result):
    """A result that carries no data beyond the optional `_meta` (e.g. for ping)."""


class PaginatedResult(Result):
    """Base of paginated results: ``next_cursor`` is set when more items are available."""

    next_cursor: Cursor | None = None


# ------------------------------------------------------------ concrete envelopes


class RequestBase(McpModel):
    """Envelope shared by every concrete request: jsonrpc, id, method and typed params."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    method: str
    params: RequestParams | None = None


class NotificationBase(McpModel):
    """Envelope shared by every concrete notification: jsonrpc, method and typed params."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: str
    params: NotificationParams | None = None


class PaginatedRequest(RequestBase):
    """A request whose result is paginated; params may carry a cursor."""

    params: PaginatedRequestParams | None = None
