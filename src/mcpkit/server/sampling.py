"""Sampling from the server side: building ``sampling/createMessage`` and checking the client
declared what it needs (``sampling``; ``sampling.tools`` for tools; ``sampling.context`` for
``includeContext`` other than ``"none"``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from mcpkit.jsonrpc import JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.server.content import _block
from mcpkit.server.errors import ClientCapabilityError
from mcpkit.server.tools import wire_dict

__all__ = ["build_params", "check_capabilities", "to_sampling_messages"]


def to_sampling_messages(messages: str | Sequence[Any]) -> list[JSONObject]:
    """``"text"`` -> one user message; a list of strings, dicts or ``SamplingMessage`` models."""
    if isinstance(messages, str):
        messages = [messages]
    out: list[JSONObject] = []
    for m in messages:
        if isinstance(m, str):
            out.append({"role": "user", "content": {"type": "text", "text": m}})
        elif isinstance(m, BaseModel):
            out.append(wire_dict(m, "message"))
        elif isinstance(m, dict) and "role" in m and "content" in m:
            content = m["content"]
            if not isinstance(content, (dict, list)):
                content = _block(content)
            out.append({**m, "content": content})
        else:
            raise TypeError(f"Not a sampling message: {m!r:.80}")
    return out


def check_capabilities(
    client_capabilities: JSONObject, *, tools: bool, include_context: str | None
) -> None:
    """Raise a clear McpError when the client cannot serve this sampling request."""
    if not has_capability(client_capabilities, ("sampling",)):
        raise ClientCapabilityError(
            "The client did not declare the 'sampling' capability, so the server cannot "
            "ask it for an LLM completion",
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
    params: JSONObject = {"messages": to_sampling_messages(messages), "maxTokens": max_tokens}
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
