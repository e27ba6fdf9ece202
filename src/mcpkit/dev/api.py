"""The dev server's HTTP side: the inspector page, its static files, and a small JSON/SSE
API over :class:`~mcpkit.dev.upstream.Upstream`.

Every ``/api/`` call and the page itself need the dev server's token (``?token=`` in the URL,
or the ``X-Mcpkit-Dev-Token`` header): 403 otherwise. The Host header must name the loopback
address the server is bound to (a page elsewhere cannot rebind its name to it).

Routes (JSON bodies; an error is ``{"error": {"message", "code"?}}`` with 400 for bad input,
404 for an unknown request or task, 502 when the user's server answered an error, 503 when
it is not running):

- ``GET /api/state``: server info, capabilities, era, tools, resources, templates, prompts,
  parked requests, the last stderr lines, the reload generation.
- ``POST /api/connect`` ``{"era"}``: reconnect in that era; ``POST /api/restart``.
- ``POST /api/tools/call`` ``{"name", "arguments", "callId"?, "task"?}``.
- ``POST /api/resources/read`` ``{"uri"}``; ``POST /api/prompts/get`` ``{"name", "arguments"}``.
- ``POST /api/complete`` ``{"ref", "argument": {"name", "value"}, "context"?}``.
- ``GET /api/pending``; ``POST /api/answer`` ``{"id", "result"}`` (an elicitation's
  ``{"action", "content"}``, a sampling ``CreateMessageResult``).
- ``GET /api/tasks``; ``POST /api/tasks/cancel`` ``{"taskId"}``.
- ``POST /api/apps/view`` ``{"uri"}``: the app's HTML with its CSP as a meta tag, the CSP
  header, the iframe ``allow`` attribute, and ``viewUrl``: ``/view/ID`` serves the HTML
  with that CSP as a header (the page's iframe loads it sandboxed, so the view neither
  inherits the page's policy nor learns the token);
- ``POST /api/apps/call`` ``{"name", "arguments"}``: a call on behalf of an app
  (app-visible tools only).
- ``POST /api/logging`` ``{"level"}``.
- ``GET /api/events``: Server-Sent Events, one JSON object per event (``type``: reload,
  progress, log, stderr, request, answered, task, list_changed, exited).
"""

from __future__ import annotations

import asyncio
import html
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from mcpkit.dev.upstream import ERAS, Upstream, wire
from mcpkit.errors import ConnectionClosed, McpError

__all__ = ["TOKEN_HEADER", "build_app", "static_file"]

TOKEN_HEADER = "x-mcpkit-dev-token"
_STATIC = {
    "inspector.js": "text/javascript; charset=utf-8",
    "inspector.css": "text/css; charset=utf-8",
    "index.html": "text/html; charset=utf-8",
}
#: The page's own policy: its scripts and styles only, no other origin.
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; "
    "form-action 'none'"
)


def static_file(name: str) -> bytes:
    """One of the inspector's files, from the package data."""
    return resources.files("mcpkit.dev").joinpath("static", name).read_bytes()


class _BadInput(ValueError):
    pass


