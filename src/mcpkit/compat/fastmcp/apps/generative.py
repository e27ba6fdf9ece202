"""fastmcp's ``GenerativeUI``: tools with which the model writes Prefab Python code that runs
in prefab-ui's sandbox and renders as a UI (``generate_prefab_ui``), a search of the Prefab
component library (``search_prefab_components``) and the renderer resource of that UI.

The tools are prefab-ui's own functions (``prefab_ui.generative``), described by their own
docstrings, as fastmcp serves them. The code runs in prefab-ui's Pyodide sandbox, which needs
Deno on the ``PATH`` and the network (Pyodide and packages from their CDNs): without them a
call answers an error result saying what is missing, as on fastmcp."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcpkit.compat.fastmcp.apps._builtin import missing_prefab
from mcpkit.compat.fastmcp.apps.config import (
    UI_MIME_TYPE,
    AppConfig,
    ResourceCSP,
    app_config_to_meta_dict,
)

try:
    import prefab_ui.generative as generative
    from prefab_ui.app import PrefabApp
    from prefab_ui.renderer import get_generative_renderer_csp, get_generative_renderer_html
except ImportError as exc:  # pragma: no cover - prefab-ui is installed with the apps
    raise ImportError(missing_prefab("GenerativeUI")) from exc

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._server import FastMCP

__all__ = ["GenerativeUI"]

#: The renderer resource's name, as fastmcp lists it.
RENDERER_NAME = "Prefab Generative Renderer"


class GenerativeUI:
    """A provider (``mcp.add_provider(GenerativeUI())``) serving the generative UI tools and
    their renderer on each server it is added to."""

    def __init__(
        self,
        *,
        tool_name: str = "generate_prefab_ui",
        include_components_tool: bool = True,
        components_tool_name: str = "search_prefab_components",
    ) -> None:
        self._tool_name = tool_name
        self._components_tool_name = components_tool_name
        self._include_components_tool = include_components_tool
        self._sandbox: Any = None

    def __repr__(self) -> str:
        return f"GenerativeUI(tool_name={self._tool_name!r})"

    def _get_sandbox(self) -> Any:
        """prefab-ui's sandbox, made on the first call (one per provider)."""
        if self._sandbox is None:
            from prefab_ui.sandbox import Sandbox

            self._sandbox = Sandbox()
        return self._sandbox

    def install(self, server: FastMCP) -> None:
        """Serve the tools and the renderer resource on ``server``."""
        provider = self

        async def generate_ui(code: str, data: str | dict[str, Any] | None = None) -> PrefabApp:
            values = (json.loads(data) if data.strip() else None) if isinstance(data, str) else data
            app: PrefabApp = await generative.execute(
                code, data=values, sandbox=provider._get_sandbox()
            )
            return app

        server._add_tool(
            generate_ui,
            self._tool_name,
            description=generative.execute.__doc__ or "",
            app=AppConfig(resource_uri=generative.RESOURCE_URI),
        )
        if self._include_components_tool:
            server._add_tool(
                generative.search_components,
                self._components_tool_name,
                description=generative.search_components.__doc__ or "",
            )
        csp = get_generative_renderer_csp()
        config = AppConfig(
            csp=ResourceCSP(
                resource_domains=csp.get("resource_domains"),
                connect_domains=csp.get("connect_domains"),
            )
        )
        meta = {"ui": app_config_to_meta_dict(config)}

        def renderer() -> dict[str, Any]:  # no docstring: the resource has no description
            return {"text": get_generative_renderer_html(), "_meta": meta}

        options = {
            "name": RENDERER_NAME,
            "mime_type": UI_MIME_TYPE,
            "meta": {**meta, "fastmcp": {"tags": []}},
        }
        server.native.registration.add_resource(renderer, generative.RESOURCE_URI, options)
