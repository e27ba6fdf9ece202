"""Drive an MCP server with the official Python SDK's client; print what it saw as JSON.

Runs in the peer venv (.cache/peers/py, made by scripts/peers.sh), never in mcpkit's:

    .cache/peers/py/bin/python tests/interop/peers/py_client.py --mode 2026-07-28 \\
        --call add '{"a": 2, "b": 3}' -- COMMAND [ARG ...]       # a stdio server
    .cache/peers/py/bin/python tests/interop/peers/py_client.py --mode auto \\
        --url http://127.0.0.1:PORT/mcp                          # a Streamable HTTP server

``--mode`` is the SDK's ``Client(mode=...)``: ``legacy`` (initialize handshake), ``auto``
(probe ``server/discover``, fall back to initialize) or a modern version such as
``2026-07-28`` (stateless, no probe). The report on stdout is one JSON object:
``{"protocolVersion", "serverInfo", "capabilities", "tools", "prompts", "resources",
"templates", "calls": [{"name", "arguments", "result"}], "reads", "gets", "completions",
"listen"}`` (a list the server refused reads ``{"error": "..."}``); an error exits 1 with the
traceback on stderr.

More operations, each repeatable and run in this order after the lists:
``--call TOOL JSON``, ``--read URI``, ``--get PROMPT JSON``, ``--complete REF NAME ARG VALUE``
(``REF`` is ``prompt`` or ``template``; ``NAME`` the prompt name or the URI template), and
``--listen-tools TOOL JSON`` (2026-07-28: open ``subscriptions/listen`` for tool-list
changes, call TOOL, report the first event that arrives within ``--listen-wait`` seconds).

The client declares sampling, elicitation and roots and answers them with canned values
(so a server may ask, on either era: requests on 2025, ``input_required`` on 2026):
sampling ``--sampling-text``, elicitation accept with ``--elicit-content`` (JSON), roots
``--root`` URIs (default one, ``file:///interop/root``). Every request it answered is in
``"answered"``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import mcp_types as types
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters


def _dump(model: Any) -> Any:
    if model is None:
        return None
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _listed(fetch: Any, field: str, key: str) -> Any:
    """The names (or URIs) of one list, or ``{"error": ...}`` when the server refused it."""
    try:
        result = await fetch()
    except Exception as exc:  # reported, not raised: the server may lack the feature
        return {"error": f"{type(exc).__name__}: {exc}"}
    return [str(getattr(item, key)) for item in getattr(result, field)]


def _answerers(args: argparse.Namespace, answered: list[dict[str, Any]]) -> dict[str, Any]:
    """The client callbacks: canned answers to sampling, elicitation and roots requests."""

    async def sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
        answered.append({"kind": "sampling", "params": _dump(params)})
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=args.sampling_text),
            model="interop-model",
            stop_reason="endTurn",
        )

    async def elicitation(context: Any, params: types.ElicitRequestParams) -> Any:
        answered.append({"kind": "elicitation", "params": _dump(params)})
        return types.ElicitResult(action="accept", content=json.loads(args.elicit_content))

    async def roots(context: Any) -> Any:
        answered.append({"kind": "roots"})
        uris = args.root or ["file:///interop/root"]
        return types.ListRootsResult(
            roots=[types.Root(uri=uri, name=f"root {i}") for i, uri in enumerate(uris)]
        )

    return {
        "sampling_callback": sampling,
        "elicitation_callback": elicitation,
        "list_roots_callback": roots,
    }


async def _listen(client: Client, tool: str, arguments: Any, wait: float) -> dict[str, Any]:
    """Open a tool-list listen stream, call ``tool``, collect the events for ``wait`` s."""
    events: list[str] = []
    async with client.listen(tools_list_changed=True) as sub:
        honored = _dump(sub.honored)
        result = await client.call_tool(tool, arguments)

        async def collect() -> None:
            async for event in sub:
                events.append(type(event).__name__)
                break  # one change seen is enough

        try:
            await asyncio.wait_for(collect(), wait)
        except TimeoutError:
            pass
    return {"honored": honored, "call": _dump(result), "events": events}


async def drive(args: argparse.Namespace) -> dict[str, Any]:
    if args.url:
        target: Any = args.url
    else:
        if not args.command:
            raise SystemExit("give --url or a stdio server command after --")
        target = StdioServerParameters(command=args.command[0], args=args.command[1:])
    answered: list[dict[str, Any]] = []
    report: dict[str, Any] = {"calls": [], "answered": answered}
    async with Client(target, mode=args.mode, **_answerers(args, answered)) as client:
        report["protocolVersion"] = client.protocol_version
        report["serverInfo"] = _dump(client.server_info)
        report["capabilities"] = _dump(client.server_capabilities)
        caps = client.server_capabilities
        # A modern version pin without a prior discover knows no capabilities: try them all.
        unknown = caps.tools is None and caps.prompts is None and caps.resources is None
        if unknown or caps.tools is not None:
            report["tools"] = await _listed(lambda: client.list_tools(), "tools", "name")
        if unknown or caps.prompts is not None:
            report["prompts"] = await _listed(lambda: client.list_prompts(), "prompts", "name")
        if unknown or caps.resources is not None:
            report["resources"] = await _listed(lambda: client.list_resources(), "resources", "uri")
            report["templates"] = await _listed(
                lambda: client.list_resource_templates(), "resource_templates", "uri_template"
            )
        for name, arguments in args.call:
            parsed = json.loads(arguments)
            call: dict[str, Any] = {"name": name, "arguments": parsed}
            try:
                call["result"] = _dump(await client.call_tool(name, parsed))
            except Exception as exc:  # a protocol error answer, reported (the call is listed)
                call["error"] = f"{type(exc).__name__}: {exc}"
            report["calls"].append(call)
        if args.read:
            report["reads"] = [
                {"uri": uri, "result": _dump(await client.read_resource(uri))} for uri in args.read
            ]
        if args.get:
            report["gets"] = [
                {"name": name, "result": _dump(await client.get_prompt(name, json.loads(a)))}
                for name, a in args.get
            ]
        if args.complete:
            report["completions"] = []
            for kind, name, argument, value in args.complete:
                ref: Any = (
                    types.PromptReference(type="ref/prompt", name=name)
                    if kind == "prompt"
                    else types.ResourceTemplateReference(type="ref/resource", uri=name)
                )
                done = await client.complete(ref, {"name": argument, "value": value})
                report["completions"].append({"ref": name, "result": _dump(done)})
        if args.listen_tools:
            tool, arguments = args.listen_tools
            report["listen"] = await _listen(client, tool, json.loads(arguments), args.listen_wait)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--url")
    parser.add_argument(
        "--call", nargs=2, action="append", default=[], metavar=("TOOL", "JSON_ARGUMENTS")
    )
    parser.add_argument("--read", action="append", default=[], metavar="URI")
    parser.add_argument("--get", nargs=2, action="append", default=[], metavar=("PROMPT", "JSON"))
    parser.add_argument(
        "--complete", nargs=4, action="append", default=[], metavar=("REF", "NAME", "ARG", "VALUE")
    )
    parser.add_argument("--listen-tools", nargs=2, metavar=("TOOL", "JSON_ARGUMENTS"))
    parser.add_argument("--listen-wait", type=float, default=3.0)
    parser.add_argument("--sampling-text", default="sampled by the official client")
    parser.add_argument("--elicit-content", default="{}")
    parser.add_argument("--root", action="append", default=[])
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    report = asyncio.run(drive(args))
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
