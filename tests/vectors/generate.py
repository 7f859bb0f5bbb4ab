"""Regenerate ``protocol_v1.json``, the wire protocol v1 test vectors, from the real encoders.

Run ``python tests/vectors/generate.py`` from the repository root. Valid frames are
built with ``dualio_transports.dualio_protocol.frames.encode_frame`` and the encoders in
``dualio_transports.dualio_protocol.methods`` and ``dualio_transports.dualio_protocol.client_protocol``;
connection-level answers are taken from a ``ServerProtocol`` fed real bytes. ``invalid``
lists byte strings a decoder must reject.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from dualio_transports.dualio_protocol import methods  # noqa: E402
from dualio_transports.dualio_protocol.blob import blob_bytes  # noqa: E402
from dualio_transports.dualio_protocol.client_protocol import ClientProtocol, encode_error  # noqa: E402
from dualio_transports.dualio_protocol.frames import (  # noqa: E402
    DEFAULT_MAX_FRAME_SIZE,
    HEADER_SIZE,
    PROTOCOL_VERSION,
    FrameDecoder,
    FrameKind,
    encode_frame,
)
from dualio_transports.dualio_protocol.server_protocol import ServerProtocol  # noqa: E402
from dualio_transports.wire.errors import ErrorCode  # noqa: E402
from dualio_transports.wire.request import Request, StreamRequest  # noqa: E402

OUT = Path(__file__).with_name("protocol_v1.json")


def vector(name: str, frame: bytes, note: str) -> dict[str, Any]:
    (decoded,) = FrameDecoder().feed(frame)
    assert len(frame) >= HEADER_SIZE
    return {
        "name": name,
        "kind": decoded.kind.name,
        "kind_value": int(decoded.kind),
        "id": decoded.id,
        "payload_hex": decoded.payload.hex(),
        "frame_hex": frame.hex(),
        "note": note,
    }


def request(rid: int, call: Request[Any] | StreamRequest[Any]) -> bytes:
    return encode_frame(FrameKind.REQUEST, rid, methods.encode_request(call.method, call.args))


def server_refusal(hello: bytes, token: str | None) -> bytes:
    server = ServerProtocol(token=token)
    server.receive(hello)
    assert server.closing
    return server.take_output()


def frames() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    add = out.append
    stats = methods.ServerStats(
        connections_open=1, connections_total=2, requests_in_flight=0, requests_served=5, errors=0
    )

    # -- handshake and connection-level frames
    add(vector("hello_no_token", ClientProtocol().hello(), "HELLO: version 1, no token"))
    add(vector("hello_token", ClientProtocol(token="s3cret").hello(),
               "HELLO: version 1, token 's3cret' as UTF-8"))
    welcome = ServerProtocol()
    welcome.receive(ClientProtocol().hello())
    add(vector("welcome_default_max", welcome.take_output(),
               f"WELCOME: version 1, max_frame_size {DEFAULT_MAX_FRAME_SIZE}"))
    small = ServerProtocol(max_frame_size=65536)
    small.receive(ClientProtocol().hello())
    add(vector("welcome_64k_max", small.take_output(), "WELCOME: version 1, max_frame_size 65536"))
    add(vector("close", encode_frame(FrameKind.CLOSE, 0),
               "CLOSE: orderly close; the same bytes in either direction"))
    add(vector("ping", encode_frame(FrameKind.PING, 9), "PING with request id 9, empty payload"))
    add(vector("pong", encode_frame(FrameKind.PONG, 9), "PONG answering PING 9 (echoes its payload)"))
    add(vector("ping_payload", encode_frame(FrameKind.PING, 10, b"\x01\x02"),
               "PING 10 carrying two bytes; the PONG carries the same two bytes"))
    server = ServerProtocol()
    server.receive(ClientProtocol().hello() + encode_frame(FrameKind.PING, 10, b"\x01\x02"))
    add(vector("pong_payload", server.take_output()[15:],  # after the 15-byte WELCOME
               "the server's PONG to PING 10 above"))
    add(vector("cancel", encode_frame(FrameKind.CANCEL, 4), "CANCEL request 4, empty payload"))
    add(vector("max_id", encode_frame(FrameKind.CANCEL, 0xFFFFFFFF),
               "the largest request id, 4294967295"))

    # -- methods: request and answer
    add(vector("echo_request", request(1, methods.echo(b"hello", 0.25)),
               "echo: delay 0.25 s as f64, then the bytes b'hello'"))
    add(vector("echo_response", encode_frame(FrameKind.RESPONSE, 1, b"hello"),
               "echo answer: the same bytes"))
    add(vector("upper_request", request(2, methods.upper("straße", 0.0)),
               "upper: delay 0 as f64, then 'straße' as UTF-8"))
    add(vector("upper_response", encode_frame(FrameKind.RESPONSE, 2, "straße".upper().encode()),
               "upper answer: full Unicode upper-casing, 'straße' -> 'STRASSE'"))
    add(vector("sleep_request", request(3, methods.sleep(1.5)), "sleep: 1.5 s as one f64"))
    add(vector("sleep_response", encode_frame(FrameKind.RESPONSE, 3),
               "sleep answer: empty payload"))
    add(vector("blob_request", request(4, methods.blob(40, 7, True)),
               "blob: size 40 as u32, seed 7 as u32"))
    add(vector("blob_response", encode_frame(FrameKind.RESPONSE, 4, blob_bytes(40, 7)),
               "blob answer: SHA-256(00000007 00000000) repeated, cut to 40 bytes"))
    add(vector("words_request", request(5, methods.words(3, 0.5)),
               "words: count 3 as u32, wait 0.5 s as f64"))
    for index in range(3):
        word = methods.word_at(index)
        add(vector(f"words_item_{index}", encode_frame(FrameKind.STREAM_ITEM, 5, word.encode()),
                   f"words stream item {index}: word_at({index}) = {word!r}"))
    add(vector("words_end", encode_frame(FrameKind.STREAM_END, 5),
               "words: the stream's final frame, empty payload"))
    add(vector("stats_request", request(6, methods.stats()), "stats: no arguments"))
    add(vector("stats_response", encode_frame(FrameKind.RESPONSE, 6, stats.to_json()),
               "stats answer: a JSON object of five integer counters"))

    # -- errors
    add(vector("error_unauthorized", server_refusal(ClientProtocol(token="wrong").hello(), "s3cret"),
               "handshake refused for a wrong token (id 0); the server then closes"))
    bad_version = encode_frame(FrameKind.HELLO, 0, struct.pack(">H", PROTOCOL_VERSION + 1))
    add(vector("error_unsupported_version", server_refusal(bad_version, None),
               "handshake refused for HELLO version 2 (id 0); the server then closes"))
    add(vector("error_not_ready", server_refusal(request(1, methods.stats()), None),
               "a REQUEST before HELLO (id 0); the server then closes"))
    add(vector("error_bad_frame", server_refusal(bytes.fromhex("00000005ff00000000"), None),
               "unknown frame kind 255 (id 0); the server then closes"))
    add(vector("error_frame_too_large", server_refusal(bytes.fromhex("01000001"), None),
               "a length prefix over the server's maximum (id 0); the server then closes"))
    add(vector("error_unknown_method",
               encode_error(7, ErrorCode.UNKNOWN_METHOD, "unknown method 'nope'"),
               "request 7 named a method the server does not have"))
    add(vector("error_bad_arguments",
               encode_error(8, ErrorCode.BAD_ARGUMENTS, "sleep: arguments must be one f64"),
               "request 8's arguments did not parse"))
    add(vector("error_cancelled", encode_error(4, ErrorCode.CANCELLED, "cancelled by the client"),
               "final frame of request 4 after the client's CANCEL"))
    add(vector("error_internal", encode_error(9, ErrorCode.INTERNAL, ""),
               "code 9 with an empty message"))
    add(vector("error_shutting_down", encode_error(0, ErrorCode.SHUTTING_DOWN, "bye"),
               "code 10 about the whole connection"))
    add(vector("error_busy", encode_error(0, ErrorCode.BUSY, "connection limit reached"),
               "code 11: the server is at its connection limit, sent instead of WELCOME"))
    return out


def invalid() -> list[dict[str, Any]]:
    def case(name: str, data: str, max_frame_size: int, error: str, note: str) -> dict[str, Any]:
        return {"name": name, "bytes_hex": data, "max_frame_size": max_frame_size,
                "error": error, "note": note}

    return [
        case("length_over_small_max", "00000401", 1024, "FrameTooLarge",
             "length 1025 with max_frame_size 1024; rejected from the 4 length bytes alone"),
        case("length_over_default_max", "0100000103", DEFAULT_MAX_FRAME_SIZE, "FrameTooLarge",
             "length 16777217, one over the default maximum"),
        case("length_all_ones", "ffffffff", DEFAULT_MAX_FRAME_SIZE, "FrameTooLarge",
             "length 4294967295"),
        case("length_zero", "00000000", DEFAULT_MAX_FRAME_SIZE, "ProtocolError",
             "length 0 is shorter than kind + id"),
        case("length_four", "0000000403000000", DEFAULT_MAX_FRAME_SIZE, "ProtocolError",
             "length 4 is shorter than kind + id (5)"),
        case("kind_zero", "000000050000000001", DEFAULT_MAX_FRAME_SIZE, "ProtocolError",
             "kind 0 is not a frame kind"),
        case("kind_twelve", "00000005 0c 00000001".replace(" ", ""), DEFAULT_MAX_FRAME_SIZE,
             "ProtocolError", "kind 12, one past CLOSE"),
        case("kind_255", "00000007ff0000000161 62".replace(" ", ""), DEFAULT_MAX_FRAME_SIZE,
             "ProtocolError", "kind 255 with a payload"),
        case("bad_after_good", "00000005090000000100000000", DEFAULT_MAX_FRAME_SIZE,
             "ProtocolError", "a valid PING followed by a length-0 frame in one chunk"),
    ]


def main() -> None:
    data: dict[str, Any] = {
        "protocol_version": PROTOCOL_VERSION,
        "default_max_frame_size": DEFAULT_MAX_FRAME_SIZE,
        "frames": frames(),
        "invalid": invalid(),
    }
    OUT.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(data['frames'])} frames and {len(data['invalid'])} invalid cases to {OUT}")


if __name__ == "__main__":
    main()
