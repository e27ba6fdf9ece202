"""What a proxy declares: the upstream's capabilities as each revision has them.

Tasks stay within their era or are translated across (a handshake-era upstream's 2025-11-25
task-augmented ``tools/call`` offered as the 2026 tasks extension, a 2026-07-28 upstream's
tasks extension offered as 2025-11-25 tasks, see :mod:`mcpkit.proxy.tasks`); the Skills
extension is forwarded as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcpkit.jsonrpc import JSONObject
from mcpkit.skills import EXTENSION_ID as SKILLS_EXTENSION_ID
from mcpkit.tasks.related import EXTENSION_ID
from mcpkit.versions import ProtocolVersion

__all__ = ["LEGACY_TASKS_CAPABILITY", "proxied_capabilities"]

#: The 2025-11-25 ``tasks`` capability the proxy declares for an upstream with the extension.
LEGACY_TASKS_CAPABILITY: Final[Mapping[str, Any]] = {
    "list": {},
    "cancel": {},
    "requests": {"tools": {"call": {}}},
}


def proxied_capabilities(
    upstream: Mapping[str, Any], version: ProtocolVersion, modern_upstream: bool
) -> JSONObject:
    """The capabilities ``upstream`` declared (``modern_upstream``: over 2026-07-28) as a
    proxy declares them to a client of ``version``."""
    caps = {k: v for k, v in upstream.items() if k not in ("tasks", "extensions")}
    if version.era == "modern":
        if modern_upstream and "extensions" in upstream:
            caps["extensions"] = upstream["extensions"]
        if modern_upstream and "tasks" in upstream:
            caps["tasks"] = upstream["tasks"]
        if not modern_upstream and _tool_tasks(upstream):
            # 2025-11-25 task-augmented calls, offered as the tasks extension
            caps["extensions"] = {EXTENSION_ID: {}}
    else:
        if not modern_upstream and "tasks" in upstream and version.tasks:
            caps["tasks"] = upstream["tasks"]
        extensions = upstream.get("extensions")
        if modern_upstream and version.tasks and EXTENSION_ID in (extensions or {}):
            # the tasks extension, offered as 2025-11-25 tasks
            caps["tasks"] = dict(LEGACY_TASKS_CAPABILITY)
        if "completions" in caps and not version.audio:
            del caps["completions"]
    skills = (upstream.get("extensions") or {}).get(SKILLS_EXTENSION_ID)
    if isinstance(skills, dict):  # the Skills extension: its methods are forwarded
        caps["extensions"] = {**(caps.get("extensions") or {}), SKILLS_EXTENSION_ID: skills}
    return caps


def _tool_tasks(capabilities: Mapping[str, Any]) -> bool:
    """True when 2025-11-25 ``capabilities`` declare task-augmented ``tools/call``."""
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and isinstance(tools.get("call"), dict)
