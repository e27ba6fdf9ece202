"""fastmcp's ``Context`` on mcpkit: the same names, served by mcpkit's
:class:`~mcpkit.Context` (:attr:`Context.native`)."""

from __future__ import annotations

import functools
import uuid
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import pydantic_core
from pydantic import BaseModel

from mcpkit.compat.mcp.server.mcpserver.context import Context as _McpContext
from mcpkit.compat.mcp.server.mcpserver.context import ReadResourceContents

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._base import FastMCPView
    from mcpkit.server.context import Context as NativeContext
    from mcpkit.server.elicitation import ElicitationResult

__all__ = ["Context", "ResourceResult"]

#: How long fastmcp keeps a state value (seconds).
_STATE_TTL: Final = 86400
#: What the state keys of fastmcp's API start with in the caller's ``ctx.state``.
_STATE: Final = "fastmcp:"
#: The values kept for one request only, with the request context they belong to.
_PER_REQUEST: ContextVar[tuple[Any, dict[str, Any]] | None] = ContextVar(
    "fastmcp_request_state", default=None
)


def _session_scope(native: NativeContext[Any]) -> str | None:
    """The 2025 session of ``native``'s request (None: a request without one)."""
    if native.envelope is not None:
        return None
    session = native.session
    info = session.transport.info
    if info.session_id is not None:
        return info.session_id
    if info.kind in ("stdio", "memory"):
        return session.task_owner_key
    return None


def _request_scope(native: NativeContext[Any]) -> dict[str, Any]:
    """What is kept for ``native``'s request alone."""
    rctx = native.request_context
    found = _PER_REQUEST.get()
    if found is None or found[0] is not rctx:
        found = (rctx, {})
        _PER_REQUEST.set(found)
    return found[1]


@dataclass
class ResourceResult:
    """What :meth:`Context.read_resource` returns: ``contents``, each with ``content`` (text
    or bytes) and ``mime_type``."""

    contents: list[ReadResourceContents] = field(default_factory=list)


