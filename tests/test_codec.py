"""The frame codec, the method encodings and the blob rule, checked against tests/vectors."""

from __future__ import annotations

import hashlib
import json
import math
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.blob import CHUNK, blob_bytes
from dualio_transports.dualio_protocol.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    HEADER,
    LARGE_PAYLOAD,
    MAX_REQUEST_ID,
    Frame,
    FrameDecoder,
    FrameKind,
    encode_frame,
    max_payload_size,
)
from dualio_transports.wire import errors
from dualio_transports.wire.errors import FrameTooLarge, ProtocolError
from dualio_transports.wire.request import Request

VECTORS = json.loads(
    (Path(__file__).parent / "vectors" / "protocol_v1.json").read_text(encoding="utf-8")
)
FRAMES: list[dict[str, Any]] = VECTORS["frames"]
INVALID: list[dict[str, Any]] = VECTORS["invalid"]


def decode_one(data: bytes, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> Frame:
    decoder = FrameDecoder(max_frame_size)
    frames = decoder.feed(data)
    assert len(frames) == 1
    assert decoder.buffered == 0
    return frames[0]


# -- vectors ------------------------------------------------------------------

@pytest.mark.parametrize("vec", FRAMES, ids=[v["name"] for v in FRAMES])
def test_vector_decodes_and_reencodes(vec: dict[str, Any]) -> None:
    data = bytes.fromhex(vec["frame_hex"])
    payload = bytes.fromhex(vec["payload_hex"])
    frame = decode_one(data)
    assert frame == Frame(FrameKind[vec["kind"]], vec["id"], payload)
    assert int(frame.kind) == vec["kind_value"]
    assert int.from_bytes(data[:4], "big") == 5 + len(payload) == len(data) - 4
    assert encode_frame(frame.kind, frame.id, frame.payload) == data


def test_vectors_cover_every_kind_and_error_code() -> None:
    assert {v["kind"] for v in FRAMES} == {k.name for k in FrameKind}
    codes = {int.from_bytes(bytes.fromhex(v["payload_hex"])[:2], "big")
             for v in FRAMES if v["kind"] == "ERROR"}
    assert codes == {int(c) for c in errors.ErrorCode}


@pytest.mark.parametrize("vec", INVALID, ids=[v["name"] for v in INVALID])
@pytest.mark.parametrize("bytewise", [False, True])
def test_invalid_vector_is_rejected(vec: dict[str, Any], bytewise: bool) -> None:
    data = bytes.fromhex(vec["bytes_hex"])
    decoder = FrameDecoder(vec["max_frame_size"])
    with pytest.raises(ProtocolError) as info:
        for chunk in ([data[i : i + 1] for i in range(len(data))] if bytewise else [data]):
            decoder.feed(chunk)
    assert type(info.value).__name__ == vec["error"]
    assert type(info.value) is getattr(errors, vec["error"])
    assert decoder.buffered == 0


# -- FrameDecoder ---------------------------------------------------------------

def test_oversize_length_rejected_from_the_length_bytes_alone() -> None:
    decoder = FrameDecoder(1024)
    assert decoder.feed((1025).to_bytes(4, "big")[:3]) == []
    assert decoder.buffered == 3
    with pytest.raises(FrameTooLarge):
        decoder.feed(b"\x01")
    assert decoder.buffered == 0


def test_length_exactly_max_is_accepted() -> None:
    frame = encode_frame(FrameKind.RESPONSE, 1, b"x" * max_payload_size(1024), 1024)
    assert int.from_bytes(frame[:4], "big") == 1024
    assert decode_one(frame, 1024).payload == b"x" * 1019


def test_decoder_stays_broken_after_an_error() -> None:
    decoder = FrameDecoder()
    with pytest.raises(ProtocolError) as first:
        decoder.feed(bytes.fromhex("000000050000000001"))
    good = encode_frame(FrameKind.PING, 1)
    for _ in range(2):
        with pytest.raises(ProtocolError) as again:
            decoder.feed(good)
        assert again.value is first.value
    assert decoder.buffered == 0


def test_multiple_frames_in_one_feed_and_a_partial_tail() -> None:
    sent = [Frame(FrameKind.PING, 1), Frame(FrameKind.RESPONSE, 2, b"abc"),
            Frame(FrameKind.STREAM_ITEM, MAX_REQUEST_ID, b"\x00" * 300)]
    data = b"".join(encode_frame(f.kind, f.id, f.payload) for f in sent)
    tail = encode_frame(FrameKind.CLOSE, 0)
    decoder = FrameDecoder()
    assert decoder.feed(data + tail[:6]) == sent
    assert decoder.buffered == 6
    assert decoder.feed(tail[6:]) == [Frame(FrameKind.CLOSE, 0)]
    assert decoder.buffered == 0


def test_valid_max_frame_sizes() -> None:
    for bad in (68, 0x1_0000_0000, 1.5e6):
        with pytest.raises(ValueError):
            FrameDecoder(bad)  # type: ignore[arg-type]
    assert FrameDecoder(69).max_frame_size == 69


frames_st = st.builds(
    Frame, st.sampled_from(FrameKind), st.integers(0, MAX_REQUEST_ID), st.binary(max_size=4096)
)


@settings(max_examples=200, deadline=None)
@given(frames_st)
def test_round_trip_whole(frame: Frame) -> None:
    data = encode_frame(frame.kind, frame.id, frame.payload)
    assert len(data) == 9 + len(frame.payload)
    assert decode_one(data) == frame


@settings(max_examples=200, deadline=None)
@given(st.lists(frames_st, min_size=1, max_size=5), st.data())
def test_round_trip_split_at_random_points(sent: list[Frame], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(f.kind, f.id, f.payload) for f in sent)
    decoder = FrameDecoder()
    got: list[Frame] = []
    pos = 0
    while pos < len(stream):
        size = data.draw(st.one_of(st.just(1), st.integers(1, len(stream) - pos)))
        got += decoder.feed(stream[pos : pos + size])
        pos += size
    assert got == sent
    assert decoder.buffered == 0


def _large_payload(size: int, seed: int) -> bytes:
    return hashlib.sha256(str(seed).encode()).digest() * (size // 32) + b"t" * (size % 32)


large_frames_st = st.builds(
    Frame, st.sampled_from(FrameKind), st.integers(0, MAX_REQUEST_ID),
    st.one_of(
        st.binary(max_size=64),
        st.builds(_large_payload, st.integers(LARGE_PAYLOAD - 2, LARGE_PAYLOAD + 70_000), st.integers(0, 9)),
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(large_frames_st, min_size=1, max_size=4), st.data(), st.booleans())
def test_large_frames_split_anywhere(sent: list[Frame], data: st.DataObject, large_buffers: bool) -> None:
    """Large payloads (in a buffer of their own, or in the stream buffer) among small
    ones, the stream cut at random points, some cuts inside a header: every frame
    comes out whole."""
    stream = b"".join(encode_frame(f.kind, f.id, f.payload) for f in sent)
    decoder = FrameDecoder(large_buffers=large_buffers)
    got: list[Frame] = []
    pos = 0
    while pos < len(stream):
        size = data.draw(st.one_of(st.integers(1, 12), st.integers(1, len(stream) - pos)))
        got += decoder.feed(stream[pos : pos + size])
        pos += size
        assert decoder.buffered <= len(stream)
    assert got == sent
    assert decoder.buffered == 0
    assert all(type(f.payload) is bytes for f in got)


@settings(max_examples=60, deadline=None)
@given(st.lists(large_frames_st, min_size=1, max_size=4), st.data())
def test_large_payloads_received_into_their_room(sent: list[Frame], data: st.DataObject) -> None:
    """As a transport reads: into the decoder's room while a large frame is under way
    (any amount that fits), fed as bytes otherwise. Frames come out whole, in order,
    and a payload's buffer is never one the caller's bytes share."""
    stream = b"".join(encode_frame(f.kind, f.id, f.payload) for f in sent)
    decoder = FrameDecoder(large_buffers=True)
    got: list[Frame] = []
    pos = 0
    while pos < len(stream):
        room = decoder.room()
        if room is None:
            size = data.draw(st.integers(1, len(stream) - pos))
            got += decoder.feed(stream[pos : pos + size])
        else:
            size = data.draw(st.integers(1, min(len(room), len(stream) - pos)))
            room[:size] = stream[pos : pos + size]
            got += decoder.received(size)
        pos += size
    assert got == sent
    assert decoder.room() is None and decoder.buffered == 0
    assert all(type(f.payload) is bytes for f in got)


def test_room_is_sized_from_the_header_and_bounded() -> None:
    payload = bytes(range(256)) * ((LARGE_PAYLOAD + 1000) // 256)
    data = encode_frame(FrameKind.RESPONSE, 3, payload)
    decoder = FrameDecoder(large_buffers=True)
    assert decoder.room() is None
    assert decoder.feed(data[:100]) == []
    room = decoder.room()
    assert room is not None and len(room) == len(payload) - (100 - 9)
    with pytest.raises(ValueError, match="more than the room left"):
        decoder.received(len(room) + 1)
    with pytest.raises(ValueError, match="more than the room left"):
        decoder.received(0)
    room[:] = data[100:]
    [frame] = decoder.received(len(room))
    assert frame == Frame(FrameKind.RESPONSE, 3, payload)
    assert decoder.room() is None
    # the buffer is kept for the next large frame; the frame already given out is untouched
    assert decoder.feed(encode_frame(FrameKind.RESPONSE, 4, b"z" * len(payload))[:50]) == []
    again = decoder.room()
    assert again is not None
    again[:] = b"z" * len(again)
    assert decoder.received(len(again)) == [Frame(FrameKind.RESPONSE, 4, b"z" * len(payload))]
    assert frame.payload == payload


def test_a_server_decoder_holds_only_what_arrived() -> None:
    """A header announcing the largest payload allowed, and nothing after it: a decoder
    without large buffers holds the bytes that came, not the size announced."""
    decoder = FrameDecoder()
    header = HEADER.pack(DEFAULT_MAX_FRAME_SIZE, FrameKind.REQUEST, 1)
    assert decoder.feed(header + b"x" * 100) == []
    assert decoder.room() is None and decoder.buffered == len(header) + 100
    assert sys.getsizeof(decoder._buffer) < 64 * 1024


def test_a_large_frame_counts_as_buffered_and_its_kind_is_checked_first() -> None:
    payload = b"p" * (LARGE_PAYLOAD + 10)
    data = encode_frame(FrameKind.RESPONSE, 7, payload)
    decoder = FrameDecoder(large_buffers=True)
    assert decoder.feed(data[:1000]) == []
    assert decoder.buffered == 1000
    assert decoder.feed(data[1000:-1]) == []
    assert decoder.buffered == len(data) - 1
    assert decoder.feed(data[-1:] + encode_frame(FrameKind.PONG, 8)) == [
        Frame(FrameKind.RESPONSE, 7, payload), Frame(FrameKind.PONG, 8)
    ]
    bad = bytearray(encode_frame(FrameKind.RESPONSE, 1, payload))
    bad[4] = 99  # no such kind: refused when the header is in, before the payload is
    with pytest.raises(ProtocolError, match="unknown frame kind 99"):
        FrameDecoder().feed(bytes(bad[:20]))


@settings(max_examples=50, deadline=None)
@given(st.builds(Frame, st.sampled_from(FrameKind), st.integers(0, MAX_REQUEST_ID),
                 st.binary(max_size=64)))
def test_round_trip_one_byte_feeds(frame: Frame) -> None:
    data = encode_frame(frame.kind, frame.id, frame.payload)
    decoder = FrameDecoder()
    got = [f for i in range(len(data)) for f in decoder.feed(data[i : i + 1])]
    assert got == [frame]


def test_encode_frame_refuses_oversize_payloads_and_bad_ids() -> None:
    assert len(encode_frame(FrameKind.RESPONSE, 1, b"x" * 1019, 1024)) == 1028
    with pytest.raises(FrameTooLarge):
        encode_frame(FrameKind.RESPONSE, 1, b"x" * 1020, 1024)
    for rid in (-1, MAX_REQUEST_ID + 1):
        with pytest.raises(ValueError):
            encode_frame(FrameKind.PING, rid)


# -- request envelope -------------------------------------------------------------

@given(st.text(min_size=1, max_size=60).filter(lambda s: len(s.encode()) <= 255), st.binary())
def test_request_envelope_round_trip(method: str, args: bytes) -> None:
    payload = methods.encode_request(method, args)
    assert payload[0] == len(method.encode())
    assert methods.decode_request(payload) == (method, args)


def test_request_envelope_bad_inputs() -> None:
    for name in ("", "x" * 256, "é" * 128):
        with pytest.raises(ValueError):
            methods.encode_request(name, b"")
    assert methods.decode_request(methods.encode_request("m" * 255, b"")) == ("m" * 255, b"")
    for payload in (b"", b"\x00", b"\x00echo", b"\x05ech", b"\x02\xff\xfe"):
        with pytest.raises(methods.BadArguments):
            methods.decode_request(payload)


# -- each method: client encoder -> server parser ---------------------------------

seconds = st.floats(min_value=0, max_value=methods.MAX_SECONDS, allow_nan=False)


@given(st.binary(), seconds)
def test_echo_args(data: bytes, delay: float) -> None:
    call = methods.echo(data, delay)
    assert call.method == "echo"
    assert methods.parse_delay_and_body("echo", call.args) == (delay, data)
    assert call.decode(data) == data


@given(st.text(), seconds)
def test_upper_args(text: str, delay: float) -> None:
    call = methods.upper(text, delay)
    assert methods.parse_delay_and_body("upper", call.args) == (delay, text.encode())
    assert call.decode(text.upper().encode()) == text.upper()


@given(seconds)
def test_sleep_args(value: float) -> None:
    call = methods.sleep(value)
    assert methods.parse_sleep(call.args) == value
    assert call.decode(b"") is None


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_blob_args(size: int, seed: int) -> None:
    assert methods.parse_blob(methods.blob(size, seed, True).args) == (size, seed)


@given(st.integers(0, 2**32 - 1), seconds)
def test_words_args(count: int, wait: float) -> None:
    call = methods.words(count, wait)
    assert methods.parse_words(call.args) == (count, wait)
    assert call.decode_item(b"kilo") == "kilo"


def test_stats_args_and_answer() -> None:
    call = methods.stats()
    assert (call.method, call.args) == ("stats", b"")
    stats = methods.ServerStats(1, 2, 3, 4, 5)
    assert call.decode(stats.to_json()) == stats
    for bad in (b"", b"[]", b'{"errors": 1}', b"\xff"):
        with pytest.raises(ProtocolError):
            call.decode(bad)


def test_server_parsers_reject_bad_arguments() -> None:
    f64 = struct.Struct(">d").pack
    bad_seconds = [f64(-1.0), f64(math.nan), f64(math.inf), f64(1e20), f64(methods.MAX_SECONDS + 1)]
    for args in [b"", b"\x00" * 7, *bad_seconds]:
        with pytest.raises(methods.BadArguments):
            methods.parse_delay_and_body("echo", args)
    for args in [b"", f64(1.0) + b"x", *bad_seconds]:
        with pytest.raises(methods.BadArguments):
            methods.parse_sleep(args)
    for args in (b"\x00" * 7, b"\x00" * 9):
        with pytest.raises(methods.BadArguments):
            methods.parse_blob(args)
    for args in (b"\x00" * 11, b"\x00" * 13, b"\x00" * 4 + f64(-0.5)):
        with pytest.raises(methods.BadArguments):
            methods.parse_words(args)


def test_client_encoders_reject_bad_values() -> None:
    with pytest.raises(TypeError):
        methods.echo("text", 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        methods.upper(b"bytes", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        methods.sleep(-0.1)
    with pytest.raises(ValueError):
        methods.sleep(math.nan)
    with pytest.raises(TypeError):
        methods.words(True, 0)
    with pytest.raises(ValueError):
        methods.blob(2**32, 0, True)


def test_upper_answer_must_be_utf8() -> None:
    with pytest.raises(ProtocolError):
        methods.upper("x", 0).decode(b"\xff")


# -- blob and words rules ---------------------------------------------------------

def test_blob_bytes_rule_and_determinism() -> None:
    size, seed = 3 * CHUNK + 100, 12345
    data = blob_bytes(size, seed)
    assert len(data) == size
    assert data == blob_bytes.__wrapped__(size, seed)
    for k in range(4):
        digest = hashlib.sha256(seed.to_bytes(4, "big") + k.to_bytes(4, "big")).digest()
        assert data[k * CHUNK : (k + 1) * CHUNK] == (digest * 128)[: size - k * CHUNK]
    assert blob_bytes(100, seed) == data[:100]
    assert blob_bytes(0, seed) == b""
    assert blob_bytes(size, seed + 1) != data


def test_blob_decode_detects_corruption() -> None:
    size, seed = 2 * CHUNK, 7
    call = methods.blob(size, seed, True)
    good = blob_bytes(size, seed)
    assert call.decode(good) == good
    flipped = bytearray(good)
    flipped[5000] ^= 0x01
    swapped = good[CHUNK:] + good[:CHUNK]
    for bad in (bytes(flipped), swapped, blob_bytes(size, seed + 1)):
        with pytest.raises(ProtocolError):
            call.decode(bad)
    for bad in (good[:-1], good + b"\x00"):
        with pytest.raises(ProtocolError):
            call.decode(bad)
    assert methods.blob(size, seed, False).decode(swapped) == swapped


def test_word_at_rule() -> None:
    words = methods.WORD_LIST
    assert [methods.word_at(i) for i in range(4)] == ["alpha", "hotel", "oscar", "foxtrot"]
    for i in range(1000):
        assert methods.word_at(i) == words[(i * 7 + i // 16) % 16]
    for block in range(20):
        assert sorted(methods.word_at(16 * block + r) for r in range(16)) == sorted(words)


def test_calls_built_without_their_constructor_have_every_field() -> None:
    """echo, upper and sleep make their Request with tuple.__new__ (no defaults applied):
    each must still have every field of Request, in order."""
    from dualio_transports.dualio_protocol import methods

    for op in (methods.echo(b"x", 0.0), methods.upper("x", 0.5), methods.sleep(0.0)):
        assert len(op) == len(Request._fields)
        assert isinstance(op.method, str) and isinstance(op.args, bytes)
        assert callable(op.decode) and op.idempotent is True
