"""A bug while serving one request costs that request an ERROR INTERNAL frame, never the
connection: on both server models, whether the failure comes while planning the request,
in the middle of a stream, or while writing a delayed answer. And the server's limits
refuse nonsense values."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from dualio.server import service
from dualio.server.config import ServerConfig
from dualio.server.embedded import EmbeddedServer, ServerModel
from dualio.server.service import Counters, Reply, WordStream
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import ClientProtocol, decode_error
from dualio_transports.dualio_protocol.frames import Frame, FrameDecoder, FrameKind, encode_frame
from dualio_transports.wire.errors import ErrorCode

pytestmark = pytest.mark.timeout(30)


@dataclass(frozen=True)
class BrokenStream(WordStream):
    def item(self, index: int) -> bytes:
        if index == 2:
            raise RuntimeError("a bug in item 2")
        return methods.word_at(index).encode()


class BrokenPayload(bytes):
    """A delayed reply whose payload blows up when its frame is made (after the delay)."""

    def __radd__(self, other: object) -> bytes:
        raise OverflowError("a bug in the payload")


class BrokenSize(bytes):
    """A delayed reply whose payload blows up as soon as the server looks at it."""

    def __len__(self) -> int:
        raise OverflowError("a bug in the payload's size")


def _boom(args: bytes, counters: Counters, max_frame_size: int) -> Reply:
    raise OverflowError("a bug while planning")


def _broken_words(args: bytes, counters: Counters, max_frame_size: int) -> WordStream:
    return BrokenStream(5, methods.F64.unpack(args)[0])


def _broken_later(args: bytes, counters: Counters, max_frame_size: int) -> Reply:
    return Reply(0.05, BrokenPayload(b"x") if args else BrokenSize(b"x"))


@pytest.fixture(params=["async", "threaded", "sequential"])
def server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[EmbeddedServer]:
    monkeypatch.setitem(service._METHODS, "boom", _boom)
    monkeypatch.setitem(service._METHODS, "broken_words", _broken_words)
    monkeypatch.setitem(service._METHODS, "broken_later", _broken_later)
    model: ServerModel = request.param
    with EmbeddedServer(ServerConfig(port=0), model=model) as embedded:
        yield embedded


def frames_until(sock: socket.socket, decoder: FrameDecoder, rid: int) -> list[Frame]:
    """Frames up to and including the final frame of ``rid``."""
    got: list[Frame] = []
    while True:
        data = sock.recv(65536)
        assert data, "the server closed the connection"
        got += decoder.feed(data)
        if any(f.id == rid and f.kind is not FrameKind.STREAM_ITEM for f in got):
            return got


@pytest.mark.parametrize(
    ("method", "args"),
    [("boom", b""), ("broken_words", methods.F64.pack(0.01)), ("broken_words", methods.F64.pack(0.0)),
     ("broken_later", b"late"), ("broken_later", b"")],
    ids=["while-planning", "mid-stream", "mid-fast-stream", "delayed-reply", "starting"],
)
def test_a_failing_request_gets_internal_and_the_connection_lives(
    server: EmbeddedServer, method: str, args: bytes
) -> None:
    counters = server.config.counters
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        decoder = FrameDecoder()
        sock.sendall(ClientProtocol().hello())
        assert frames_until(sock, decoder, 0)[0].kind is FrameKind.WELCOME
        before = counters.snapshot().errors
        sock.sendall(encode_frame(FrameKind.REQUEST, 1, methods.encode_request(method, args)))
        got = frames_until(sock, decoder, 1)
        final = got[-1]
        assert (final.kind, final.id) == (FrameKind.ERROR, 1), got
        assert decode_error(final.payload).code == ErrorCode.INTERNAL
        if args == methods.F64.pack(0.01):  # items one by one: the two before the bug arrive
            assert [f.kind for f in got[:-1]] == [FrameKind.STREAM_ITEM] * 2
        deadline = time.monotonic() + 2  # the server thread may finish its bookkeeping after the frame
        while counters.snapshot().requests_in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        assert counters.snapshot().requests_in_flight == 0
        assert counters.snapshot().errors == before + 1
        sock.sendall(encode_frame(FrameKind.REQUEST, 2, methods.encode_request(
            "echo", methods.F64.pack(0.0) + b"still here")))
        assert frames_until(sock, decoder, 2)[-1] == (FrameKind.RESPONSE, 2, b"still here")


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--idle-timeout", "-1"), ("--handshake-timeout", "0"), ("--max-connections", "0"),
     ("--max-in-flight", "0"), ("--max-in-flight-bytes", "-5"), ("--write-buffer-high", "0"),
     ("--handshake-timeout", "nan")],
)
def test_serve_rejects_bad_limits(flag: str, value: str) -> None:
    run = subprocess.run([sys.executable, "-m", "dualio", "serve", "--port", "0", flag, value],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert flag.lstrip("-").replace("-", "_") in run.stderr


def test_server_config_checks_its_limits() -> None:
    with pytest.raises(ValueError, match="max_in_flight"):
        ServerConfig(max_in_flight=0)
    with pytest.raises(ValueError, match="idle_timeout"):
        ServerConfig(idle_timeout=float("inf"))
    assert ServerConfig(idle_timeout=0).idle_timeout == 0  # 0 = off
