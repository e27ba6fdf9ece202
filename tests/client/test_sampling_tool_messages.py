"""The tool-use message rules a client enforces on sampling/createMessage (-32602)."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.client.sampling import check_tool_messages
from mcpkit.errors import McpError
from mcpkit.types import CreateMessageRequestParams

USE = {"type": "tool_use", "id": "u1", "name": "weather", "input": {"city": "Oslo"}}
RESULT = {"type": "tool_result", "toolUseId": "u1", "content": [{"type": "text", "text": "sun"}]}


def params(*messages: dict[str, Any]) -> CreateMessageRequestParams:
    return CreateMessageRequestParams.model_validate({"messages": messages, "maxTokens": 10})


def test_a_tool_use_answered_by_its_result_is_accepted() -> None:
    check_tool_messages(
        params(
            {"role": "user", "content": {"type": "text", "text": "weather?"}},
            {"role": "assistant", "content": [USE]},
            {"role": "user", "content": [RESULT]},
        )
    )


def test_results_mixed_with_other_content_are_refused() -> None:
    mixed = [RESULT, {"type": "text", "text": "and more"}]
    with pytest.raises(McpError, match="mixed") as err:
        check_tool_messages(
            params({"role": "assistant", "content": [USE]}, {"role": "user", "content": mixed})
        )
    assert err.value.code == -32602


def test_a_tool_use_without_its_result_is_refused() -> None:
    other = {**RESULT, "toolUseId": "u2"}
    for follow_up in ([], [{"role": "user", "content": [other]}]):
        with pytest.raises(McpError, match="missing") as err:
            check_tool_messages(params({"role": "assistant", "content": [USE]}, *follow_up))
        assert err.value.code == -32602
