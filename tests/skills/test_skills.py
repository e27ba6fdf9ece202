"""The Skills extension (io.modelcontextprotocol/skills), both roles, both eras, in memory
and over Streamable HTTP: every message is checked against the official schema of its
revision and the extension's own shapes (tests/skills/wire_skills.py)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from mcpkit.client.skills import (
    InvalidSkillEntry,
    SkillEntry,
    SkillsNotSupported,
    SkillVerificationError,
)
from mcpkit.skills import EXTENSION_ID, SkillFormatError
from tests.ways import connect

PDF_SKILL_MD = """---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  version: "2.1.0"
created: 2026-01-05
---

# PDF processing

Choose the matching template from `templates/`.
"""
REFUNDS_SKILL_MD = "---\nname: refunds\ndescription: Process refunds per policy\n---\nBe kind.\n"


def skills_tree(root: Path) -> Path:
    """skills/pdf-processing (templates, a nested skill, a binary script) on disk."""
    pdf = root / "skills" / "pdf-processing"
    (pdf / "templates" / "regional").mkdir(parents=True)
    (pdf / "scripts").mkdir()
    (pdf / "SKILL.md").write_text(PDF_SKILL_MD)
    (pdf / "templates" / "invoice.md").write_text("# Invoice\n")
    (pdf / "templates" / "regional" / "eu-invoice.md").write_text("# EU invoice\r\nwith CRLF\n")
    (pdf / "scripts" / "extract.bin").write_bytes(bytes(range(256)))
    (pdf / ".hidden").write_text("not served")
    nested = pdf / "forms"
    nested.mkdir()
    (nested / "SKILL.md").write_text("---\nname: forms\ndescription: Fill forms\n---\nFill.\n")
    return root / "skills"


def make_server(tmp_path: Path, **options: Any) -> Server:
    app = Server("skills", **options)
    app.add_skills(skills_tree(tmp_path))
    app.add_skill(
        {"SKILL.md": REFUNDS_SKILL_MD, "examples/email.md": "Dear customer,\n"},
        path="acme/billing/refunds",
        ttl_ms=60_000,
        cache_scope="public",
    )

    @app.skill("reports/daily", dynamic=True)
    async def daily() -> dict[str, str]:
        return {
            "SKILL.md": "---\nname: daily\ndescription: Today's report\n---\nRun it.\n",
            "data/today.json": '{"ok": true}',
        }

    return app


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


async def test_list_get_read_and_directories(
    tmp_path: Path, era: str, transport: str, wire: Any
) -> None:
    app = make_server(tmp_path)
    pdf = tmp_path / "skills" / "pdf-processing"
    async with connect(app, era, transport, wire) as client:
        assert client.skills.supported and client.skills.directory_read
        caps = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert caps["extensions"][EXTENSION_ID] == {"directoryRead": True}
        assert "resources" in caps

        entries = {e.uri: e for e in await client.skills.list()}
        assert set(entries) == {
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/forms/SKILL.md",
            "skill://acme/billing/refunds/SKILL.md",
            "skill://reports/daily/SKILL.md",
        }
        entry = entries["skill://pdf-processing/SKILL.md"]
        # The frontmatter verbatim (a date stays the string the author wrote).
        assert entry.frontmatter == {
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "license": "Apache-2.0",
            "metadata": {"version": "2.1.0"},
            "created": "2026-01-05",
        }
        # The manifest: every served file (the nested skill's too, no hidden file), with
        # the size and digest of the bytes on disk.
        on_disk = {
            "skill://pdf-processing/" + p.relative_to(pdf).as_posix(): p.read_bytes()
            for p in pdf.rglob("*")
            if p.is_file() and not p.name.startswith(".")
        }
        assert entry.resources is not None
        assert {f.uri: (f.size, f.digest) for f in entry.resources} == {
            uri: (len(data), sha(data)) for uri, data in on_disk.items()
        }
        assert entries["skill://reports/daily/SKILL.md"].dynamic

        # skills/get answers the same entry; every file reads back verified.
        assert await client.skills.get(entry.uri) == entry
        for uri, data in on_disk.items():
            content = await client.skills.read(entry, uri)
            assert content.data == data and content.verified
        assert (await client.skills.load(entry)).text == PDF_SKILL_MD
        blob = await client.skills.read(entry, "scripts/extract.bin")
        assert blob.data == bytes(range(256)) and blob.mime_type == "application/octet-stream"

        nested = entries["skill://pdf-processing/forms/SKILL.md"]
        assert (await client.skills.load(nested)).text.endswith("Fill.\n")

        refunds = entries["skill://acme/billing/refunds/SKILL.md"]
        assert (await client.skills.read(refunds, "examples/email.md")).text == "Dear customer,\n"
        daily = entries["skill://reports/daily/SKILL.md"]
        assert (await client.skills.read(daily, "data/today.json")).verified is False
        with pytest.raises(SkillVerificationError, match="dynamic"):
            await client.skills.load(daily, allow_dynamic=False)

        # SKILL.md files are resources with their frontmatter's name and description.
        listed = {r.uri: r for r in await client.list_resources()}
        assert listed["skill://pdf-processing/SKILL.md"].name == "pdf-processing"
        assert listed["skill://pdf-processing/SKILL.md"].mime_type == "text/markdown"
        assert listed["skill://acme/billing/refunds/SKILL.md"].description == (
            "Process refunds per policy"
        )

        children = await client.skills.read_directory("skill://pdf-processing/templates")
        assert [(c.uri, c.mime_type) for c in children] == [
            ("skill://pdf-processing/templates/invoice.md", "text/markdown"),
            ("skill://pdf-processing/templates/regional", "inode/directory"),
        ]
        root = await client.skills.read_directory("skill://pdf-processing")
        assert [c.name for c in root] == ["SKILL.md", "forms", "scripts", "templates"]
        prefix = await client.skills.read_directory("skill://acme")
        assert [(c.uri, c.mime_type) for c in prefix] == [
            ("skill://acme/billing", "inode/directory")
        ]
        dynamic = await client.skills.read_directory("skill://reports/daily/data")
        assert [c.name for c in dynamic] == ["today.json"]


async def test_caching_hints_only_on_the_modern_wire(tmp_path: Path, era: str, wire: Any) -> None:
    async with connect(make_server(tmp_path), era, "memory", wire) as client:
        got = await client.request("skills/get", {"uri": "skill://acme/billing/refunds/SKILL.md"})
        listed = await client.request("skills/list", {})
    if era == "legacy":
        assert "ttlMs" not in got and "cacheScope" not in listed
    else:
        assert (got["ttlMs"], got["cacheScope"]) == (60_000, "public")
        # The list combines every skill's: the others have the server's default.
        assert (listed["ttlMs"], listed["cacheScope"]) == (0, "private")


async def test_errors_are_invalid_params(
    tmp_path: Path, era: str, transport: str, wire: Any
) -> None:
    async with connect(make_server(tmp_path), era, transport, wire) as client:
        for method, uri, message in (
            ("skills/get", "skill://acme/billing/chargebacks/SKILL.md", "No skill is served"),
            ("skills/get", "skill://pdf-processing/templates/invoice.md", "No skill is served"),
            ("resources/directory/read", "skill://pdf-processing/SKILL.md", "not a directory"),
            ("resources/directory/read", "skill://nowhere", "not a directory"),
            ("resources/directory/read", "skill://pdf-processing/templates/", "not a directory"),
        ):
            with pytest.raises(McpError, match=message) as caught:
                await client.request(method, {"uri": uri})
            assert caught.value.code == -32602
        with pytest.raises(McpError) as caught:
            await client.request("skills/list", {"cursor": "bogus"})
        assert caught.value.code == -32602
        # Files outside what a skill serves are not found (no path leaves the skill).
        for uri in (
            "skill://pdf-processing/.hidden",
            "skill://pdf-processing/../../etc/passwd",
            "skill://pdf-processing/%2E%2E/%2E%2E/etc/passwd",
            "skill://pdf-processing/nothing.md",
        ):
            with pytest.raises(McpError) as caught:
                await client.read_resource(uri)
            assert caught.value.code == (-32002 if era == "legacy" else -32602)
    async with Client(make_server(tmp_path / "x"), era=era) as client:  # not a valid request
        with pytest.raises(McpError) as caught:
            await client.request("skills/get", {})
        assert caught.value.code == -32602


async def test_the_client_refuses_what_fails_verification(
    tmp_path: Path, era: str, transport: str, wire: Any
) -> None:
    app = make_server(tmp_path)
    pdf = tmp_path / "skills" / "pdf-processing"
    async with connect(app, era, transport, wire) as client:
        entry = await client.skills.get("skill://pdf-processing/SKILL.md")
        # A file changes after the entry was fetched: same size, other bytes.
        (pdf / "templates" / "invoice.md").write_text("# Invoicf\n")
        with pytest.raises(SkillVerificationError, match="digest differs"):
            await client.skills.read(entry, "templates/invoice.md")
        # Another size.
        (pdf / "templates" / "invoice.md").write_text("# Invoice, longer\n")
        with pytest.raises(SkillVerificationError, match="bytes where the entry says"):
            await client.skills.read(entry, "templates/invoice.md")
        # A file added after the entry: unlisted, so refused without being read.
        (pdf / "templates" / "credit-note.md").write_text("# Credit\n")
        with pytest.raises(SkillVerificationError, match="not listed"):
            await client.skills.read(entry, "templates/credit-note.md")
        # The directory read sees it (a live view)...
        names = [
            c.name for c in await client.skills.read_directory("skill://pdf-processing/templates")
        ]
        assert "credit-note.md" in names
        # ...and a fresh entry lists it with the new digests: the reads verify again.
        fresh = await client.skills.get(entry.uri)
        assert fresh != entry
        assert (await client.skills.read(fresh, "templates/credit-note.md")).text == "# Credit\n"
        assert (await client.skills.read(fresh, "templates/invoice.md")).verified
        # A path leaving the skill is not a file of it.
        with pytest.raises(ValueError, match="leaves the skill"):
            await client.skills.read(fresh, "../../etc/passwd")
        with pytest.raises(ValueError, match="not a file of the skill"):
            await client.skills.read(fresh, "skill://acme/billing/refunds/SKILL.md")


async def test_frontmatter_must_match_the_entry(tmp_path: Path, era: str, wire: Any) -> None:
    app = make_server(tmp_path)
    real = app.handler_table()["skills/get"]

    async def lying_get(params: Any, rctx: Any) -> Any:
        result = dict(await real(params, rctx))
        skill = dict(result["skill"])
        skill["frontmatter"] = {**skill["frontmatter"], "description": "Something harmless"}
        result["skill"] = skill
        return result

    app.request_handler("skills/get")(lying_get)
    async with connect(app, era, "memory", wire) as client:
        entry = await client.skills.get("skill://pdf-processing/SKILL.md")
        assert entry.description == "Something harmless"
        with pytest.raises(SkillVerificationError, match=r"frontmatter differs .*description"):
            await client.skills.load(entry)
        # Supporting files carry no frontmatter check.
        assert (await client.skills.read(entry, "templates/invoice.md")).verified


def test_invalid_entries_are_refused() -> None:
    md = "skill://x/refunds/SKILL.md"
    good: dict[str, Any] = {
        "uri": md,
        "frontmatter": {"name": "refunds", "description": "d"},
        "resources": [{"uri": md, "digest": "sha256:" + "a" * 64, "size": 3}],
    }
    assert SkillEntry.parse(good).name == "refunds"
    bad_cases = [
        ({**good, "uri": "skill://x/refunds/README.md"}, "not the URI of a SKILL.md"),
        ({**good, "frontmatter": {"name": "other", "description": "d"}}, "not the skill's name"),
        ({**good, "frontmatter": {"name": "refunds"}}, "description"),
        ({k: v for k, v in good.items() if k != "resources"}, "resources must be"),
        ({**good, "resources": "static"}, "resources must be"),
        ({**good, "resources": []}, "do not list the SKILL.md"),
        (
            {**good, "resources": [{"uri": md, "digest": "sha256:AB", "size": 3}]},
            "no valid sha256",
        ),
        ({**good, "resources": [{"uri": md, "digest": "sha256:" + "a" * 64}]}, "no valid size"),
        (
            {
                **good,
                "resources": [
                    *good["resources"],
                    {"uri": "skill://y/SKILL.md", "digest": "sha256:" + "b" * 64, "size": 1},
                ],
            },
            "not a file of the skill",
        ),
        ({**good, "resources": good["resources"] * 2}, "listed twice"),
        (
            {
                **good,
                "resources": [{"uri": md, "digest": "sha256:" + "a" * 64, "size": 17 << 20}],
            },
            "more than 16777216",
        ),
        (
            {
                **good,
                "resources": [
                    {"uri": f"{md[:-8]}f{i}", "digest": "sha256:" + "a" * 64, "size": 1}
                    for i in range(512)
                ]
                + good["resources"],
            },
            "more than 512",
        ),
    ]
    for raw, message in bad_cases:
        with pytest.raises(InvalidSkillEntry, match=message):
            SkillEntry.parse(raw)


async def test_a_listing_leaves_invalid_entries_out(tmp_path: Path, wire: Any) -> None:
    app = make_server(tmp_path)
    real = app.handler_table()["skills/list"]

    async def with_a_bad_entry(params: Any, rctx: Any) -> Any:
        result = dict(await real(params, rctx))
        bad = {
            "uri": "skill://evil/SKILL.md",
            "frontmatter": {"name": "good", "description": "x"},
            "resources": "dynamic",
        }
        result["skills"] = [*result["skills"], bad]
        return result

    app.request_handler("skills/list")(with_a_bad_entry)
    async with connect(app, "2026-07-28", "memory", wire) as client:
        uris = [e.uri for e in await client.skills.list()]
    assert "skill://evil/SKILL.md" not in uris and len(uris) == 4


async def test_pagination_keeps_entries_whole(tmp_path: Path, era: str, wire: Any) -> None:
    app = make_server(tmp_path, page_size=1)
    async with connect(app, era, "memory", wire) as client:
        first = await client.request("skills/list", {})
        assert len(first["skills"]) == 1 and "nextCursor" in first
        assert len(await client.skills.list()) == 4
        children = await client.skills.read_directory("skill://pdf-processing")
        assert [c.name for c in children] == ["SKILL.md", "forms", "scripts", "templates"]


async def test_a_server_without_skills_is_not_asked(wire: Any) -> None:
    app = Server("plain")

    @app.resource("file:///x")
    def x() -> str:
        return "x"

    async with Client(app, era="2026-07-28", tracer=wire()) as client:
        assert not client.skills.supported
        with pytest.raises(SkillsNotSupported):
            await client.skills.list()
        with pytest.raises(McpError) as caught:
            await client.request("skills/list", {})
        assert caught.value.code == -32601


async def test_removing_skills(tmp_path: Path, wire: Any) -> None:
    app = make_server(tmp_path)
    app.remove_skill("skill://acme/billing/refunds/SKILL.md")
    app.remove_skill("reports/daily")
    async with Client(app, era="legacy", tracer=wire()) as client:
        uris = {e.uri for e in await client.skills.list()}
        assert uris == {"skill://pdf-processing/SKILL.md", "skill://pdf-processing/forms/SKILL.md"}
        assert "skill://acme/billing/refunds/SKILL.md" not in {
            r.uri for r in await client.list_resources()
        }
    for path in ("pdf-processing/forms", "pdf-processing"):
        app.remove_skill(path)
    assert "extensions" not in app.capabilities()
    assert "skills/list" not in app.handler_table()


def test_registration_checks_the_skill(tmp_path: Path) -> None:
    app = Server("s")
    with pytest.raises(SkillFormatError, match="must equal the last path segment"):
        app.add_skill({"SKILL.md": REFUNDS_SKILL_MD}, path="acme/chargebacks")
    with pytest.raises(SkillFormatError, match=r"has no SKILL\.md"):
        app.add_skill({"README.md": "x"}, path="refunds")
    with pytest.raises(SkillFormatError, match="frontmatter"):
        app.add_skill({"SKILL.md": "# no frontmatter"}, path="refunds")
    with pytest.raises(SkillFormatError, match="needs a string 'description'"):
        app.add_skill({"SKILL.md": "---\nname: refunds\n---\n"}, path="refunds")
    with pytest.raises(SkillFormatError, match="invalid skill name"):
        app.add_skill({"SKILL.md": "---\nname: Bad_Name\ndescription: d\n---\n"}, path="Bad_Name")
    with pytest.raises(ValueError, match="must be relative"):
        app.add_skill({"SKILL.md": REFUNDS_SKILL_MD, "../x": "y"}, path="refunds")
    with pytest.raises(SkillFormatError, match="hosts accept 512"):
        app.add_skill(
            {"SKILL.md": REFUNDS_SKILL_MD, **{f"f{i}": "x" for i in range(512)}}, path="refunds"
        )
    with pytest.raises(SkillFormatError, match=r"has no SKILL\.md"):
        app.add_skill(tmp_path)
    app.add_skill({"SKILL.md": REFUNDS_SKILL_MD}, path="refunds")
    with pytest.raises(ValueError, match="already served"):
        app.add_skill({"SKILL.md": REFUNDS_SKILL_MD}, path="refunds")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
async def test_symlinks_out_of_the_skill_are_not_served(tmp_path: Path, wire: Any) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password")
    skill = tmp_path / "refunds"
    skill.mkdir()
    (skill / "SKILL.md").write_text(REFUNDS_SKILL_MD)
    (skill / "inside.md").write_text("in")
    (skill / "leak.txt").symlink_to(secret)
    (skill / "alias.md").symlink_to(skill / "inside.md")
    app = Server("s")
    app.add_skill(skill)
    async with Client(app, era="2026-07-28", tracer=wire()) as client:
        entry = await client.skills.get("skill://refunds/SKILL.md")
        assert [f.uri.rsplit("/", 1)[1] for f in entry.resources or ()] == [
            "SKILL.md",
            "alias.md",
            "inside.md",
        ]
        with pytest.raises(McpError):
            await client.read_resource("skill://refunds/leak.txt")


async def test_verified_bytes_are_kept_while_the_digest_holds(tmp_path: Path, wire: Any) -> None:
    app = make_server(tmp_path)
    invoice = tmp_path / "skills" / "pdf-processing" / "templates" / "invoice.md"
    checker = wire()
    async with Client(app, era="2026-07-28", tracer=checker) as client:
        entry = await client.skills.get("skill://pdf-processing/SKILL.md")
        first = await client.skills.read(entry, "templates/invoice.md")
        reads = len(checker.sent("resources/read"))
        invoice.write_text("# Changed on the server\n")
        again = await client.skills.read(entry, "templates/invoice.md")
        assert again is first and again.text == "# Invoice\n"
        assert len(checker.sent("resources/read")) == reads == 1
