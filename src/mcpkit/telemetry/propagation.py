"""Trace context in ``params._meta``: injected into outgoing requests, extracted from
incoming ones.

The W3C ``traceparent``, ``tracestate`` and ``baggage`` keys travel unprefixed in the
request's ``_meta`` (reserved there by SEP-414, the same on both protocol eras), written and
read by the configured OpenTelemetry propagator (the global one unless given: W3C Trace
Context and Baggage by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpkit._extras import needs_extra

try:
    from opentelemetry import propagate
    from opentelemetry.context import Context
    from opentelemetry.propagators.textmap import TextMapPropagator
except ModuleNotFoundError as exc:  # the extra is not installed
    raise needs_extra("Trace context propagation", "otel", exc.name) from None

from mcpkit.telemetry.semconv import TRACE_KEYS

__all__ = ["extract_meta", "inject_meta", "trace_carrier"]


def inject_meta(
    params: Mapping[str, Any] | None,
    *,
    context: Context | None = None,
    propagator: TextMapPropagator | None = None,
) -> Any:
    """``params`` with the current (or given) trace context written into its ``_meta``; a
    new dict (the caller's is left alone), or ``params`` itself when there is nothing to
    propagate."""
    carrier: dict[str, str] = {}
    (propagator or propagate.get_global_textmap()).inject(carrier, context=context)
    if not carrier:
        return params
    out: dict[str, Any] = dict(params) if params else {}
    meta = out.get("_meta")
    merged: dict[str, Any] = dict(meta) if isinstance(meta, Mapping) else {}
    merged.update(carrier)
    out["_meta"] = merged
    return out


def trace_carrier(params: Any) -> dict[str, str]:
    """The trace keys of ``params._meta`` that are strings (empty when there are none)."""
    if type(params) is not dict:
        return {}
    meta = params.get("_meta")
    if type(meta) is not dict:
        return {}
    return {key: value for key in TRACE_KEYS if isinstance(value := meta.get(key), str)}


def extract_meta(params: Any, *, propagator: TextMapPropagator | None = None) -> Context | None:
    """The remote context ``params._meta`` carries, or None when it carries none."""
    carrier = trace_carrier(params)
    if not carrier:
        return None
    return (propagator or propagate.get_global_textmap()).extract(carrier, context=Context())
