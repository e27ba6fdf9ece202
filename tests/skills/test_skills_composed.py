"""Skills of mounted and proxied servers: a prefixed mount serves the child's skills under
``skill://<prefix>/...`` (an organizational prefix: the skill names stay), a proxy forwards
``skills/list``, ``skills/get``, ``resources/directory/read`` and the ``skill://`` reads;
clients list, get, and read every file verified against the manifests, in both eras, in
memory and over HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from mcpkit.client.skills import SkillEntry
from mcpkit.proxy import ProxyServer
from tests.skills.test_skills import make_server

ERAS = ("legacy", "2026-07-28")
OWN_SKILL = "---\nname: house-rules\ndescription: The gateway's own rules\n---\nBe brief.\n"


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=["memory", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@contextlib.asynccontextmanager
async def connect(app: Server, era: str, transport: str, wire: Any) -> AsyncIterator[Client]:
    if transport == "memory":
        async with Client(app, era=era, tracer=wire()) as client:
            yield client
        return
    from mcpkit.transports.http import running

    async with running(app.http_app()) as base:
        async with Client(f"{base}/mcp", era=era, tracer=wire()) as client:
            yield client


async def verify_all(client: Client, entries: list[SkillEntry]) -> dict[str, str]:
    """Every file of every static skill read and verified; SKILL.md texts by URI."""
    texts = {}
    for entry in entries:
        content = await client.skills.load(entry)
        texts[entry.uri] = content.text
        if entry.resources is not None:
            assert content.verified
            for f in entry.resources:
                assert (await client.skills.read(entry, f.uri)).verified
    return texts


CHILD_URIS = {
    "skill://pdf-processing/SKILL.md",
    "skill://pdf-processing/forms/SKILL.md",
    "skill://acme/billing/refunds/SKILL.md",
    "skill://reports/daily/SKILL.md",
}


async def test_a_prefixed_mount_serves_the_childs_skills_under_its_prefix(
    tmp_path: Path, era: str, transport: str, wire: Any
) -> None:
    gateway = Server("gateway")
    gateway.add_skill({"SKILL.md": OWN_SKILL}, path="house-rules")
    gateway.mount(make_server(tmp_path), prefix="docs")
    async with connect(gateway, era, transport, wire) as c:
        assert c.skills.supported
        entries = await c.skills.list()
        uris = {e.uri for e in entries}
        assert uris == {"skill://house-rules/SKILL.md"} | {
            u.replace("skill://", "skill://docs/") for u in CHILD_URIS
        }
        assert {e.name for e in entries} >= {"pdf-processing", "refunds", "daily", "forms"}
        texts = await verify_all(c, entries)
        assert texts["skill://docs/acme/billing/refunds/SKILL.md"].endswith("Be kind.\n")
        assert texts["skill://house-rules/SKILL.md"] == OWN_SKILL
        got = await c.skills.get("skill://docs/pdf-processing/SKILL.md")
        assert got.uri == "skill://docs/pdf-processing/SKILL.md"
        assert all(f.uri.startswith("skill://docs/pdf-processing/") for f in got.resources or ())
        invoice = await c.skills.read(got, "templates/invoice.md")
        assert invoice.text == "# Invoice\n" and invoice.uri.startswith("skill://docs/")
        listed = {str(r.uri) for r in await c.list_resources()}
        assert "skill://docs/pdf-processing/SKILL.md" in listed
        root = {str(r.uri) for r in await c.skills.read_directory("skill://docs")}
        assert root == {
            "skill://docs/pdf-processing",
            "skill://docs/acme",
            "skill://docs/reports",
        }
        inside = {str(r.uri) for r in await c.skills.read_directory("skill://docs/pdf-processing")}
        assert "skill://docs/pdf-processing/templates" in inside
        assert "skill://docs/pdf-processing/SKILL.md" in inside
        with pytest.raises(McpError) as exc:
            await c.skills.get("skill://docs/nothing-here/SKILL.md")
        assert exc.value.code == -32602
        assert "skill://docs/nothing-here/SKILL.md" in exc.value.message


async def test_an_unprefixed_mount_serves_the_same_uris(
    tmp_path: Path, era: str, wire: Any
) -> None:
    gateway = Server("gateway")
    gateway.mount(make_server(tmp_path))
    async with Client(gateway, era=era, tracer=wire()) as c:
        entries = await c.skills.list()
        assert {e.uri for e in entries} == CHILD_URIS
        await verify_all(c, entries)
        assert (await c.skills.get("skill://acme/billing/refunds/SKILL.md")).name == "refunds"


async def test_a_parent_without_skills_answers_method_not_found(era: str) -> None:
    gateway = Server("gateway")
    plain = Server("plain")

    @plain.tool()
    def ping() -> str:
        return "pong"

    gateway.mount(plain, prefix="p")
    async with Client(gateway, era=era) as c:
        assert not c.skills.supported
        with pytest.raises(McpError) as exc:
            await c.request("skills/list", {})
        assert exc.value.code == -32601


async def test_a_proxy_forwards_skills(tmp_path: Path, era: str, transport: str, wire: Any) -> None:
    upstream = make_server(tmp_path)
    proxy = ProxyServer(upstream)
    async with connect(proxy, era, transport, wire) as c:
        assert c.skills.supported
        entries = await c.skills.list()
        assert {e.uri for e in entries} == CHILD_URIS
        texts = await verify_all(c, entries)
        assert "Be kind." in texts["skill://acme/billing/refunds/SKILL.md"]
        got = await c.skills.get("skill://pdf-processing/SKILL.md")
        blob = await c.skills.read(got, "scripts/extract.bin")
        assert blob.data == bytes(range(256)) and blob.verified
        inside = {str(r.uri) for r in await c.skills.read_directory("skill://pdf-processing")}
        assert "skill://pdf-processing/templates" in inside


async def test_a_mounted_proxy_serves_skills_under_its_prefix(
    tmp_path: Path, era: str, wire: Any
) -> None:
    gateway = Server("gateway")
    gateway.mount(ProxyServer(make_server(tmp_path)), prefix="up")
    async with gateway.running(), Client(gateway, era=era, tracer=wire()) as c:
        entries = await c.skills.list()
        assert {e.uri for e in entries} == {
            u.replace("skill://", "skill://up/") for u in CHILD_URIS
        }
        await verify_all(c, entries)


async def test_mcpkit_proxy_forwards_skills(tmp_path: Path, era: str) -> None:
    import shlex
    import sys

    from mcpkit.transports.http import running

    upstream = make_server(tmp_path)
    async with running(upstream.http_app()) as base:
        command = shlex.join([sys.executable, "-m", "mcpkit", "proxy", f"{base}/mcp"])
        async with Client(command, era=era) as c:
            assert c.skills.supported
            entries = await c.skills.list()
            assert {e.uri for e in entries} == CHILD_URIS
            texts = await verify_all(c, entries)
            assert texts["skill://reports/daily/SKILL.md"].endswith("Run it.\n")
