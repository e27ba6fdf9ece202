"""mcp_mcpserver.py (written for the official SDK) served by mcpkit: the same file, its
``mcp.`` imports rewritten to ``mcpkit.compat.mcp.``, run as ``__main__``.

Usage: python compat_mcpserver.py stdio [--tools N]
       python compat_mcpserver.py http --port P [--stateless] [--json-response] [--tools N]
"""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = Path(__file__).with_name("mcp_mcpserver.py")

if __name__ == "__main__":
    text = re.sub(
        r"^(from|import) mcp(\.| )", r"\1 mcpkit.compat.mcp\2", SOURCE.read_text(), flags=re.M
    )
    code = compile(text, str(SOURCE), "exec")
    exec(code, {"__name__": "__main__", "__file__": str(SOURCE)})
