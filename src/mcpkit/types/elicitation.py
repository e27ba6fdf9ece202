"""Elicitation: the server asks the user for input via a form or an external URL."""

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Discriminator, Field, Tag

from .base import McpModel, NotificationBase, NotificationParams, RequestBase, Result
from .jsonrpc import Error, JSONRPCErrorResponse
from .tasks import TaskAugmentedRequestParams

StringFormat: TypeAlias = Literal["email", "uri", "date", "date-time"]
"""Formats a string field of an elicitation form may declare."""

ElicitAction: TypeAlias = Literal["accept", "decline", "cancel"]
"""How the user responded to an elicitation."""

# ------------------------------------------------------------- primitive schemas


class _FieldSchema(McpModel):
    """Shared ``title``/``description`` of the primitive form-field schemas."""

    title: str | None = None
    description: str | None = None


class StringSchema(_FieldSchema):
    """A free-text form field, with optional length limits, format and default."""

    type: Literal["string"] = "string"
    min_length: int | None = None
    max_length: int | None = None
    format: StringFormat | None = None
    default: str | None = None


class NumberSchema(_FieldSchema):
    """A numeric (``number`` or ``integer``) form field, with optional bounds and default."""

    type: Literal["number", "integer"] = "number"
    minimum: int | float | None = None
    maximum: int | float | None = None
    default: int | float | None = None


class BooleanSchema(_FieldSchema):
    """A yes/no form field with an optional default."""

    type: Literal["boolean"] = "boolean"
    default: bool | None = None


class TitledEnumOption(McpModel):
    """One option of a titled enum: the value (``const``) and its display title."""

    const: str
    title: str


class UntitledSingleSelectEnumSchema(_FieldSchema):
    """Single choice among plain string values (no display titles)."""

    type: Literal["string"] = "string"
    enum: list[str]
    default: str | None = None


class TitledSingleSelectEnumSchema(_FieldSchema):
    """Single choice among options that each have a display title (``oneOf``)."""

    type: Literal["string"] = "string"
    one_of: list[TitledEnumOption]
    default: str | None = None


class UntitledEnumItems(McpModel):
    """Item schema of an untitled multi-select: a string from ``enum``."""

    type: Literal["string"] = "string"
    enum: list[str]


class UntitledMultiSelectEnumSchema(_FieldSchema):
    """Multiple choice among plain string values (no display titles)."""

    type: Literal["array"] = "array"
    min_items: int | None = None
    max_items: int | None = None
    items: UntitledEnumItems
    default: list[str] | None = None


class TitledEnumItems(McpModel):
    """Item schema of a titled multi-select: one of the titled options (``anyOf``)."""

    any_of: list[TitledEnumOption]


class TitledMultiSelectEnumSchema(_FieldSchema):
    """Multiple choice among options that each have a display title."""

    type: Literal["array"] = "array"
    min_items: int | None = None
    max_items: int | None = None
    items: TitledEnumItems
    default: list[str] | None = None


class LegacyTitledEnumSchema(_FieldSchema):
    """Deprecated titled enum (``enum`` plus parallel ``enumNames``); prefer ``oneOf``."""

    type: Literal["string"] = "string"
    enum: list[str]
    enum_names: list[str] | None = None
    default: str | None = None


_SCHEMA_TAGS: tuple[tuple[type[McpModel], str], ...] = (
    (StringSchema, "string"),
    (NumberSchema, "number"),
    (BooleanSchema, "boolean"),
    (UntitledSingleSelectEnumSchema, "untitled_single"),
    (TitledSingleSelectEnumSchema, "titled_single"),
    (UntitledMultiSelectEnumSchema, "untitled_multi"),
    (TitledMultiSelectEnumSchema, "titled_multi"),
    (LegacyTitledEnumSchema, "legacy"),
)


def _field_schema_kind(value: Any) -> str | None:
    """Tell the primitive form-field schemas apart (they share ``type`` values)."""
    if not isinstance(value, dict):
        for cls, tag in _SCHEMA_TAGS:
            if isinstance(value, cls):
                return tag
        return None
    kind = value.get("type")
    if kind == "boolean":
        return "boolean"
    if kind in ("number", "integer"):
        return "number"
    if kind == "array":
        items = value.get("items")
        titled = isinstance(items, dict) and ("anyOf" in items or "any_of" in items)
        return "titled_multi" if titled else "untitled_multi"
    if "oneOf" in value or "one_of" in value:
        return "titled_single"
    if "enum" in value:
        return "legacy" if ("enumNames" in value or "enum_names" in value) else "untitled_single"
    return "string"


_Discriminate = Discriminator(_field_schema_kind)

