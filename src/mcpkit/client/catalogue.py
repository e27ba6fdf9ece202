"""The client's tool catalogue: what it knows of each tool beyond its listing.

For every tool seen in a ``tools/list`` page the catalogue keeps its ``outputSchema`` (and
the validator compiled from it, once) and its ``execution.taskSupport``. A tool result is
checked here: ``structuredContent`` against the tool's output schema, ``isError`` turned
into :class:`~mcpkit.client.errors.ToolError` on request. A tool not in the catalogue
makes it list the tools again (once, shared by concurrent callers). The catalogue is
forgotten on reconnect and on ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from mcpkit.client._util import logger
from mcpkit.client.errors import OutputSchemaError, ToolError
from mcpkit.client.results import parse
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.json_schema import InvalidSchemaError, SchemaValidator, UnsupportedDialectError
from mcpkit.jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.types import CallToolResult

__all__ = ["ToolCatalogue"]


class ToolCatalogue:
    """Output schemas, their validators and task support of the server's tools.

    ``list_tools`` lists every tool and feeds the pages back through :meth:`remember`
    (``Client.list_tools``)."""

    def __init__(self, list_tools: Callable[[], Coroutine[Any, Any, object]]) -> None:
        self._list_tools = list_tools
        # tool name -> execution.taskSupport (None: absent), from the last tools/list pages
        self._task_support: dict[str, str | None] = {}
        # tools annotated idempotentHint or readOnlyHint: a call is safe to send again
        self._repeatable: set[str] = set()
        # tool name -> raw outputSchema (None: no schema); None as a whole: not (freshly) listed
        self._output_schemas: dict[str, JSONObject | None] | None = None
        self._complete = False
        self._validators: dict[str, SchemaValidator | OutputSchemaError] = {}
        self._refreshing: asyncio.Future[object] | None = None

    # -- what the tools/list pages said --------------------------------------------------------

    def remember(self, raw_tools: list[Any], *, replace: bool) -> None:
        """Note the tools of a ``tools/list`` page (wire form); ``replace`` for a full list."""
        old = self._output_schemas
        schemas: dict[str, JSONObject | None] = {} if replace or old is None else old
        if replace:
            self._task_support = {}
            self._repeatable = set()
        for tool in raw_tools:
            name = tool.get("name")
            hints = tool.get("annotations")
            if isinstance(hints, dict) and (
                hints.get("idempotentHint") is True or hints.get("readOnlyHint") is True
            ):
                self._repeatable.add(name)
            else:
                self._repeatable.discard(name)
            execution = tool.get("execution")
            support = execution.get("taskSupport") if isinstance(execution, dict) else None
            self._task_support[name] = support if isinstance(support, str) else None
            schema = tool.get("outputSchema")
            if not isinstance(schema, dict):
                schema = None
            if old is not None and old.get(name) != schema:
                self._validators.pop(name, None)
            schemas[name] = schema
        if replace:
            self._validators = {k: v for k, v in self._validators.items() if k in schemas}
            self._complete = True
        self._output_schemas = schemas

    def forget(self) -> None:
        """Forget every tool (the list changed, or a new connection)."""
        self._task_support = {}
        self._repeatable = set()
        self._output_schemas = None
        self._complete = False
        self._validators.clear()

    def knows(self, name: str) -> bool:
        """True when tool ``name`` was in a listed page since the catalogue was last reset."""
        return name in self._task_support

    def task_support(self, name: str) -> str | None:
        """Tool ``name``'s ``execution.taskSupport`` (None: absent, or the tool is unknown)."""
        return self._task_support.get(name)

    def repeatable(self, name: str) -> bool:
        """True when tool ``name`` was listed as idempotent or read-only (its annotations):
        a call cut off mid-way may be sent again."""
        return name in self._repeatable

    def requires_task(self, name: str) -> bool:
        """True when tool ``name`` is known to need a task-augmented call."""
        return self._task_support.get(name) == "required"

    async def refresh(self) -> None:
        """List the tools again (one listing shared by concurrent callers); a failure is
        logged and leaves structured results unchecked until the next full listing."""
        task = self._refreshing
        if task is None or task.done():
            task = self._refreshing = asyncio.ensure_future(self._list_tools())
        try:
            await asyncio.shield(task)
        except (McpError, ConnectionClosed) as exc:
            logger.warning(
                "Could not list tools to learn their output schemas (%s); "
                "structured results are not checked until the next list_tools()",
                exc,
            )
            if self._output_schemas is None:
                self._output_schemas = {}
            self._complete = True

    # -- checking results ----------------------------------------------------------------------

    async def tool_result(
        self,
        name: str | None,
        raw: Any,
        *,
        validate: bool,
        raise_on_error: bool,
        method: str = "tools/call",
    ) -> CallToolResult:
        """``raw`` as a ``CallToolResult`` of tool ``name`` (None: not known, as for a task
        this client did not create): its structured content checked when ``validate``, and
        :class:`ToolError` for ``isError`` with ``raise_on_error``."""
        from mcpkit.types import CallToolResult, TextContent

        result = parse(CallToolResult, raw, method)
        if name is None:
            name = "?"
        elif validate and not result.is_error:
            await self.check_output(name, raw)
        if raise_on_error and result.is_error:
            texts = [b.text for b in result.content if isinstance(b, TextContent) and b.text]
            raise ToolError(name, "; ".join(texts) or "the tool reported an error", result)
        return result

    async def check_output(self, name: str, raw: JSONObject) -> None:
        """Check ``raw``'s ``structuredContent`` against tool ``name``'s ``outputSchema``."""
        validator = await self.output_validator(name)
        if validator is None:
            return
        structured = raw.get("structuredContent")
        if structured is None:
            raise OutputSchemaError(
                name, "the tool declares an outputSchema but the result has no structuredContent"
            )
        if validator.is_valid(structured):
            return
        errors = validator.errors(structured)
        if errors:
            raise OutputSchemaError(
                name,
                "structuredContent does not match the outputSchema: " + "; ".join(errors),
                errors,
            )

    async def output_validator(self, name: str) -> SchemaValidator | None:
        """The validator of tool ``name``'s ``outputSchema`` (None: it declares none);
        compiled once, the tools listed first when ``name`` is not known yet."""
        schemas = self._output_schemas
        if not self._complete and (schemas is None or name not in schemas):
            await self.refresh()
            schemas = self._output_schemas
        schema = schemas.get(name) if schemas is not None else None
        if schema is None:
            return None
        cached = self._validators.get(name)
        if cached is None:
            try:
                cached = SchemaValidator(schema)
            except (UnsupportedDialectError, InvalidSchemaError) as exc:
                cached = OutputSchemaError(name, f"its outputSchema cannot be used: {exc}")
            self._validators[name] = cached
        if isinstance(cached, OutputSchemaError):
            raise cached
        return cached
