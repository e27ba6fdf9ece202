"""``mcpkit demo``: the example server over Streamable HTTP, every feature walked through.

The server (``examples/server_everything.py``, shipped in the wheel as the module
``mcpkit.cli.demo_server``; or ``--server FILE``) runs in this process
under uvicorn on 127.0.0.1 at a free port, with the embedded SQLite event store in a
temporary folder. A :class:`~mcpkit.Client` connects over real HTTP and exercises tools
(progress, logging, structured output, images, errors, cancellation), sampling and
elicitation (answered by scripted handlers), roots, tasks, resources (templates, binary,
subscriptions), completion, prompts, list-changed notifications and the logging level,
printing what happens.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib.util
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from mcpkit.cli.errors import INSTALL_HINT, CliError
from mcpkit.cli.render import Output, compact_schema
from mcpkit.cli.targets import ServerRef, load_server
from mcpkit.client import ClientHooks

__all__ = ["DEMO_MODULE", "default_server", "run_demo"]

#: The example server as a module of the installed package (the wheel's copy of
#: ``examples/server_everything.py``).
DEMO_MODULE = "mcpkit.cli.demo_server"

_WAIT = 5.0  # seconds to wait for a notification before saying it did not come


def _same_json(text: str, value: Any) -> bool:
    try:
        return bool(orjson.loads(text) == value)
    except orjson.JSONDecodeError:
        return False


def default_server() -> ServerRef | None:
    """The demo's server: the package module :data:`DEMO_MODULE` of an installed wheel, else
    ``examples/server_everything.py`` of the checkout this package runs from (an editable
    install or ``PYTHONPATH=src``); None when neither is there."""
    if importlib.util.find_spec(DEMO_MODULE) is not None:
        return ServerRef(None, DEMO_MODULE, "app")
    import mcpkit

    here = Path(mcpkit.__file__).resolve()
    for parent in here.parents:
        candidate = parent / "examples" / "server_everything.py"
        if candidate.is_file():
            return ServerRef(candidate, None, None)
    return None


class _Demo:
    def __init__(self, output: Output, workdir: Path) -> None:
        self.output = output
        self.workdir = workdir
        self.updated = asyncio.Event()
        self.list_changed = asyncio.Event()
        self.logs: list[Any] = []
        self.step = 0

    # -- printing -------------------------------------------------------------------------------

    def section(self, title: str) -> None:
        self.step += 1
        self.output.out.print(f"\n[bold cyan]{self.step:>2}. {title}[/]")

    def line(self, text: str, style: str = "") -> None:
        self.output.out.print(f"    {text}", style=style, markup=False, highlight=False)

    def show(self, label: str, value: Any) -> None:
        self.line(f"{label}: {value}")

    # -- scripted handlers and hooks ------------------------------------------------------------

    async def sampling(self, params: Any, ctx: Any) -> dict[str, Any]:
        question = ""
        for message in params.messages:
            question = getattr(message.content, "text", question)
        self.line(f"<- server asks the client's LLM (sampling): {question!r}", "magenta")
        self.line("-> scripted LLM replies: 'Paris.'", "magenta")
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "Paris."},
            "model": "scripted-demo-llm",
            "stopReason": "endTurn",
        }

    async def elicitation(self, params: Any, ctx: Any) -> dict[str, Any]:
        fields = compact_schema(params.to_wire().get("requestedSchema"))
        self.line(f"<- server asks the user (elicitation): {params.message!r}", "magenta")
        self.line(f"   form fields: {fields}", "magenta")
        answer = {"name": "Ada", "color": "green"}
        self.line(f"-> scripted user accepts with {answer}", "magenta")
        return {"action": "accept", "content": answer}

    def on_log(self, params: Any) -> None:
        self.logs.append(params)
        self.line(f"<- log [{params.level}] {params.data}", "blue")

    def on_progress(self, progress: float, total: float | None, message: str | None) -> None:
        shown = f"{progress:g}/{total:g}" if total is not None else f"{progress:g}"
        self.line(f"<- progress {shown}" + (f": {message}" if message else ""), "blue")

    def on_updated(self, uri: str) -> None:
        self.line(f"<- notifications/resources/updated {uri}", "blue")
        self.updated.set()

    def on_list_changed(self, kind: str) -> None:
        self.line(f"<- notifications/{kind}/list_changed", "blue")
        if kind == "tools":
            self.list_changed.set()

    # -- the walk-through -----------------------------------------------------------------------

    async def call(self, client: Any, name: str, arguments: dict[str, Any] | None = None) -> Any:
        shown = ", ".join(f"{k}={v!r}" for k, v in (arguments or {}).items())
        self.line(f"-> tools/call {name}({shown})")
        result = await client.call_tool(name, arguments or {}, on_progress=self.on_progress)
        wire = result.to_wire()
        structured = wire.get("structuredContent")
        for block in wire.get("content") or []:
            if block.get("type") == "text":
                if structured is not None and _same_json(block["text"], structured):
                    continue  # the text is only the serialised structured content
                self.line(f"<- {'error' if result.is_error else 'text'}: {block['text']}")
            elif block.get("type") in ("image", "audio"):
                data = base64.b64decode(block["data"])
                path = self.output.save(data, block.get("mimeType"), name)
                self.line(
                    f"<- {block['type']} {block.get('mimeType')} ({len(data)} bytes) "
                    f"{self.output.where(path)}"
                )
        if structured is not None:
            self.line(f"<- structuredContent: {orjson.dumps(structured).decode()}")
        return result

    async def walk(self, client: Any, app: Any, url: str, store: Any) -> None:
        from mcpkit.errors import McpError

        await _check_server(client)
        self.section("Connect (Streamable HTTP, initialize handshake)")
        info = client.server_info
        self.show("server", f"{info.name} {info.version} ({info.title})")
        self.show("protocol", client.protocol_version)
        self.show("session", client.transport.info.session_id)
        caps = client.server_capabilities.to_wire()
        self.show("capabilities", ", ".join(caps))
        self.show("instructions", client.instructions)
        started = time.perf_counter()
        await client.ping()
        self.show("ping", f"{(time.perf_counter() - started) * 1000:.1f} ms round trip")

        self.section("Tools")
        for tool in await client.list_tools():
            self.line(f"{tool.name}({compact_schema(tool.input_schema.to_wire())})")
        await self.call(client, "add", {"a": 2, "b": 3})

        self.section("Progress, logging and structured output")
        await self.call(client, "forecast", {"city": "Oslo", "days": 3})

        self.section("Images, tool errors and cancellation")
        await self.call(client, "pixel")
        await self.call(client, "fail")
        try:
            await client.call_tool("no_such_tool", {})
        except McpError as exc:
            self.line(f"-> tools/call no_such_tool: protocol error {exc.code}: {exc.message}")
        await self.cancel(client)

        self.section("Sampling: the server asks the client's LLM")
        await self.call(client, "ask_llm", {"question": "What is the capital of France?"})

        self.section("Elicitation: the server asks the user")
        await self.call(client, "ask_user")

        self.section("Roots and the server's lifespan state")
        await self.call(client, "roots")
        await self.call(client, "answers")

        tasks = client.server_capabilities.to_wire().get("tasks") or {}
        if "call" in ((tasks.get("requests") or {}).get("tools") or {}):
            await self.tasks(client)

        self.section("Resources and templates")
        for r in await client.list_resources():
            self.line(f"{r.uri}  ({r.mime_type})  {r.description or ''}")
        for t in await client.list_resource_templates():
            self.line(f"{t.uri_template}  (template, {t.mime_type})")
        for uri in ("test://static-text", "test://static-binary", "weather://Oslo/current"):
            result = await client.read_resource(uri)
            for item in result.to_wire()["contents"]:
                if "text" in item:
                    self.line(f"-> resources/read {uri}: {item['text']}")
                else:
                    self.line(f"-> resources/read {uri}: blob, {len(item['blob'])} base64 chars")

        self.section("Completion of a template argument")
        done = await client.complete("weather://{city}/current", "city", "O")
        self.line(f"-> completion/complete city='O': {done.completion.values}")

        self.section("Prompts")
        for p in await client.list_prompts():
            arguments = ", ".join(a.name for a in p.arguments or ())
            self.line(f"{p.name}({arguments}): {p.description}")
        prompt = await client.get_prompt("review", {"code": "print('hi')"})
        for message in prompt.messages:
            text = getattr(message.content, "text", f"[{message.content.type}]")
            self.line(f"-> prompts/get review: {message.role}: {text!r}")

        self.section("Subscriptions and list-changed notifications")
        await client.subscribe_resource("test://static-text")
        self.line("-> resources/subscribe test://static-text")
        app.notify_resource_updated("test://static-text")
        await self._wait(self.updated, "resources/updated")

        def shout(text: str) -> str:
            """Echo the text in capitals (a tool added while clients are connected)."""
            return text.upper()

        app.add_tool(shout)
        await self._wait(self.list_changed, "tools/list_changed")
        names = [t.name for t in await client.list_tools()]
        self.line(f"-> tools/list again: {', '.join(names)}")
        await self.call(client, "shout", {"text": "hello"})
        app.remove_tool("shout")
        await self._wait(self.list_changed, "tools/list_changed")

        self.section("Logging level")
        before = len(self.logs)
        await client.set_logging_level("warning")
        self.line("-> logging/setLevel warning")
        await self.call(client, "forecast", {"city": "Paris", "days": 1})
        self.line(f"info messages received after setLevel: {len(self.logs) - before}")

        self.section("Resumable streams: the SQLite event store")
        self.line(f"events stored for resumption: {store.count()} (in {self.workdir})")

    async def cancel(self, client: Any) -> None:
        """Start a long call, give up after its first progress notification."""
        if not any(t.name == "long_job" for t in client.tools or ()):
            return
        started = asyncio.Event()

        def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if not started.is_set():
                self.on_progress(progress, total, message)
                started.set()

        self.line("-> tools/call long_job(steps=10000)")
        call = asyncio.create_task(
            client.call_tool("long_job", {"steps": 10_000}, on_progress=on_progress)
        )
        await self._wait(started, "progress")
        call.cancel()  # the client sends notifications/cancelled for the request
        await asyncio.wait([call])
        if call.cancelled():
            self.line("-> notifications/cancelled: the caller gave up, no response will come")
        await client.ping()
        self.line("-> ping: the session carries on")

    async def tasks(self, client: Any) -> None:
        self.section("Tasks: a long job run as a task, polled for its result")
        tool = next((t for t in client.tools or () if t.name == "long_job"), None)
        if tool is None:
            self.line("(the server has no long_job tool)")
            return
        created = await client.request(
            "tools/call",
            {"name": "long_job", "arguments": {"steps": 3}, "task": {"ttl": 60_000}},
        )
        task_id = created["task"]["taskId"]
        self.line(f"-> tools/call long_job(steps=3) as a task: {created['task']['status']}")
        state = await client.request("tasks/get", {"taskId": task_id})
        self.line(f"-> tasks/get: {state['status']}")
        result = await client.request("tasks/result", {"taskId": task_id})
        texts = [b.get("text") for b in result.get("content") or () if b.get("type") == "text"]
        self.line(f"-> tasks/result: {'; '.join(str(t) for t in texts)}")
        state = await client.request("tasks/get", {"taskId": task_id})
        self.line(f"-> tasks/get: {state['status']}")

    async def _wait(self, event: asyncio.Event, what: str) -> None:
        try:
            await asyncio.wait_for(event.wait(), _WAIT)
        except TimeoutError:
            self.line(f"({what} did not arrive within {_WAIT:g} s)", "yellow")
        event.clear()


#: What the walk-through calls: the example server's tools, resources, templates and prompts.
_NEEDS = {
    "tools": ("add", "forecast", "pixel", "fail", "ask_llm", "ask_user", "roots", "answers"),
    "resources": ("test://static-text", "test://static-binary"),
    "resource templates": ("weather://{city}/current",),
    "prompts": ("review",),
}


async def _check_server(client: Any) -> None:
    """CliError naming what the demo needs and the server lacks (a ``--server`` of another
    kind), before anything is called."""
    have = {
        "tools": {t.name for t in await client.list_tools()} if client.supports("tools") else set(),
        "resources": set(),
        "resource templates": set(),
        "prompts": {p.name for p in await client.list_prompts()}
        if client.supports("prompts")
        else set(),
    }
    if client.supports("resources"):
        have["resources"] = {str(r.uri) for r in await client.list_resources()}
        have["resource templates"] = {
            t.uri_template for t in await client.list_resource_templates()
        }
    missing = [
        f"{kind} {', '.join(names)}"
        for kind, needed in _NEEDS.items()
        if (names := [n for n in needed if n not in have[kind]])
    ]
    if missing:
        raise CliError(
            f"the demo cannot walk through this server: it lacks {'; '.join(missing)}",
            "--server takes a server with what examples/server_everything.py offers "
            "(mcpkit inspect FILE shows what a server has)",
        )


async def _main(args: argparse.Namespace, output: Output) -> None:
    from mcpkit import Client
    from mcpkit.transports.http import SQLiteEventStore, running

    ref = ServerRef(Path(args.server), None, None) if args.server else default_server()
    if ref is None:
        raise CliError(
            f"the demo server ({DEMO_MODULE}) is missing from this installation",
            "reinstall mcpkit from its wheel, or pass --server FILE",
        )
    app = load_server(ref)
    name = ref.path.name if ref.path is not None else "server_everything.py"
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mcpkit-demo-") as tmp:
        workdir = Path(tmp)
        output.out.print(f"[bold]mcpkit demo[/]: the example server {name} and a client")
        store = SQLiteEventStore(str(workdir / "events.sqlite3"))
        demo = _Demo(output, workdir)
        try:
            asgi = app.http_app(event_store=store)
            async with running(asgi, host="127.0.0.1", port=0) as base:
                url = f"{base}/mcp"
                output.out.print(
                    f"serving over Streamable HTTP at {url} (SQLite event store in {tmp})",
                    markup=False,
                )
                roots_dir = workdir / "workspace"
                roots_dir.mkdir()
                client = Client(
                    url,
                    sampling_handler=demo.sampling,
                    elicitation_handler=demo.elicitation,
                    roots=[{"uri": roots_dir.as_uri(), "name": "workspace"}],
                    on_log=demo.on_log,
                    hooks=ClientHooks(
                        on_resource_updated=demo.on_updated, on_list_changed=demo.on_list_changed
                    ),
                    client_info={"name": "mcpkit-demo", "version": "1.0"},
                    timeout=10,
                    era="legacy",  # the tour shows the session: ping, cancellation, DELETE
                )
                async with client:
                    await demo.walk(client, app, url, store)
                demo.section("Disconnect")
                demo.line("session ended (HTTP DELETE); server shutting down")
        finally:
            store.close()
    output.out.print(f"\n[bold green]demo finished in {time.perf_counter() - started:.1f} s[/]")


def run_demo(args: argparse.Namespace) -> int:
    """Run the demo; returns the exit code."""
    try:
        import mcpkit.transports.http  # noqa: F401
    except ImportError as exc:
        raise CliError(
            f"the demo needs Streamable HTTP: {exc}", INSTALL_HINT.format(extras="http")
        ) from None
    output = Output(save_dir=args.save_dir)
    asyncio.run(asyncio.wait_for(_main(args, output), args.time_limit))
    return 0
