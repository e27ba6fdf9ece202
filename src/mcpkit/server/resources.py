"""Resources: static resources and RFC 6570 templates behind ``@app.resource(...)``.

``resources/list`` and ``resources/templates/list`` serve pre-encoded pages;
``resources/read`` finds the static resource with that URI, else the first template that
matches it, passes the template variables to the function as typed arguments (validated
once-compiled, like tool arguments), and turns the return value into resource contents
(``str`` -> text, ``bytes`` -> base64 ``blob``, other values -> JSON). An unknown URI is
-32002 with ``data.uri``; so is a :class:`ResourceNotFound` raised by the function (or a
template function's :class:`FileNotFoundError`).
"""

from __future__ import annotations

import base64
import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from mcpkit._lazy import lazy_module
from mcpkit._models import is_model
from mcpkit.errors import McpError, McpkitError
from mcpkit.jsonrpc import INVALID_PARAMS, RESOURCE_NOT_FOUND, JSONObject
from mcpkit.server.content import annotations_dict, to_json_text
from mcpkit.server.dependencies import with_dependencies
from mcpkit.server.errors import failure
from mcpkit.server.invoke import UserFunction
from mcpkit.server.mrtr import InputRequired
from mcpkit.server.pagination import Paginator
from mcpkit.server.schema import ArgumentsError, Signature, analyze
from mcpkit.server.tools import scope_set, wire_dict
from mcpkit.session import RequestContext

if TYPE_CHECKING:
    from mcpkit.server import uri_template as _uri_template
    from mcpkit.server.caching import CacheHints
    from mcpkit.server.session import ServerHandler, ServerRequestContext
    from mcpkit.server.uri_template import URITemplate
else:  # RFC 6570 templates load with the first template registered
    _uri_template = lazy_module("mcpkit.server.uri_template", globals(), "_uri_template")

__all__ = ["ResourceEntry", "ResourceNotFound", "ResourceRegistry", "to_contents"]


class ResourceNotFound(McpkitError):
    """Raise it from a resource or template function when there is nothing at the URI: the
    client gets the spec's resource-not-found error (-32002, ``data.uri``) instead of an
    internal error. A template function's :class:`FileNotFoundError` counts as one too.
    On the 2026-07-28 wire the code is -32602 (still with ``data.uri``).

    ``uri`` defaults to the URI being read; ``message`` to ``"Resource not found: <uri>"``.
    """

    def __init__(self, uri: str | None = None, message: str | None = None) -> None:
        super().__init__(message or (f"Resource not found: {uri}" if uri else "Resource not found"))
        self.uri = uri
        self.message = message


def to_contents(value: Any, uri: str, mime_type: str | None) -> list[JSONObject]:
    """Resource contents for a read function's return value."""
    if isinstance(value, str):
        return [{"uri": uri, "mimeType": mime_type or "text/plain", "text": value}]
    if isinstance(value, (bytes, bytearray)):
        return [
            {
                "uri": uri,
                "mimeType": mime_type or "application/octet-stream",
                "blob": base64.b64encode(value).decode(),
            }
        ]
    if is_model(value) and (
        "text" in type(value).model_fields or "blob" in type(value).model_fields
    ):
        item = wire_dict(value, "contents")
        item.setdefault("uri", uri)
        return [item]
    if (
        isinstance(value, dict)
        and ("text" in value or "blob" in value)
        and isinstance(value.get("text", value.get("blob")), str)
    ):
        item = dict(value)
        item.setdefault("uri", uri)
        if mime_type and "mimeType" not in item:
            item["mimeType"] = mime_type
        return [item]
    if (
        isinstance(value, (list, tuple))
        and value
        and all((isinstance(v, dict) or is_model(v)) and _is_contents(v) for v in value)
    ):
        out: list[JSONObject] = []
        for v in value:
            out.extend(to_contents(v, uri, mime_type))
        return out
    return [{"uri": uri, "mimeType": mime_type or "application/json", "text": to_json_text(value)}]


def _is_contents(value: Any) -> bool:
    if is_model(value):
        fields = type(value).model_fields
        return "text" in fields or "blob" in fields
    return "text" in value or "blob" in value


