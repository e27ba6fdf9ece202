"""Property tests of the SSE framing: what encode_event writes, SSEDecoder reads back the
same however the bytes are split; any byte stream decodes the same whole or in pieces; a
line over the limit is refused instead of buffered."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpkit.transports.http.sse import ServerSentEvent, SSEDecoder, encode_event

FUZZ = settings(max_examples=300, derandomize=True, deadline=None)

line_text = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n\0"), max_size=40
)
events = st.lists(
    st.tuples(
        st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60),  # data
        st.none() | line_text,  # id
        st.sampled_from(["message", "ping"]) | line_text.filter(lambda s: s != ""),
    ),
    max_size=8,
)
noise = st.lists(
    st.sampled_from(
        [
            b"data: x",
            b"data:y",
            b"data",
            b"id: 7",
            b"id",
            b"event: e",
            b"retry: 100",
            b"retry: x",
            b": comment",
            b"\n",
            b"\r",
            b"\r\n",
            b"\xef\xbb\xbf",
            b"\xff\xfe",
            b"\0",
            b"field: v",
            b" ",
        ]
    )
    | st.binary(max_size=12),
    max_size=30,
).map(b"".join)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, last = [], 0
    for p in points:
        out.append(data[last:p])
        last = p
    out.append(data[last:])
    return out


def decode(chunks: list[bytes], max_line: int = 1 << 20) -> tuple[list[Any], Any, Any]:
    decoder = SSEDecoder(max_line)
    out: list[ServerSentEvent] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    return [(e.event, e.data, e.id, e.retry) for e in out], decoder.last_event_id, decoder.retry


def normalized(data: str) -> str:
    return data.replace("\r\n", "\n").replace("\r", "\n")


@FUZZ
@given(events, st.lists(st.integers(min_value=0), max_size=12))
def test_encoded_events_decode_the_same_in_any_chunks(evs: list[Any], cuts: list[int]) -> None:
    wire = b"".join(encode_event(d.encode(), i, event=e) for d, i, e in evs)
    got, last_id, _ = decode(split(wire, cuts))
    expected = []
    current = None
    for data, eid, event in evs:
        current = eid if eid is not None else current
        expected.append((event, normalized(data), eid, None))
    assert got == expected
    assert last_id == current


@FUZZ
@given(noise, st.lists(st.integers(min_value=0), max_size=12))
def test_any_stream_decodes_the_same_whole_or_split(wire: bytes, cuts: list[int]) -> None:
    assert decode(split(wire, cuts)) == decode([wire])


@FUZZ
@given(
    st.integers(min_value=1, max_value=64), noise, st.lists(st.integers(min_value=0), max_size=6)
)
def test_a_line_over_the_limit_is_refused_however_it_arrives(
    limit: int, wire: bytes, cuts: list[int]
) -> None:
    long_line = b"data: " + b"z" * (limit + 1)
    stream = wire + b"\n\n" + long_line
    for chunks in (split(stream, cuts), [stream]):
        decoder = SSEDecoder(limit)
        try:
            for chunk in chunks:
                decoder.feed(chunk)
        except ValueError as exc:
            assert "longer than" in str(exc)
        else:
            raise AssertionError("a line over the limit was buffered")
