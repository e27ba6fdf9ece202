"""fastmcp's client against a Skills server: ``python fastmcp_skills_client.py URL``. Lists
the skills (skills/list), reads each listed skill whole with fastmcp's own verification
(skills/get, then every file checked against its size, digest and frontmatter) and prints
JSON: {skill uri: {"name", "files": {relative path: sha256 hex}}}, or {"error": ...}."""

import asyncio
import hashlib
import json
import sys

from fastmcp import Client
from fastmcp.skills import SkillsClientExtension


async def main(url: str) -> None:
    out: dict[str, object] = {}
    async with Client(url, extensions=[SkillsClientExtension()]) as client:
        for entry in await client.list_skills():
            if entry.resources == "dynamic":
                out[str(entry.uri)] = {"name": entry.frontmatter.name, "dynamic": True}
                continue
            skill = await client.read_skill(str(entry.uri))
            out[str(entry.uri)] = {
                "name": skill.name,
                "files": {
                    path: hashlib.sha256(data).hexdigest() for path, data in skill.files.items()
                },
            }
    print(json.dumps(out, sort_keys=True))


asyncio.run(main(sys.argv[1]))
