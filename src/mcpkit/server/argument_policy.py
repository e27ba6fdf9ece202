"""How a tool's arguments are checked: chosen once per registry, read at registration.

mcpkit's own rule (:data:`STRICT`) takes the generated input schema as the contract: JSON
types exactly (``"5"`` is not an integer), unknown arguments refused, a short message
naming each offending field. A compat layer serving another SDK's servers picks that SDK's
rule instead (:data:`OFFICIAL_SDK`, :data:`FASTMCP`), so a server written for it gets the
same answers; nothing of this is looked at per call on an accepted call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["FASTMCP", "FASTMCP_STRICT", "OFFICIAL_SDK", "STRICT", "ArgumentPolicy"]


@dataclass(frozen=True, slots=True)
class ArgumentPolicy:
    """The rules a tool's arguments are checked by.

    ``unknown``: an argument the function does not take is refused or dropped.
    ``lax``: pydantic's lax conversion decides (``"1"`` for an ``int``, nested too)
    instead of the input schema's JSON types.
    ``json_text``: a string given for a parameter not typed ``str`` is first read as JSON
    when it holds an array, an object or ``null``.
    ``report``: ``"short"`` names each offending field; ``"pydantic"`` is pydantic's whole
    validation report (``1 validation error for <function>Arguments ...``).
    ``model_name``: the arguments model (and so the report) is named after the tool or
    after its function.
    ``errors_as_results``: refused arguments are an error result in every protocol
    revision (else a JSON-RPC error where the revision says so).
    """

    unknown: Literal["refuse", "ignore"] = "refuse"
    lax: bool = False
    json_text: bool = False
    report: Literal["short", "pydantic"] = "short"
    model_name: Literal["tool", "function"] = "tool"
    errors_as_results: bool = False


#: mcpkit's own rule: the input schema is the contract.
STRICT = ArgumentPolicy()

#: The official SDK's high-level server (1.x ``FastMCP``, 2.x ``MCPServer``): its
#: ``<function>Arguments`` model validated in pydantic's lax mode, unknown arguments
#: ignored, JSON text in strings read first, pydantic's report as an error result.
OFFICIAL_SDK = ArgumentPolicy(
    unknown="ignore",
    lax=True,
    json_text=True,
    report="pydantic",
    model_name="function",
    errors_as_results=True,
)

#: fastmcp (its default, ``strict_input_validation`` off): the function's arguments in
#: pydantic's lax mode, unknown arguments refused, pydantic's report as an error result.
FASTMCP = ArgumentPolicy(
    unknown="refuse",
    lax=True,
    report="pydantic",
    model_name="function",
    errors_as_results=True,
)

#: fastmcp with ``strict_input_validation``: JSON types exactly, as mcpkit's own rule, with
#: fastmcp's report.
FASTMCP_STRICT = ArgumentPolicy(report="pydantic", model_name="function", errors_as_results=True)
