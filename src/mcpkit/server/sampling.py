"""Sampling from the server side: building ``sampling/createMessage`` and checking the client
declared what it needs (``sampling``; ``sampling.tools`` for tools; ``sampling.context`` for
``includeContext`` other than ``"none"``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcpkit._models import is_model
from mcpkit.jsonrpc import JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.server.content import content_block
from mcpkit.server.errors import ClientCapabilityError
from mcpkit.server.tools import wire_dict
from mcpkit.versions import ProtocolVersion

__all__ = [
    "build_params",
    "check_capabilities",
    "check_tool_messages",
    "to_sampling_messages",
    "uses_tools",
]

_TOOL_BLOCKS = frozenset({"tool_use", "tool_result"})


def to_sampling_messages(messages: str | Sequence[Any]) -> list[JSONObject]:
    """``"text"`` -> one user message; a list of strings, dicts or ``SamplingMessage`` models."""
    if isinstance(messages, str):
        messages = [messages]
    out: list[JSONObject] = []
    for m in messages:
        if isinstance(m, str):
            out.append({"role": "user", "content": {"type": "text", "text": m}})
        elif is_model(m):
            out.append(wire_dict(m, "message"))
        elif isinstance(m, dict) and "role" in m and "content" in m:
            content = m["content"]
            if not isinstance(content, (dict, list)):
                content = content_block(content)
            out.append({**m, "content": content})
        else:
            raise TypeError(f"Not a sampling message: {m!r:.80}")
    return out


def _blocks(message: JSONObject) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else [content]


def _kind(block: Any) -> Any:
    return block.get("type") if isinstance(block, dict) else None


def uses_tools(messages: list[JSONObject]) -> bool:
    """True when some message carries ``tool_use`` or ``tool_result`` content."""
    return any(_kind(b) in _TOOL_BLOCKS for m in messages for b in _blocks(m))


def check_tool_messages(messages: list[JSONObject]) -> None:
    """Enforce the spec's rules for tool content in sampling messages (ValueError otherwise).

    A user message with ``tool_result`` blocks holds nothing else; every assistant message
    with ``tool_use`` blocks is followed by a user message whose ``tool_result`` blocks answer
    each of those uses (matching ``toolUseId``), before any other message.
    """
    pending: list[str] | None = None
    for index, message in enumerate(messages):
        blocks = _blocks(message)
        kinds = [_kind(b) for b in blocks]
        role = message.get("role")
        if "tool_result" in kinds:
            if role != "user" or any(k != "tool_result" for k in kinds):
                raise ValueError(
                    f"Sampling message {index}: tool results must be alone in a user message"
                )
            answered = [b.get("toolUseId") for b in blocks]
            if pending is None or sorted(map(str, answered)) != sorted(pending):
                raise ValueError(
                    f"Sampling message {index}: tool results {answered} do not answer the "
                    f"tool uses of the preceding assistant message ({pending or []})"
                )
            pending = None
            continue
        if pending is not None:
            raise ValueError(
                f"Sampling message {index}: the tool uses {pending} of the preceding assistant "
                "message must be answered by a user message of tool results first"
            )
        if "tool_use" in kinds:
            if role != "assistant":
                raise ValueError(f"Sampling message {index}: tool uses belong to the assistant")
            pending = [str(b.get("id")) for b in blocks if _kind(b) == "tool_use"]


def check_capabilities(
    client_capabilities: JSONObject,
    *,
    tools: bool,
    include_context: str | None,
    version: ProtocolVersion | None = None,
) -> None:
    """Raise a clear McpError when the client cannot serve this sampling request
    (``tools``: the request carries tools or tool content)."""
    if not has_capability(client_capabilities, ("sampling",)):
        raise ClientCapabilityError(
            "The client did not declare the 'sampling' capability, so the server cannot "
            "ask it for an LLM completion",
        )
    if tools and version is not None and not version.sampling_tools:
        raise ClientCapabilityError(
            f"Sampling with tools needs protocol version 2025-11-25 or later (this session "
            f"speaks {version})",
        )
    if tools and not has_capability(client_capabilities, ("sampling", "tools")):
        raise ClientCapabilityError(
            "The client did not declare 'sampling.tools', so sampling with tools is not possible",
        )
    if include_context not in (None, "none") and not has_capability(
        client_capabilities, ("sampling", "context")
    ):
        raise ClientCapabilityError(
            f"The client did not declare 'sampling.context', so includeContext={include_context!r} "
            "is not allowed",
        )


def build_params(
    messages: str | Sequence[Any],
    *,
    max_tokens: int,
    system_prompt: str | None = None,
    temperature: float | None = None,
    stop_sequences: Sequence[str] | None = None,
    model_preferences: Any = None,
    include_context: str | None = None,
    tools: Sequence[Any] | None = None,
    tool_choice: Any = None,
    metadata: dict[str, Any] | None = None,
) -> JSONObject:
    """The ``sampling/createMessage`` params."""
    wire_messages = to_sampling_messages(messages)
    check_tool_messages(wire_messages)
    params: JSONObject = {"messages": wire_messages, "maxTokens": max_tokens}
    if system_prompt is not None:
        params["systemPrompt"] = system_prompt
    if temperature is not None:
        params["temperature"] = temperature
    if stop_sequences:
        params["stopSequences"] = list(stop_sequences)
    if model_preferences is not None:
        if isinstance(model_preferences, (str, list)):
            names = [model_preferences] if isinstance(model_preferences, str) else model_preferences
            params["modelPreferences"] = {"hints": [{"name": n} for n in names]}
        else:
            params["modelPreferences"] = wire_dict(model_preferences, "model_preferences")
    if include_context is not None:
        params["includeContext"] = include_context
    if tools:
        params["tools"] = [wire_dict(t, "tool") for t in tools]
    if tool_choice is not None:
        params["toolChoice"] = (
            {"mode": tool_choice}
            if isinstance(tool_choice, str)
            else wire_dict(tool_choice, "tool_choice")
        )
    if metadata is not None:
        params["metadata"] = metadata
    return params
