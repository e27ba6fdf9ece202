"""fastmcp_server.py (written for fastmcp) served by mcpkit: the same file, its ``fastmcp``
imports rewritten to ``mcpkit.compat.fastmcp``, run as ``__main__``.

Usage: python compat_fastmcp.py stdio [--tools N]
       python compat_fastmcp.py http --port P [--stateless] [--json-response] [--tools N]
"""

from __future__ import annotations

import re
from pathlib import Path

SOURCE = Path(__file__).with_name("fastmcp_server.py")

if __name__ == "__main__":
    text = re.sub(
        r"^(from|import) fastmcp(\.| )",
        r"\1 mcpkit.compat.fastmcp\2",
        SOURCE.read_text(),
        flags=re.M,
    )
    code = compile(text, str(SOURCE), "exec")
    exec(code, {"__name__": "__main__", "__file__": str(SOURCE)})
