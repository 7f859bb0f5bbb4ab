"""Clients that ask for more than they read: the server's memory stays bounded per
connection, it does not spin, and a well-behaved client keeps its latency.

Each test starts its own server (both models where it applies), attacks it over
loopback from raw sockets, and measures through ``Watch`` (tests/stress/probe.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import HELLO, decode_error
from dualio_transports.dualio_protocol.frames import HEADER, FrameKind, encode_frame
from dualio_transports.wire.errors import ErrorCode
from tests.conftest import ServerProcess, start_server
from tests.stress.probe import (
    HAVE_PROC,
    MIB,
    Watch,
    abort,
    connect,
    handshake,
    read_frame,
    request,
    send_for,
)

pytestmark = [pytest.mark.timeout(60), pytest.mark.skipif(not HAVE_PROC, reason="reads /proc")]

MODELS = ["async", "threaded"]
SMALL_RCVBUF = 64 * 1024  # an attacker that reads nothing lets the kernel hold little for it
DEFAULT_MAX_IN_FLIGHT = 16_384


@contextmanager
def serving(*args: str) -> Iterator[ServerProcess]:
    server = start_server(*args)
    try:
        yield server
    finally:
        server.stop()


def blob_args(size: int, seed: int) -> bytes:
    return methods.U32.pack(size) + methods.U32.pack(seed)


@pytest.mark.parametrize("model", MODELS)
def test_pipelined_blobs_never_read(model: str) -> None:
    """200 x blob(4 MiB) in one write, none read: the server writes only as fast as the
    peer reads (was: +850 MB RSS on the async model)."""
    with serving("--model", model) as server, Watch(
        server, f"{model}: 200 x blob(4 MiB) pipelined, never read", rss_growth_mb=48, p99_s=0.5,
    ) as watch:
        sock = connect(server, rcvbuf=SMALL_RCVBUF)
        handshake(sock)
        sock.sendall(b"".join(request(rid, "blob", blob_args(4 * MIB, rid)) for rid in range(1, 201)))
        watch.wait(1.0)
        watch.hold(2.0)
        abort(sock)


@pytest.mark.parametrize("model", MODELS)
def test_fast_stream_then_leave(model: str) -> None:
    """words(10_000_000, wait=0), read a little, then leave at once (RST), ten times; then
    three more that read nothing for 0.7 s before leaving. Each stream stops when its peer
    goes (was: the async server wrote the whole stream in one loop turn, 7 s and +137 MB,
    and only then noticed)."""
    with serving("--model", model) as server, Watch(
        server, f"{model}: 13 x words(10_000_000, 0) then leave", rss_growth_mb=32, p99_s=0.5,
    ) as watch:
        for _ in range(10):
            sock = connect(server)
            handshake(sock)
            sock.sendall(request(1, "words", methods.U32_F64.pack(10_000_000, 0.0)))
            assert read_frame(sock).kind is FrameKind.STREAM_ITEM  # the stream is running
            abort(sock)
            time.sleep(0.05)
        for _ in range(3):
            sock = connect(server, rcvbuf=SMALL_RCVBUF)
            handshake(sock)
            sock.sendall(request(1, "words", methods.U32_F64.pack(10_000_000, 0.0)))
            time.sleep(0.7)  # the kernels' buffers fill up meanwhile
            abort(sock)
        watch.wait(0.5)
        watch.hold(1.5)  # every stream has stopped: the server is idle again


@pytest.mark.parametrize("model", MODELS)
def test_fast_stream_never_read(model: str) -> None:
    """A wait=0 stream whose peer reads nothing waits for the drain instead of buffering."""
    with serving("--model", model) as server, Watch(
        server, f"{model}: words(10_000_000, 0), never read", rss_growth_mb=32, p99_s=0.5,
    ) as watch:
        sock = connect(server, rcvbuf=SMALL_RCVBUF)
        handshake(sock)
        sock.sendall(request(1, "words", methods.U32_F64.pack(10_000_000, 0.0)))
        watch.wait(1.0)
        watch.hold(2.0)
        abort(sock)


def test_cancel_of_a_fast_stream_is_prompt() -> None:
    """Async model: a CANCEL is read between the batches of a wait=0 stream. (The threaded
    model reads a CANCEL only between requests, protocol.md §9.)"""
    with serving("--model", "async") as server:
        sock = connect(server)
        handshake(sock)
        sock.sendall(request(1, "words", methods.U32_F64.pack(10_000_000, 0.0)))
        assert read_frame(sock).kind is FrameKind.STREAM_ITEM
        started = time.monotonic()
        sock.sendall(encode_frame(FrameKind.CANCEL, 1))
        items = 0
        while True:
            frame = read_frame(sock)
            if frame.kind is not FrameKind.STREAM_ITEM:
                break
            items += 1
        took = time.monotonic() - started
        assert frame.kind is FrameKind.ERROR and frame.id == 1, frame
        assert decode_error(frame.payload).code == ErrorCode.CANCELLED
        print(f"[stress] async: CANCEL of words(10_000_000, 0) answered in {took * 1000:.0f} ms "
              f"after {items} more items")
        assert took < 2.0
        sock.sendall(request(2, "echo", methods.F64.pack(0.0) + b"after"))
        assert read_frame(sock) == (FrameKind.RESPONSE, 2, b"after")
        sock.close()


@pytest.mark.parametrize("model", MODELS)
def test_pipelined_sleeps_hold_the_in_flight_cap(model: str) -> None:
    """200,000 pipelined sleep(30): at most max_in_flight are served at once, the rest wait
    in the kernel (was: +250-400 MB, a task each)."""
    data = b"".join(request(rid, "sleep", methods.F64.pack(30.0)) for rid in range(1, 200_001))
    cap = DEFAULT_MAX_IN_FLIGHT if model == "async" else 1
    with serving("--model", model) as server, Watch(
        server, f"{model}: 200,000 x sleep(30) pipelined", rss_growth_mb=96, p99_s=0.5,
    ) as watch:
        sock = connect(server)
        handshake(sock)
        sent_box: list[int] = []
        sender = threading.Thread(target=lambda: sent_box.append(send_for(sock, data, 4.0)))
        sender.start()
        watch.wait(1.5)
        in_flight = max(watch.honest.stats().requests_in_flight for _ in range(3))
        watch.hold(2.0)
        sender.join()
        in_flight = max(in_flight, watch.honest.stats().requests_in_flight)
        sent = sent_box[0] // len(request(1, "sleep", methods.F64.pack(30.0)))
        print(f"[stress] {model}: {sent} sleep requests sent, {in_flight} in flight (cap {cap})")
        assert 0 < in_flight <= cap
        abort(sock)


@pytest.mark.parametrize("model", MODELS)
def test_oversized_hello_before_the_token_is_checked(model: str) -> None:
    """24 connections each send the first 16 MiB - 1 of a HELLO to a server with a token:
    a frame over MAX_HELLO_FRAME is refused at its length prefix (was: +400 MB)."""
    with serving("--model", model, "--token", "secret") as server, Watch(
        server, f"{model}: 24 x 16 MiB HELLO with --token", rss_growth_mb=32, p99_s=0.5, token="secret",
    ) as watch:
        first = HEADER.pack(16 * MIB, FrameKind.HELLO, 0) + HELLO.pack(1)  # a 16 MiB HELLO ...
        data = first + b"t" * (16 * MIB - 1 - len(first))  # ... all but its last byte
        socks = [connect(server) for _ in range(24)]
        senders = [threading.Thread(target=send_for, args=(sock, data, 3.0)) for sock in socks]
        for sender in senders:
            sender.start()
        watch.hold(2.0)
        for sender in senders:
            sender.join()
        for sock in socks:
            sock.close()
        # and the refusal, on a connection that sends only the length prefix
        sock = connect(server)
        sock.sendall(first)
        frame = read_frame(sock)
        assert frame.kind is FrameKind.ERROR and frame.id == 0
        assert decode_error(frame.payload).code == ErrorCode.FRAME_TOO_LARGE
        sock.close()
