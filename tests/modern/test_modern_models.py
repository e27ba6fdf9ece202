"""The 2026-07-28 shapes as models: what mcpkit sends parses, dumps back as it was, and
matches the revision's schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpkit.client.modern import ModernWire
from mcpkit.server.discover import discover_result
from mcpkit.types.modern import DiscoverResult, InputRequiredResult, RequestMeta

SCHEMA = Path("/work/shared/spec/2026-07-28/schema.json")


def _check(definition: str, instance: Any) -> None:
    defs = json.loads(SCHEMA.read_text())["$defs"]
    schema = {"$ref": f"#/$defs/{definition}", "$defs": defs}
    jsonschema.Draft202012Validator(schema).validate(instance)


def test_discover_result_round_trips() -> None:
    raw = discover_result(
        server_info={"name": "s", "version": "1"},
        capabilities={"tools": {"listChanged": True}},
        instructions="be brief",
    )
    model = DiscoverResult.model_validate(raw)
    assert model.capabilities.tools is not None and model.instructions == "be brief"
    assert "2026-07-28" in model.supported_versions and model.ttl_ms >= 0
    assert model.to_wire() == raw
    _check("DiscoverResult", model.to_wire())


def test_input_required_result_round_trips() -> None:
    raw = {
        "resultType": "input_required",
        "inputRequests": {
            "k": {"method": "roots/list", "params": {}},
        },
        "requestState": "opaque",
    }
    model = InputRequiredResult.model_validate(raw)
    assert model.request_state == "opaque" and model.input_requests is not None
    assert model.to_wire() == raw
    _check("InputRequiredResult", raw)
    with pytest.raises(ValueError):
        InputRequiredResult.model_validate({"resultType": "complete"})


def test_the_request_envelope_round_trips() -> None:
    wire = ModernWire(
        "2026-07-28",
        {"roots": {"listChanged": True}},
        {"name": "c", "version": "1"},
        log_level="info",
    )
    meta = wire.wrap({"_meta": {"progressToken": 7}})["_meta"]
    model = RequestMeta.model_validate(meta)
    assert model.protocol_version == "2026-07-28" and model.log_level == "info"
    assert model.client_info is not None and model.client_info.name == "c"
    assert model.progress_token == 7
    assert model.to_wire() == meta
    _check("RequestMetaObject", meta)