def _error(status: int, message: str, code: int | None = None) -> JSONResponse:
    body: dict[str, Any] = {"message": message}
    if code is not None:
        body["code"] = code
    return JSONResponse({"error": body}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    try:
        data = json.loads(await request.body() or b"{}")
    except ValueError as exc:
        raise _BadInput(f"the body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise _BadInput("the body must be a JSON object")
    return data


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise _BadInput(f"'{key}' must be a non-empty string")
    return value


def _obj(data: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = data.get(key)
    if value is not None and not isinstance(value, dict):
        raise _BadInput(f"'{key}' must be a JSON object")
    return value


Handler = Callable[[Request], Awaitable[Any]]


def build_app(upstream: Upstream, token: str, *, allowed_hosts: tuple[str, ...] = ()) -> Starlette:
    """The dev server's ASGI app for ``upstream``, guarded by ``token``."""
    views: dict[str, tuple[str, str]] = {}

    def authorized(request: Request) -> bool:
        given = request.query_params.get("token") or request.headers.get(TOKEN_HEADER) or ""
        return secrets.compare_digest(given.encode(), token.encode())

    def host_ok(request: Request) -> bool:
        host = request.headers.get("host", "")
        return not allowed_hosts or host in allowed_hosts

    def guarded(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            if not host_ok(request):
                return _error(403, "unexpected Host header")
            if not authorized(request):
                return _error(403, "missing or wrong token: open the URL mcpkit dev printed")
            try:
                out = await handler(request)
            except _BadInput as exc:
                return _error(400, str(exc))
            except KeyError as exc:
                return _error(404, f"unknown: {exc.args[0]}")
            except ConnectionClosed as exc:
                return _error(503, await upstream.lost(exc))
            except McpError as exc:
                return _error(502, exc.message, exc.code)
            except RuntimeError as exc:
                return _error(503, str(exc))
            except (ValueError, TypeError) as exc:  # e.g. AppToolRefused, output schema
                return _error(400, str(exc))
            except Exception as exc:  # the server went away mid-call, or the like
                return _error(500, f"{type(exc).__name__}: {exc}")
            if isinstance(out, Response):
                return out
            return JSONResponse(out)

        return endpoint

    async def index(request: Request) -> Response:
        if not host_ok(request):
            return _error(403, "unexpected Host header")
        if not authorized(request):
            return Response(
                "403: open the URL with the token that mcpkit dev printed\n",
                status_code=403,
                media_type="text/plain",
            )
        return Response(
            static_file("index.html"),
            media_type=_STATIC["index.html"],
            headers={"Content-Security-Policy": PAGE_CSP, "Cache-Control": "no-store"},
        )

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC or name == "index.html":
            return Response("not found\n", status_code=404, media_type="text/plain")
        return Response(
            static_file(name), media_type=_STATIC[name], headers={"Cache-Control": "no-store"}
        )

    async def state(request: Request) -> Any:
        return await upstream.state()

    async def connect(request: Request) -> Any:
        era = (await _body(request)).get("era", upstream.era)
        if era not in ERAS:
            raise _BadInput(f"'era' must be one of {', '.join(ERAS)}")
        await upstream.connect(era, reason="era")
        return await upstream.state()

    async def restart(request: Request) -> Any:
        await upstream.connect(reason="restart")
        return await upstream.state()

    async def call_tool(request: Request) -> Any:
        data = await _body(request)
        name, arguments = _str(data, "name"), _obj(data, "arguments")
        call_id = data.get("callId")
        call_id = call_id if isinstance(call_id, str) else None
        if data.get("task"):
            return {"task": await upstream.start_task(name, arguments, call_id)}
        return await upstream.call_tool(name, arguments, call_id)

    async def read_resource(request: Request) -> Any:
        uri = _str(await _body(request), "uri")
        return wire(await upstream.require().read_resource(uri, cache="refresh"))

    async def get_prompt(request: Request) -> Any:
        data = await _body(request)
        return wire(
            await upstream.require().get_prompt(_str(data, "name"), _obj(data, "arguments"))
        )

    async def complete(request: Request) -> Any:
        data = await _body(request)
        ref, argument = _obj(data, "ref"), _obj(data, "argument")
        if ref is None or argument is None:
            raise _BadInput("'ref' and 'argument' are required")
        context = _obj(data, "context")
        result = await upstream.require().complete(
            ref, _str(argument, "name"), str(argument.get("value", "")), context=context
        )
        return wire(result)

    async def pending(request: Request) -> Any:
        return [p.to_json() for p in upstream.pending.values()]

    async def answer(request: Request) -> Any:
        data = await _body(request)
        result = _obj(data, "result")
        if result is None:
            raise _BadInput("'result' is required")
        upstream.answer(_str(data, "id"), result)
        return {"ok": True}

    async def tasks(request: Request) -> Any:
        return upstream.task_list()

    async def cancel_task(request: Request) -> Any:
        return await upstream.cancel_task(_str(await _body(request), "taskId"))

    async def app_view(request: Request) -> Any:
        from mcpkit.client.apps import read_app

        uri = _str(await _body(request), "uri")
        view = await read_app(upstream.require(), uri)
        csp = view.csp_header()
        meta = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(csp)}">'
        document = _with_head(view.html, meta)
        view_id = secrets.token_urlsafe(16)
        views[view_id] = (view.html, csp)
        while len(views) > 32:  # only the latest views stay served
            del views[next(iter(views))]
        return {
            "uri": view.uri,
            "viewUrl": f"/view/{view_id}",
            "mimeType": view.mime_type,
            "html": document,
            "csp": csp,
            "allow": view.allow_attribute(),
            "prefersBorder": view.prefers_border,
            "meta": view.meta.to_wire(),
        }

    async def served_view(request: Request) -> Response:
        # No token here: the id is unguessable, and the view must not learn the token.
        found = views.get(request.path_params["view_id"])
        if found is None or not host_ok(request):
            return Response("not found\n", status_code=404, media_type="text/plain")
        document, csp = found
        return Response(
            document,
            media_type="text/html; charset=utf-8",
            headers={
                "Content-Security-Policy": csp,
                "Cache-Control": "no-store",
                "Referrer-Policy": "no-referrer",
            },
        )

    async def app_call(request: Request) -> Any:
        from mcpkit.client.apps import call_tool_for_app

        data = await _body(request)
        client = upstream.require()
        result = await call_tool_for_app(client, _str(data, "name"), _obj(data, "arguments"))
        return wire(result)

    async def logging_level(request: Request) -> Any:
        await upstream.require().set_logging_level(_str(await _body(request), "level"))
        return {"ok": True}

    async def events(request: Request) -> Any:
        async def stream() -> AsyncIterator[bytes]:
            async with upstream.hub.listen() as queue:
                hello = {"type": "hello", "generation": upstream.generation}
                yield f"data: {json.dumps(hello)}\n\n".encode()
                while True:
                    try:
                        event = await asyncio.wait_for(queue.get(), 15)
                    except TimeoutError:
                        yield b": keep-alive\n\n"
                        continue
                    if event is None:
                        return
                    yield f"id: {event['seq']}\ndata: {json.dumps(event)}\n\n".encode()

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    get, post = ["GET"], ["POST"]
    routes = [
        Route("/", index, methods=get),
        Route("/static/{name}", static, methods=get),
        Route("/view/{view_id}", served_view, methods=get),
        Route("/api/state", guarded(state), methods=get),
        Route("/api/connect", guarded(connect), methods=post),
        Route("/api/restart", guarded(restart), methods=post),
        Route("/api/tools/call", guarded(call_tool), methods=post),
        Route("/api/resources/read", guarded(read_resource), methods=post),
        Route("/api/prompts/get", guarded(get_prompt), methods=post),
        Route("/api/complete", guarded(complete), methods=post),
        Route("/api/pending", guarded(pending), methods=get),
        Route("/api/answer", guarded(answer), methods=post),
        Route("/api/tasks", guarded(tasks), methods=get),
        Route("/api/tasks/cancel", guarded(cancel_task), methods=post),
        Route("/api/apps/view", guarded(app_view), methods=post),
        Route("/api/apps/call", guarded(app_call), methods=post),
        Route("/api/logging", guarded(logging_level), methods=post),
        Route("/api/events", guarded(events), methods=get),
    ]
    return Starlette(routes=routes)


def _with_head(document: str, tag: str) -> str:
    """``document`` with ``tag`` first in its ``<head>`` (a head is added when it has none)."""
    lower = document.lower()
    start = lower.find("<head")
    if start != -1:
        end = document.find(">", start)
        if end != -1:
            return document[: end + 1] + tag + document[end + 1 :]
    return f"<head>{tag}</head>{document}"