class ResourceEntry:
    """A static resource or a resource template."""

    __slots__ = (
        "cache",
        "definition",
        "fn",
        "function",
        "mime_type",
        "scopes",
        "signature",
        "template",
        "uri",
    )

    def __init__(
        self,
        fn: Callable[..., Any],
        uri: str,
        definition: JSONObject,
        signature: Signature,
        mime_type: str | None,
        template: URITemplate | None,
        cache: CacheHints | None = None,
    ) -> None:
        self.fn = fn
        self.uri = uri
        #: Its own caching hints (2026-07-28), None for the server's.
        self.cache = cache
        self.definition = definition
        self.signature = signature
        self.mime_type = mime_type
        self.template = template
        self.function = UserFunction(fn)
        #: The scopes a principal needs to see and read it (None: everyone).
        self.scopes: frozenset[str] | None = None


#: The longest resource URI a server looks up by default (characters).
DEFAULT_MAX_URI_LENGTH = 16 * 1024


class ResourceRegistry:
    """The resources and resource templates of one server.

    ``max_uri_length``: a longer URI in ``resources/read`` or ``resources/subscribe`` is
    refused with -32602 before any template is tried (None: no limit)."""

    #: The server this registry belongs to (its workers and dependency overrides), if any.
    owner: Any = None

    def _owner(self) -> Any:
        return self.owner

    def __init__(self, page_size: int, context_type: type, on_change: Callable[[], None]) -> None:
        self.resources: dict[str, ResourceEntry] = {}
        self.templates: dict[str, ResourceEntry] = {}
        self.max_uri_length: int | None = DEFAULT_MAX_URI_LENGTH
        self.context_type = context_type
        self.paginator = Paginator(
            "resources", lambda: [r.definition for r in self.resources.values()], page_size
        )
        self.template_paginator = Paginator(
            "resourceTemplates", lambda: [t.definition for t in self.templates.values()], page_size
        )
        self._on_change = on_change

    def _changed(self) -> None:
        self.paginator.invalidate()
        self.template_paginator.invalidate()
        self._on_change()

    def add(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        cache: CacheHints | None = None,
        scopes: Iterable[str] | None = None,
    ) -> ResourceEntry:
        """Register ``fn`` for ``uri`` (a template when it contains ``{...}``)."""
        if not isinstance(uri, str) or not uri:
            raise ValueError("A resource needs a URI")
        fn = with_dependencies(fn, self.context_type, self._owner)
        # URITemplate.is_template's rule, so that a server with no template never loads them
        template = _uri_template.URITemplate(uri) if "{" in uri else None
        signature = analyze(fn, self.context_type, model_name="ResourceArguments")
        if template is not None:
            params = set(signature.param_names)
            missing = [v for v in template.variables if v not in params]
            if missing and not signature.has_var_keyword:
                raise ValueError(
                    f"Resource template {uri!r}: the function has no parameter for "
                    f"{', '.join(missing)}"
                )
            extra = [
                p
                for p in signature.param_names
                if p not in template.variables
                and signature.input_schema.get("required")
                and p in signature.input_schema["required"]
            ]
            if extra:
                raise ValueError(
                    f"Resource template {uri!r} does not provide required parameter(s) "
                    f"{', '.join(extra)}"
                )
        elif signature.input_schema.get("required"):
            raise ValueError(
                f"Resource {uri!r} is not a template, so its function cannot take "
                f"required parameters ({', '.join(signature.input_schema['required'])})"
            )
        registry = self.templates if template is not None else self.resources
        if uri in registry:
            raise ValueError(
                f"A resource {'template ' if template else ''}{uri!r} is already registered"
            )
        definition: JSONObject = {
            "uriTemplate" if template is not None else "uri": uri,
            "name": name or getattr(fn, "__name__", None) or uri,
        }
        if title:
            definition["title"] = title
        doc = description if description is not None else inspect.getdoc(fn)
        if doc:
            definition["description"] = doc
        if mime_type:
            definition["mimeType"] = mime_type
        if size is not None and template is None:
            definition["size"] = size
        ann = annotations_dict(annotations)
        if ann:
            definition["annotations"] = ann
        if icons:
            definition["icons"] = [wire_dict(i, "icon") for i in icons]
        if meta:
            definition["_meta"] = dict(meta)
        entry = ResourceEntry(fn, uri, definition, signature, mime_type, template, cache)
        entry.scopes = scope_set(scopes)
        registry[uri] = entry
        self._changed()
        return entry

    def remove(self, uri: str) -> None:
        """Unregister a resource or template (KeyError when unknown)."""
        if uri in self.resources:
            del self.resources[uri]
        else:
            del self.templates[uri]
        self._changed()

    def find(self, uri: str) -> tuple[ResourceEntry, dict[str, Any]] | None:
        """The entry serving ``uri`` and the template variables, or None; McpError -32602
        when ``uri`` is longer than :attr:`max_uri_length`."""
        limit = self.max_uri_length
        if limit is not None and len(uri) > limit:
            raise McpError(
                INVALID_PARAMS,
                f"Resource URI too long: {len(uri)} characters (this server accepts at most "
                f"{limit})",
            )
        entry = self.resources.get(uri)
        if entry is not None:
            return entry, {}
        for t in self.templates.values():
            assert t.template is not None
            variables = t.template.match(uri)
            if variables is not None:
                return t, variables
        from mcpkit.server._revealed import revealed

        shown = revealed.get()  # hidden, but shown to this caller
        if shown:
            entry = shown.get(("resources", uri))
            if entry is not None:
                return entry, {}
            for (kind, _), t in shown.items():
                variables = t.template.match(uri) if kind == "templates" else None
                if variables is not None:
                    return t, variables
        return None

    async def read(
        self, uri: Any, request: ServerRequestContext, rctx: RequestContext | None = None
    ) -> list[JSONObject]:
        """The contents of ``uri``; McpError resource-not-found (-32002, -32602 on the
        2026-07-28 wire) when nothing serves it. ``rctx`` is the context the function talks
        back through when not ``request`` (a task's). On a modern ``resources/read`` a
        function that waits on the client's input raises
        :class:`~mcpkit.server.mrtr.InputRequired`."""
        if not isinstance(uri, str):
            raise McpError(INVALID_PARAMS, "'uri' must be a string")
        found = self.find(uri)
        if found is None:
            raise not_found(request, uri)
        entry, variables = found
        request.cache_hints = entry.cache
        try:
            kwargs = entry.signature.validate(variables)
        except ArgumentsError as exc:
            raise not_found(request, uri, f"Resource not found: {uri} ({exc})") from None
        takes_context = entry.signature.context_param is not None
        if takes_context:
            kwargs[entry.signature.context_param] = request.context(rctx)  # type: ignore[index]
        try:
            value = await request.call_user(entry.function, kwargs, rounds=takes_context)
        except (McpError, InputRequired):
            raise
        except ResourceNotFound as exc:
            raise not_found(request, exc.uri or uri, exc.message) from None
        except FileNotFoundError as exc:
            if entry.template is None:
                raise failure(request, f"Error reading resource {uri}", exc) from exc
            raise not_found(request, uri) from None
        except Exception as exc:
            raise failure(request, f"Error reading resource {uri}", exc) from exc
        return to_contents(value, uri, entry.mime_type)

    # -- request handlers -----------------------------------------------------------------------

    def handlers(self) -> dict[str, ServerHandler]:
        """``resources/list``, ``resources/templates/list``, ``resources/read`` and
        ``resources/subscribe`` / ``resources/unsubscribe``, by method."""
        return {
            "resources/list": self.list_resources,
            "resources/templates/list": self.list_templates,
            "resources/read": self.read_resource,
            "resources/subscribe": self.subscribe,
            "resources/unsubscribe": self.unsubscribe,
        }

    async def list_resources(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``resources/list``: one page of static resources."""
        return self.paginator.page(params)

    async def list_templates(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``resources/templates/list``: one page of templates."""
        return self.template_paginator.page(params)

    async def read_resource(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``resources/read``."""
        uri = params.get("uri") if type(params) is dict else None
        try:
            return {"contents": await self.read(uri, rctx)}
        except InputRequired as needed:
            return needed.result

    async def subscribe(self, params: JSONObject | None, rctx: ServerRequestContext) -> JSONObject:
        """``resources/subscribe``: -32002 for a URI nothing serves."""
        uri = _subscription_uri(params)
        if self.find(uri) is None:
            raise not_found(rctx, uri)
        rctx.session.subscriptions.add(uri)
        return {}

    async def unsubscribe(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> JSONObject:
        """``resources/unsubscribe``."""
        rctx.session.subscriptions.discard(_subscription_uri(params))
        return {}


def not_found(request: RequestContext, uri: str, message: str | None = None) -> McpError:
    """The resource-not-found error for ``uri`` in the era of ``request``: -32002 on the
    legacy wire, -32602 on the modern one, ``data.uri`` on both."""
    env = request.envelope
    code = RESOURCE_NOT_FOUND
    if env is not None and env.version is not None:
        code = env.version.resource_not_found_code
    return McpError(code, message or f"Resource not found: {uri}", {"uri": uri})


def _subscription_uri(params: JSONObject | None) -> str:
    uri = params.get("uri") if type(params) is dict else None
    if not isinstance(uri, str):
        raise McpError(INVALID_PARAMS, "'uri' must be a string")
    return uri
