"""Serve an official SDK example's HTTP app over uvicorn, unchanged: ``sdk_auth_app.py
[DIR:]MODULE ATTR PORT [json]`` imports MODULE from ``tests/compat/examples/DIR``
(``official_v2_auth`` by default);
ATTR is a ``build_app`` function (called) or a server (its ``streamable_http_app()``, with
``json_response`` when ``json`` is given). Run by the SDK's interpreter, or on mcpkit with
``python -m mcpkit.compat``."""

import importlib
import sys
from pathlib import Path

import uvicorn

folder, _, name = sys.argv[1].rpartition(":")
examples = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(examples / (folder or "official_v2_auth")))
module = importlib.import_module(name)
target = getattr(module, sys.argv[2])
if callable(target) and not hasattr(target, "streamable_http_app"):
    app = target()
else:
    app = target.streamable_http_app(**({"json_response": True} if len(sys.argv) > 4 else {}))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="error")