SingleSelectEnumSchema: TypeAlias = Annotated[
    Annotated[UntitledSingleSelectEnumSchema, Tag("untitled_single")]
    | Annotated[TitledSingleSelectEnumSchema, Tag("titled_single")],
    _Discriminate,
]
"""A single-choice enum field, with or without display titles."""

MultiSelectEnumSchema: TypeAlias = Annotated[
    Annotated[UntitledMultiSelectEnumSchema, Tag("untitled_multi")]
    | Annotated[TitledMultiSelectEnumSchema, Tag("titled_multi")],
    _Discriminate,
]
"""A multiple-choice enum field, with or without display titles."""

EnumSchema: TypeAlias = Annotated[
    Annotated[UntitledSingleSelectEnumSchema, Tag("untitled_single")]
    | Annotated[TitledSingleSelectEnumSchema, Tag("titled_single")]
    | Annotated[UntitledMultiSelectEnumSchema, Tag("untitled_multi")]
    | Annotated[TitledMultiSelectEnumSchema, Tag("titled_multi")]
    | Annotated[LegacyTitledEnumSchema, Tag("legacy")],
    _Discriminate,
]
"""Any enum form field (single or multi select, titled, untitled or legacy)."""

PrimitiveSchemaDefinition: TypeAlias = Annotated[
    Annotated[StringSchema, Tag("string")]
    | Annotated[NumberSchema, Tag("number")]
    | Annotated[BooleanSchema, Tag("boolean")]
    | Annotated[UntitledSingleSelectEnumSchema, Tag("untitled_single")]
    | Annotated[TitledSingleSelectEnumSchema, Tag("titled_single")]
    | Annotated[UntitledMultiSelectEnumSchema, Tag("untitled_multi")]
    | Annotated[TitledMultiSelectEnumSchema, Tag("titled_multi")]
    | Annotated[LegacyTitledEnumSchema, Tag("legacy")],
    _Discriminate,
]
"""Schema of one form field: only primitives (string, number, boolean, enums), no nesting."""


# --------------------------------------------------------------------- requests


class ElicitationRequestedSchema(McpModel):
    """The form to show: a flat object schema whose properties are primitive fields."""

    schema_: str | None = Field(default=None, alias="$schema")
    type: Literal["object"] = "object"
    properties: dict[str, PrimitiveSchemaDefinition]
    required: list[str] | None = None


class ElicitRequestFormParams(TaskAugmentedRequestParams):
    """Params of a form-mode elicitation (``mode`` may be omitted, as before 2025-11-25)."""

    mode: Literal["form"] | None = None
    message: str
    requested_schema: ElicitationRequestedSchema


class ElicitRequestURLParams(TaskAugmentedRequestParams):
    """Params of a URL-mode elicitation: the user is sent to ``url`` out of band."""

    mode: Literal["url"] = "url"
    message: str
    elicitation_id: str
    url: str


def _elicit_mode(value: Any) -> str:
    if isinstance(value, dict):
        return "url" if value.get("mode") == "url" else "form"
    return "url" if isinstance(value, ElicitRequestURLParams) else "form"


ElicitRequestParams: TypeAlias = Annotated[
    Annotated[ElicitRequestURLParams, Tag("url")] | Annotated[ElicitRequestFormParams, Tag("form")],
    Discriminator(_elicit_mode),
]
"""Params of elicitation/create: URL mode, or form mode (the default)."""


class ElicitRequest(RequestBase):
    """Asks the client to obtain information from the user."""

    method: Literal["elicitation/create"] = "elicitation/create"
    params: ElicitRequestParams


class ElicitResult(Result):
    """Client's answer to elicitation/create: the user's action and, if accepted, the data."""

    action: ElicitAction
    # The schema allows string, integer, boolean and string arrays; floats are accepted
    # too because a "number" field can legitimately produce one.
    content: dict[str, str | int | float | bool | list[str]] | None = None


class ElicitationCompleteNotificationParams(NotificationParams):
    """Params of notifications/elicitation/complete: which URL elicitation finished."""

    elicitation_id: str


class ElicitationCompleteNotification(NotificationBase):
    """Tells the client that an out-of-band (URL) elicitation has completed."""

    method: Literal["notifications/elicitation/complete"] = "notifications/elicitation/complete"
    params: ElicitationCompleteNotificationParams


# ------------------------------------------------------------------------ errors


class URLElicitationRequiredErrorData(McpModel):
    """Data of a URL-elicitation-required error: the elicitations the user must complete."""

    elicitations: list[ElicitRequestURLParams]


class URLElicitationRequiredErrorDetail(Error):
    """Error object with code -32042 listing the URL elicitations that are required."""

    code: Literal[-32042] = -32042
    data: URLElicitationRequiredErrorData


class URLElicitationRequiredError(JSONRPCErrorResponse):
    """Error response: the request needs the user to complete URL elicitations first."""

    error: URLElicitationRequiredErrorDetail