class Context(_McpContext[Any, Any]):
    """What a fastmcp handler annotated ``ctx: Context`` receives."""

    @property
    def input_responses(self) -> dict[str, Any] | None:
        """The client's answers to the input requests of the ``InputRequiredResult`` the
        tool returned last (by key; None on its first run)."""
        from mcpkit.compat.fastmcp._guard import input_responses

        return input_responses.get()

    @property
    def fastmcp(self) -> FastMCPView:
        """The :class:`FastMCP` serving this request."""
        return self.mcp_server  # type: ignore[return-value]

    @property
    def lifespan_context(self) -> Any:
        """What the server's lifespan yielded (an empty dict without one)."""
        return self.native.lifespan

    @property
    def session_id(self) -> str:
        """The identifier of this connection: the HTTP session's id, else one kept for the
        connection (stdio); on a request without a session (2026-07-28, stateless HTTP),
        one for this request only, as fastmcp's."""
        scope = _session_scope(self.native)
        if scope is not None:
            return scope
        made: str = _request_scope(self.native).setdefault("", uuid.uuid4().hex)
        return made

    @property
    def transport(self) -> str | None:
        """``"stdio"`` or ``"streamable-http"`` (None in process)."""
        kind = self.native.session.transport.info.kind
        return {"stdio": "stdio", "http": "streamable-http"}.get(kind)

    # -- state --------------------------------------------------------------------------------

    async def set_state(self, key: str, value: Any, *, serializable: bool = True) -> None:
        """Keep ``value`` under ``key`` for this session (a day), as fastmcp does: for the
        whole 2025 session (stdio, or Streamable HTTP with a session), for this request
        alone where there is no session (2026-07-28, stateless HTTP). The value must be
        JSON-serializable (read back in its JSON form); ``serializable=False`` keeps any
        value for this request only."""
        scoped = _request_scope(self.native)
        if not serializable:
            scoped[_STATE + key] = value
            return
        scoped.pop(_STATE + key, None)
        try:
            data = pydantic_core.to_jsonable_python(value)
        except pydantic_core.PydanticSerializationError as exc:
            raise TypeError(
                f"Value for state key {key!r} is not serializable. "
                f"Use set_state({key!r}, value, serializable=False) to store "
                "non-serializable values. Note: non-serializable state is "
                "request-scoped and will not persist across requests."
            ) from exc
        if _session_scope(self.native) is None:
            scoped[_STATE + key] = data
            return
        await self.native.state.set(_STATE + key, data, ttl=_STATE_TTL)

    async def get_state(self, key: str) -> Any:
        """The value :meth:`set_state` kept under ``key`` (None when there is none)."""
        scoped = _request_scope(self.native)
        if _STATE + key in scoped:
            return scoped[_STATE + key]
        if _session_scope(self.native) is None:
            return None
        return await self.native.state.get(_STATE + key)

    async def delete_state(self, key: str) -> None:
        """Forget the value kept under ``key``."""
        _request_scope(self.native).pop(_STATE + key, None)
        if _session_scope(self.native) is not None:
            await self.native.state.delete(_STATE + key)

    # -- visibility ---------------------------------------------------------------------------

    async def enable_components(
        self,
        *,
        names: set[str] | None = None,
        tags: set[str] | None = None,
        components: set[str] | None = None,
        **criteria: Any,
    ) -> None:
        """Show the components named (tool and prompt names, resource URIs, URI
        templates), or those with one of ``tags``, of ``components`` (``"tool"``,
        ``"resource"``, ``"template"``, ``"prompt"``), to this session only; it is sent
        the list-changed notifications."""
        from mcpkit.compat.fastmcp._visibility import session_rule

        await session_rule(self.native, True, names, tags, components, **criteria)

    async def disable_components(
        self,
        *,
        names: set[str] | None = None,
        tags: set[str] | None = None,
        components: set[str] | None = None,
        **criteria: Any,
    ) -> None:
        """Hide components from this session only (see :meth:`enable_components`)."""
        from mcpkit.compat.fastmcp._visibility import session_rule

        await session_rule(self.native, False, names, tags, components, **criteria)

    async def reset_visibility(self) -> None:
        """Drop this session's rules: it sees what everyone sees again."""
        from mcpkit.compat.fastmcp._visibility import reset

        await reset(self.native)

    @property
    def client_id(self) -> str | None:
        """The OAuth client of this request, if any."""
        token = self.native.auth
        return getattr(token, "client_id", None) if token is not None else None

    async def log(  # type: ignore[override]
        self,
        message: str,
        level: Any = None,
        logger_name: str | None = None,
        extra: Any = None,
    ) -> None:
        """Send ``notifications/message`` (``{"msg": message, "extra": extra}``; default
        level ``info``)."""
        await self.native.log(level or "info", {"msg": message, "extra": extra}, logger_name)

    async def debug(self, message: str, logger_name: str | None = None, extra: Any = None) -> None:
        """Log at ``debug``."""
        await self.log(message, "debug", logger_name, extra)

    async def info(self, message: str, logger_name: str | None = None, extra: Any = None) -> None:
        """Log at ``info``."""
        await self.log(message, "info", logger_name, extra)

    async def warning(
        self, message: str, logger_name: str | None = None, extra: Any = None
    ) -> None:
        """Log at ``warning``."""
        await self.log(message, "warning", logger_name, extra)

    async def error(self, message: str, logger_name: str | None = None, extra: Any = None) -> None:
        """Log at ``error``."""
        await self.log(message, "error", logger_name, extra)

    async def read_resource(self, uri: Any) -> ResourceResult:  # type: ignore[override]
        """Read one of this server's resources."""
        return ResourceResult(await super().read_resource(uri))

    async def elicit(  # type: ignore[override]
        self, message: str, response_type: Any = None, **_options: Any
    ) -> ElicitationResult[Any]:
        """Ask the user for input shaped by ``response_type``, as fastmcp takes it: a
        pydantic model or dataclass; a scalar (``str``, ``int``, ``float``, ``bool``, a
        ``Literal``, an ``Enum``), ``list[...]`` of one, or a list of choices
        (``["a", "b"]``; ``[["a", "b"]]`` for several), asked as one ``value`` field
        whose value is ``.data``; None for a plain confirmation (``.data`` is ``{}``)."""
        from mcpkit.server.elicitation import ElicitationResult

        if response_type is None:
            answer = await self.native.elicit(message, {"type": "object", "properties": {}})
            data: dict[str, Any] | None = {} if answer.action == "accept" else None
            return ElicitationResult(answer.action, data, answer.content)
        from pydantic import TypeAdapter

        from mcpkit._models import is_model_class

        wrapped = _value_schema(response_type)
        if wrapped is None:
            if is_model_class(response_type) or isinstance(response_type, dict):
                given: ElicitationResult[Any] = await self.native.elicit(message, response_type)
                return given
            adapter: Any = TypeAdapter(response_type)  # a dataclass, a TypedDict
            schema: dict[str, Any] = adapter.json_schema()
            schema.pop("title", None)
            answer = await _answer(self.native, message, schema)
            if answer.action != "accept":
                return answer
            value: Any = adapter.validate_python(answer.content or {})
            return ElicitationResult("accept", value, answer.content)
        schema, value_type = wrapped
        answer = await _answer(self.native, message, schema)
        if answer.action != "accept":
            return answer
        content = answer.content or {}
        value = _scalar_model(value_type).model_validate(content).value  # type: ignore[attr-defined]
        return ElicitationResult("accept", value, content)


