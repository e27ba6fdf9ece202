"""The Skills extension against fastmcp's independent implementation (both run from its
own interpreter, 2026-07-28 over Streamable HTTP): mcpkit's client lists, gets and reads,
verified, the skills of a fastmcp server; fastmcp's client, which checks every file against
its size, digest and frontmatter, reads mcpkit's skills whole."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mcpkit import Client, Server
from mcpkit.transports.http import running
from tests.interop.conftest import PEERS_DIR

PEERS = Path(__file__).resolve().parent / "peers"
FASTMCP_PYTHON = PEERS_DIR / "fastmcp" / "bin" / "python"
SKILL_MD = (
    "---\nname: pdf-processing\ndescription: Fill and assemble PDFs\nlicense: MIT\n---\nBody.\n"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def skills_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    skill = root / "pdf-processing"
    (skill / "templates").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "templates" / "invoice.md").write_text("# Invoice\n")
    (skill / "scripts").mkdir()
    (skill / "scripts" / "fill.bin").write_bytes(bytes(range(200)))
    return root


def on_disk(root: Path) -> dict[str, str]:
    skill = root / "pdf-processing"
    return {
        p.relative_to(skill).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(skill.rglob("*"))
        if p.is_file()
    }


@contextlib.asynccontextmanager
async def fastmcp_server(root: Path) -> AsyncIterator[str]:
    if not FASTMCP_PYTHON.exists():
        pytest.fail(f"fastmcp is not installed ({FASTMCP_PYTHON}): run scripts/peers.sh")
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        str(FASTMCP_PYTHON),
        str(PEERS / "fastmcp_skills_server.py"),
        str(port),
        str(root),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            if proc.returncode is not None:
                raise RuntimeError(f"the fastmcp server exited ({proc.returncode})")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            writer.close()
            break
        else:
            raise RuntimeError("the fastmcp server did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def test_mcpkit_client_reads_a_fastmcp_skills_server(tmp_path: Path, wire: object) -> None:
    root = skills_root(tmp_path)
    async with fastmcp_server(root) as url:
        async with Client(url, era="2026-07-28", tracer=wire()) as client:  # type: ignore[operator]
            assert client.skills.supported
            [entry] = await client.skills.list()
            assert entry.uri == "skill://pdf-processing/SKILL.md"
            assert dict(entry.frontmatter) == {
                "name": "pdf-processing",
                "description": "Fill and assemble PDFs",
                "license": "MIT",
            }
            assert await client.skills.get(entry.uri) == entry
            assert (await client.skills.load(entry)).text == SKILL_MD
            read = {}
            for f in entry.resources or ():
                content = await client.skills.read(entry, f.uri)
                assert content.verified
                read[f.uri.removeprefix(entry.root + "/")] = hashlib.sha256(
                    content.data
                ).hexdigest()
    assert read == on_disk(root)


async def test_fastmcp_client_reads_mcpkit_skills(tmp_path: Path) -> None:
    if not FASTMCP_PYTHON.exists():
        pytest.fail(f"fastmcp is not installed ({FASTMCP_PYTHON}): run scripts/peers.sh")
    root = skills_root(tmp_path)
    app = Server("mcpkit-skills")
    app.add_skills(root)

    @app.skill("reports/daily", dynamic=True)
    def daily() -> dict[str, str]:
        return {"SKILL.md": "---\nname: daily\ndescription: Today\n---\nRun it.\n"}

    async with running(app.http_app()) as base:
        proc = await asyncio.create_subprocess_exec(
            str(FASTMCP_PYTHON),
            str(PEERS / "fastmcp_skills_client.py"),
            f"{base}/mcp",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert json.loads(out) == {
        "skill://pdf-processing/SKILL.md": {"name": "pdf-processing", "files": on_disk(root)},
        "skill://reports/daily/SKILL.md": {"name": "daily", "dynamic": True},
    }
