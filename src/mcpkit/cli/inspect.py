"""``mcpkit inspect``: what a server is and offers, as tables or JSON."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from mcpkit.cli.common import connect, make_output
from mcpkit.cli.render import Output, compact_schema

__all__ = ["collect", "run_inspect"]

_HINTS = (
    ("readOnlyHint", True, "read-only"),
    ("destructiveHint", True, "destructive"),
    ("idempotentHint", True, "idempotent"),
    ("openWorldHint", False, "closed-world"),
)


async def collect(client: Any) -> dict[str, Any]:
    """Everything ``inspect`` shows, in wire form (what ``--json`` prints)."""
    info: dict[str, Any] = {
        "serverInfo": client.server_info.to_wire(),
        "protocolVersion": client.protocol_version,
        "capabilities": client.server_capabilities.to_wire(),
        "instructions": client.instructions,
    }
    if client.server_url:
        info["url"] = client.server_url
    info["tools"] = await _listed(client, "tools", client.list_tools)
    info["resources"] = await _listed(client, "resources", client.list_resources)
    info["resourceTemplates"] = await _listed(client, "resources", client.list_resource_templates)
    info["prompts"] = await _listed(client, "prompts", client.list_prompts)
    return info


async def _listed(client: Any, capability: str, lister: Any) -> list[Any]:
    """Every item of one list, in wire form; [] when the server lacks the capability or
    does not implement the list (-32601)."""
    from mcpkit.errors import McpError
    from mcpkit.jsonrpc import METHOD_NOT_FOUND

    if not client.supports(capability):
        return []
    try:
        return [item.to_wire() for item in await lister()]
    except McpError as exc:
        if exc.code != METHOD_NOT_FOUND:
            raise
        return []


def _caps_line(caps: Mapping[str, Any]) -> str:
    parts = []
    for name, value in caps.items():
        flags = [k for k, v in value.items() if v] if isinstance(value, Mapping) else []
        parts.append(f"{name} ({', '.join(flags)})" if flags else name)
    return ", ".join(parts) or "none"


def _first_line(text: Any) -> str:
    return str(text or "").strip().split("\n", 1)[0]


def _tool_notes(tool: Mapping[str, Any]) -> str:
    notes = []
    annotations = tool.get("annotations") or {}
    for key, when, label in _HINTS:
        if annotations.get(key) is when:
            notes.append(label)
    if tool.get("outputSchema"):
        notes.append("structured")
    execution = tool.get("execution") or {}
    if execution.get("taskSupport") in ("optional", "required"):
        notes.append(f"tasks: {execution['taskSupport']}")
    return ", ".join(notes)


def render(info: Mapping[str, Any], output: Output) -> None:
    """Print ``info`` (from :func:`collect`) as readable tables."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    out = output.tables
    server = info["serverInfo"]
    title = f" — {server['title']}" if server.get("title") else ""
    out.print(
        f"[bold]{escape(str(server.get('name')))}[/] {escape(str(server.get('version')))}"
        f"{escape(title)}"
    )
    rows = [("protocol", str(info.get("protocolVersion")))]
    if info.get("url"):
        rows.append(("url", str(info["url"])))
    rows.append(("capabilities", _caps_line(info.get("capabilities") or {})))
    for key in ("description", "websiteUrl"):
        if server.get(key):
            rows.append((key, str(server[key])))
    if info.get("instructions"):
        rows.append(("instructions", str(info["instructions"])))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim")
    grid.add_column()
    for key, value in rows:
        grid.add_row(key, escape(value))
    out.print(grid)

    def table(name: str, count: int, *columns: str) -> Table:
        t = Table(title=f"{name} ({count})", title_justify="left", box=box.SIMPLE_HEAD)
        for column in columns:
            t.add_column(column, overflow="fold")
        return t

    tools = info.get("tools") or []
    if tools:
        t = table("tools", len(tools), "name", "arguments", "description", "notes")
        for tool in tools:
            t.add_row(
                f"[bold]{escape(tool['name'])}[/]",
                escape(compact_schema(tool.get("inputSchema"))),
                escape(_first_line(tool.get("description") or tool.get("title"))),
                escape(_tool_notes(tool)),
            )
        out.print(t)
    resources = info.get("resources") or []
    if resources:
        t = table("resources", len(resources), "uri", "name", "type", "description")
        for r in resources:
            t.add_row(
                escape(str(r.get("uri"))),
                escape(str(r.get("title") or r.get("name") or "")),
                escape(str(r.get("mimeType") or "")),
                escape(_first_line(r.get("description"))),
            )
        out.print(t)
    templates = info.get("resourceTemplates") or []
    if templates:
        t = table(
            "resource templates", len(templates), "uri template", "name", "type", "description"
        )
        for r in templates:
            t.add_row(
                escape(str(r.get("uriTemplate"))),
                escape(str(r.get("title") or r.get("name") or "")),
                escape(str(r.get("mimeType") or "")),
                escape(_first_line(r.get("description"))),
            )
        out.print(t)
    prompts = info.get("prompts") or []
    if prompts:
        t = table("prompts", len(prompts), "name", "arguments", "description")
        for p in prompts:
            arguments = ", ".join(
                f"{a.get('name')}{'' if a.get('required') else '?'}"
                for a in p.get("arguments") or ()
            )
            t.add_row(
                f"[bold]{escape(p['name'])}[/]",
                escape(arguments),
                escape(_first_line(p.get("description"))),
            )
        out.print(t)
    if not (tools or resources or templates or prompts):
        out.print("[dim]no tools, resources or prompts[/]")


async def run_inspect(args: argparse.Namespace) -> int:
    """Connect, list everything, print it."""
    output = make_output(args)
    async with connect(args, output) as client:
        info = await collect(client)
    if args.json:
        output.json(info)
    else:
        render(info, output)
    return 0
