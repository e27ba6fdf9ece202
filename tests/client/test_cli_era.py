"""The CLI's ``--era`` option reaches the Client it builds."""

from __future__ import annotations

import argparse

import pytest

from mcpkit.cli.common import add_connection_options, make_client, make_output


def client_for(*argv: str) -> object:
    parser = argparse.ArgumentParser()
    add_connection_options(parser)
    args = parser.parse_args(["http://127.0.0.1:9/mcp", *argv])
    return make_client(args, make_output(args))


def test_era_defaults_to_auto_and_can_be_pinned() -> None:
    assert client_for().era == "auto"  # type: ignore[attr-defined]
    assert client_for("--era", "legacy").era == "legacy"  # type: ignore[attr-defined]
    assert client_for("--era", "2026-07-28").era == "2026-07-28"  # type: ignore[attr-defined]


def test_an_unknown_era_is_a_usage_error() -> None:
    with pytest.raises(SystemExit):
        client_for("--era", "1999")
