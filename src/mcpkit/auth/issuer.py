"""Authorization server issuer identification (RFC 9207), as the MCP authorization spec's
"Authorization Response Validation" table applies it.

The client records the ``issuer`` of the validated authorization server metadata before it
sends the user agent to the authorization endpoint; the ``iss`` parameter of the response is
then checked against it before the code (or an error) is acted on:

========================================================  ==============  =================
``authorization_response_iss_parameter_supported``        ``iss``         action
========================================================  ==============  =================
true                                                      present         compare
true                                                      absent          reject
false or absent                                           present         compare
false or absent                                           absent          proceed
========================================================  ==============  =================

The comparison is simple string comparison (RFC 3986 section 6.2.1): no case folding,
default-port elision, trailing-slash or percent-encoding normalisation.
"""

from __future__ import annotations

from mcpkit.auth.errors import IssuerMismatchError

__all__ = ["check_authorization_response_issuer", "check_metadata_issuer"]


def check_authorization_response_issuer(
    iss: str | None, *, recorded_issuer: str, iss_parameter_supported: bool
) -> None:
    """Apply RFC 9207 section 2.4 to an authorization response's (already form-decoded)
    ``iss``; raise :class:`IssuerMismatchError` when the response must be rejected."""
    if iss is None:
        if iss_parameter_supported:
            raise IssuerMismatchError(
                f"The authorization response lacks the iss parameter that {recorded_issuer!r} "
                "advertises (authorization_response_iss_parameter_supported): discarded",
                expected=recorded_issuer,
                received=None,
            )
        return
    if iss != recorded_issuer:
        raise IssuerMismatchError(
            f"The authorization response comes from issuer {iss!r}, not {recorded_issuer!r}: "
            "discarded (RFC 9207)",
            expected=recorded_issuer,
            received=iss,
        )


def check_metadata_issuer(document_issuer: object, *, issuer: str, url: str) -> None:
    """RFC 8414 section 3.3 / OpenID Connect Discovery section 4.3: the ``issuer`` of the
    metadata fetched from ``url`` must be identical to ``issuer``, the identifier the URL was
    built from; raise :class:`IssuerMismatchError` otherwise."""
    if document_issuer != issuer:
        received = document_issuer if isinstance(document_issuer, str) else None
        raise IssuerMismatchError(
            f"Authorization server metadata at {url} names issuer {document_issuer!r}, "
            f"not {issuer!r}: refusing to use it",
            expected=issuer,
            received=received,
        )
