"""A deliberately broken stdio server that answers from a script (for the bad-input tests).

The script (JSON in the ``SCRIPT`` environment variable) maps a method to a list of actions,
used in order (the last one repeats). Each action is a dict with one or more of:

- ``"notify"``: a notification object written before the reply;
- ``"raw"``: a line written as is (``{id}`` is replaced by the request id);
- ``"result"`` / ``"error"``: the reply;
- ``"ignore"``: no reply at all;
- ``"exit"``: write ``"stderr"`` to stderr, then exit with this code.

``initialize`` gets a valid 2025-11-25 result unless the script says otherwise.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}, "logging": {}, "resources": {}},
    "serverInfo": {"name": "scripted", "version": "0"},
}


def main() -> None:
    script: dict[str, list[dict[str, Any]]] = json.loads(os.environ.get("SCRIPT", "{}"))
    out = sys.stdout
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
            continue
        method, rid = msg["method"], msg["id"]
        actions = script.get(method)
        if actions is None:
            action: dict[str, Any] = {"result": INIT if method == "initialize" else {}}
        else:
            action = actions.pop(0) if len(actions) > 1 else actions[0]
        if "notify" in action:
            out.write(json.dumps(action["notify"]) + "\n")
        if "exit" in action:
            sys.stderr.write(action.get("stderr", ""))
            sys.stderr.flush()
            out.flush()
            os._exit(action["exit"])
        if "raw" in action:
            out.write(action["raw"].replace("{id}", json.dumps(rid)) + "\n")
        elif "result" in action:
            out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": action["result"]}) + "\n")
        elif "error" in action:
            out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": action["error"]}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
