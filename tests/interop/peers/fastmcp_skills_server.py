"""A fastmcp server serving the skill folders under ROOT through its own implementation of
the Skills extension (SkillsDirectoryProvider). Run with fastmcp's interpreter:
``python fastmcp_skills_server.py PORT ROOT``."""

import sys

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

port, root = int(sys.argv[1]), sys.argv[2]
mcp = FastMCP("fastmcp-skills")
mcp.add_provider(SkillsDirectoryProvider(root))
mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