async def _answer(
    native: NativeContext[Any], message: str, schema: dict[str, Any]
) -> ElicitationResult[Any]:
    """The user's answer to ``schema``, its content judged by pydantic (the caller
    validates it) rather than by the schema, as fastmcp judges it: an answer the schema
    refuses is accepted with its content."""
    from mcpkit.server.elicitation import ElicitationError, ElicitationResult

    try:
        return await native.elicit(message, schema)
    except ElicitationError as exc:
        if exc.content is None:
            raise
        return ElicitationResult("accept", dict(exc.content), dict(exc.content))


@functools.cache
def _scalar_model(value_type: Any) -> type[BaseModel]:
    """The one-field model fastmcp validates a scalar answer with (its name appears in
    pydantic's error text)."""
    from pydantic import create_model

    model: type[BaseModel] = create_model("ScalarElicitationType", value=(value_type, ...))
    return model


def _value_schema(response_type: Any) -> tuple[dict[str, Any], Any] | None:
    """The one-field ``{"value": ...}`` schema fastmcp asks a scalar, a list or a choice
    with, and the type of that value; None for a model (asked as it is)."""
    import enum
    from typing import Literal, get_origin

    from pydantic import TypeAdapter

    if isinstance(response_type, list):
        if (
            len(response_type) == 1
            and isinstance(response_type[0], list)
            and all(isinstance(c, str) for c in response_type[0])
        ):
            choices = response_type[0]
            items = {"type": "string", "enum": choices}
            value_type: Any = list[Literal[tuple(choices)]]  # type: ignore[misc]
            return _one_field({"type": "array", "items": items}), value_type
        if response_type and all(isinstance(c, str) for c in response_type):
            response_type = Literal[tuple(response_type)]
        else:
            raise ValueError(f"Invalid list response_type format. Received: {response_type}")
    scalar = (
        response_type in (bool, int, float, str)
        or get_origin(response_type) is Literal
        or (isinstance(response_type, type) and issubclass(response_type, enum.Enum))
        or get_origin(response_type) is list
    )
    if not scalar:
        return None
    schema = TypeAdapter(response_type).json_schema()
    schema.pop("$defs", None)
    return _one_field({"title": "Value", **schema}), response_type


def _one_field(value: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"value": value}, "required": ["value"]}
