"""The real server against clients that misbehave, over real TCP on 127.0.0.1.

Each bad input is sent on a raw socket. For every one we check four things:
the bad connection got its error frame or was disconnected; a well-behaved
``Client`` connected *before* the bad input still gets answers; the server
process is alive; and the server logged exactly one line about the bad peer.
"""

from __future__ import annotations

import random
import socket
import struct
import time
from collections.abc import Iterator

import pytest

from dualio_sync import AuthenticationError, Client, RemoteError
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import HELLO, ClientProtocol, decode_error
from dualio_transports.dualio_protocol.frames import (
    HEADER,
    PROTOCOL_VERSION,
    Frame,
    FrameDecoder,
    FrameKind,
    encode_frame,
)
from dualio_transports.wire.errors import ErrorCode
from tests.conftest import ServerProcess, start_server

pytestmark = pytest.mark.timeout(30)

IO_TIMEOUT = 2.0  # no socket read in this file waits longer
LOG_WAIT = 2.0  # how long a log line may take to show up
LOG_SETTLE = 0.2  # extra wait to catch a second, unwanted line
MODELS = ["async", "threaded"]


# -- raw-socket helpers ---------------------------------------------------------


def connect(server: ServerProcess) -> tuple[socket.socket, str]:
    """A raw TCP connection and the peer name the server will log for it."""
    sock = socket.create_connection(server.address, timeout=IO_TIMEOUT)
    host, port = sock.getsockname()[:2]
    return sock, f"{host}:{port}"


def hello(token: str | None = None) -> bytes:
    return ClientProtocol(token=token).hello()


def request(rid: int, method: str, args: bytes) -> bytes:
    return encode_frame(FrameKind.REQUEST, rid, methods.encode_request(method, args))


def echo_request(rid: int, data: bytes, delay: float = 0.0) -> bytes:
    return request(rid, "echo", methods.F64.pack(delay) + data)


def recv_exact(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise AssertionError(f"EOF after {len(data)} of {size} bytes")
        data += chunk
    return bytes(data)


def read_frame(sock: socket.socket) -> Frame:
    """The next frame (the socket's timeout bounds the wait)."""
    (length,) = struct.unpack(">I", recv_exact(sock, 4))
    frames = FrameDecoder().feed(struct.pack(">I", length) + recv_exact(sock, length))
    assert len(frames) == 1
    return frames[0]


def handshake(sock: socket.socket, token: str | None = None) -> None:
    sock.sendall(hello(token))
    frame = read_frame(sock)
    assert frame.kind is FrameKind.WELCOME and frame.id == 0, frame


def read_until_eof(sock: socket.socket, timeout: float = IO_TIMEOUT) -> list[Frame]:
    """Every frame the server sends until it closes; fails if it does not close in time."""
    deadline = time.monotonic() + timeout
    data = bytearray()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"the server did not close the connection within {timeout}s")
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    frames = FrameDecoder().feed(bytes(data))
    return frames


def assert_connection_error(frames: list[Frame], *codes: ErrorCode) -> None:
    """Exactly one frame arrived: an ERROR with id 0 carrying one of ``codes``."""
    assert len(frames) == 1, frames
    frame = frames[0]
    assert frame.kind is FrameKind.ERROR and frame.id == 0, frame
    error = decode_error(frame.payload)
    assert error.code in codes, error


def assert_request_error(frame: Frame, rid: int, code: ErrorCode) -> None:
    assert frame.kind is FrameKind.ERROR and frame.id == rid, frame
    assert decode_error(frame.payload).code == code, decode_error(frame.payload)


def abort(sock: socket.socket) -> None:
    """Close with a TCP RST: the client vanishes without a goodbye."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def lines_about(server: ServerProcess, mark: int, peer: str) -> list[str]:
    return [line for line in server.log_since(mark) if f"{peer}: " in line]


def wait_for_log(server: ServerProcess, mark: int, peer: str, count: int = 1) -> list[str]:
    """Poll until ``count`` lines about ``peer`` arrived (or LOG_WAIT passed), then settle."""
    deadline = time.monotonic() + LOG_WAIT
    while len(lines_about(server, mark, peer)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(LOG_SETTLE)
    return lines_about(server, mark, peer)


def assert_survived(server: ServerProcess, good: Client) -> None:
    """The server process lives and an older, well-behaved connection still works."""
    assert server.process.poll() is None, "the server process died"
    payload = f"still here {time.monotonic()}".encode()
    assert good.echo(payload, timeout=IO_TIMEOUT) == payload
    assert not good.closed


# -- fixtures -------------------------------------------------------------------


@pytest.fixture
def good(any_server: ServerProcess) -> Iterator[Client]:
    """A well-behaved connection opened before the bad input."""
    with Client(*any_server.address, timeout=IO_TIMEOUT, connect_timeout=IO_TIMEOUT) as client:
        assert client.echo(b"warm-up") == b"warm-up"
        yield client


@pytest.fixture(scope="module", params=MODELS)
def small_frame_server(request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    proc = start_server("--model", request.param, "--max-frame-size", "1024")
    yield proc
    assert proc.stop() == 0


@pytest.fixture(scope="module", params=MODELS)
def token_server(request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    proc = start_server("--model", request.param, "--token", "secret")
    yield proc
    assert proc.stop() == 0


def good_client(server: ServerProcess, token: str | None = None) -> Client:
    client = Client(*server.address, timeout=IO_TIMEOUT, connect_timeout=IO_TIMEOUT, token=token)
    assert client.echo(b"warm-up") == b"warm-up"
    return client


# -- connection-level bad input: error frame id 0, then the server closes --------

GARBAGE = {
    "http": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    "short-length": b"\x00\x00\x00\x01\xff",
    "zero-length": b"\x00\x00\x00\x00",
    "random": random.Random(1234).randbytes(64),
}


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_bytes(any_server: ServerProcess, good: Client, garbage: bytes) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        sock.sendall(garbage)
        frames = read_until_eof(sock)
    assert_connection_error(frames, ErrorCode.BAD_FRAME, ErrorCode.FRAME_TOO_LARGE)
    assert_survived(any_server, good)
    assert len(wait_for_log(any_server, mark, peer)) == 1


@pytest.mark.parametrize("after_handshake", [False, True], ids=["before-hello", "after-hello"])
def test_length_prefix_over_the_limit(small_frame_server: ServerProcess, after_handshake: bool) -> None:
    server = small_frame_server
    with good_client(server) as good:
        mark = len(server.log)
        sock, peer = connect(server)
        with sock:
            if after_handshake:
                handshake(sock)
            # A 2000-byte frame is announced; only its first bytes are ever sent.
            sock.sendall(struct.pack(">IBI", 2000, FrameKind.REQUEST, 1) + b"x" * 16)
            frames = read_until_eof(sock)
        assert_connection_error(frames, ErrorCode.FRAME_TOO_LARGE)
        assert_survived(server, good)
        lines = wait_for_log(server, mark, peer)
        assert len(lines) == 1
        assert "FRAME_TOO_LARGE" in lines[0]


def test_frame_within_the_small_limit_still_works(small_frame_server: ServerProcess) -> None:
    """Control for the test above: the limit rejects only what is over it."""
    with good_client(small_frame_server) as client:
        payload = b"y" * (1024 - 5 - 1 - len("echo") - 8)  # exactly a 1024-byte request frame
        assert client.echo(payload) == payload


@pytest.mark.parametrize("kind", [0, 12, 99, 255])
def test_unknown_frame_kind(any_server: ServerProcess, good: Client, kind: int) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        handshake(sock)
        sock.sendall(HEADER.pack(5, kind, 1))
        frames = read_until_eof(sock)
    assert_connection_error(frames, ErrorCode.BAD_FRAME)
    assert_survived(any_server, good)
    lines = wait_for_log(any_server, mark, peer)
    assert len(lines) == 1
    assert "BAD_FRAME" in lines[0]


@pytest.mark.parametrize("kind", [FrameKind.WELCOME, FrameKind.RESPONSE, FrameKind.STREAM_ITEM])
def test_frame_kind_only_a_server_may_send(any_server: ServerProcess, good: Client, kind: FrameKind) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        handshake(sock)
        sock.sendall(encode_frame(kind, 1, b"abc"))
        frames = read_until_eof(sock)
    assert_connection_error(frames, ErrorCode.BAD_FRAME)
    assert_survived(any_server, good)
    assert len(wait_for_log(any_server, mark, peer)) == 1


def test_request_before_the_handshake(any_server: ServerProcess, good: Client) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        sock.sendall(echo_request(1, b"too early"))
        frames = read_until_eof(sock)
    assert_connection_error(frames, ErrorCode.NOT_READY)
    assert_survived(any_server, good)
    lines = wait_for_log(any_server, mark, peer)
    assert len(lines) == 1
    assert "NOT_READY" in lines[0]


def test_unsupported_protocol_version(any_server: ServerProcess, good: Client) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        sock.sendall(encode_frame(FrameKind.HELLO, 0, HELLO.pack(PROTOCOL_VERSION + 1)))
        frames = read_until_eof(sock)
    assert_connection_error(frames, ErrorCode.UNSUPPORTED_VERSION)
    assert_survived(any_server, good)
    assert len(wait_for_log(any_server, mark, peer)) == 1


# -- request-level bad input: error frame on that id, the connection stays usable --


def test_unknown_method(any_server: ServerProcess, good: Client) -> None:
    sock, _ = connect(any_server)
    with sock:
        handshake(sock)
        sock.sendall(request(1, "no_such_method", b""))
        assert_request_error(read_frame(sock), 1, ErrorCode.UNKNOWN_METHOD)
        sock.sendall(echo_request(2, b"after unknown"))
        assert read_frame(sock) == Frame(FrameKind.RESPONSE, 2, b"after unknown")
        sock.sendall(encode_frame(FrameKind.CLOSE, 0))
        assert read_until_eof(sock) == []
    assert_survived(any_server, good)


@pytest.mark.parametrize(
    ("method", "args"),
    [("echo", b"abc"), ("sleep", b""), ("sleep", b"\x00" * 9), ("blob", b"\x00" * 4),
     ("words", b"\x00"), ("upper", methods.F64.pack(0.0) + b"\xff\xfe"),
     ("echo", methods.F64.pack(-1.0)), ("sleep", methods.F64.pack(float("nan")))],
)
def test_bad_arguments(any_server: ServerProcess, good: Client, method: str, args: bytes) -> None:
    sock, _ = connect(any_server)
    with sock:
        handshake(sock)
        sock.sendall(request(7, method, args))
        assert_request_error(read_frame(sock), 7, ErrorCode.BAD_ARGUMENTS)
        sock.sendall(echo_request(8, b"after bad args"))
        assert read_frame(sock) == Frame(FrameKind.RESPONSE, 8, b"after bad args")
    assert_survived(any_server, good)


def test_request_without_a_method_name(any_server: ServerProcess, good: Client) -> None:
    sock, _ = connect(any_server)
    with sock:
        handshake(sock)
        sock.sendall(encode_frame(FrameKind.REQUEST, 3, b"\x00rest"))
        assert_request_error(read_frame(sock), 3, ErrorCode.BAD_ARGUMENTS)
        sock.sendall(echo_request(4, b"ok"))
        assert read_frame(sock) == Frame(FrameKind.RESPONSE, 4, b"ok")
    assert_survived(any_server, good)


@pytest.mark.parametrize(
    ("payload", "code"),
    [(methods.encode_request("no_such_method", b""), ErrorCode.UNKNOWN_METHOD),
     (methods.encode_request("echo", b"abc"), ErrorCode.BAD_ARGUMENTS)],
    ids=["unknown-method", "bad-arguments"],
)
def test_request_error_is_logged_once(
    any_server: ServerProcess, good: Client, payload: bytes, code: ErrorCode
) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        handshake(sock)
        sock.sendall(encode_frame(FrameKind.REQUEST, 1, payload))
        assert_request_error(read_frame(sock), 1, code)
        assert len(wait_for_log(any_server, mark, peer)) == 1


# -- authentication ---------------------------------------------------------------


@pytest.mark.parametrize("token", ["wrong", "", "secret-but-longer", None], ids=repr)
def test_wrong_or_missing_token_raw(token_server: ServerProcess, token: str | None) -> None:
    server = token_server
    with good_client(server, token="secret") as good:
        mark = len(server.log)
        sock, peer = connect(server)
        with sock:
            sock.sendall(hello(token))
            frames = read_until_eof(sock)
        assert_connection_error(frames, ErrorCode.UNAUTHORIZED)
        assert_survived(server, good)
        lines = wait_for_log(server, mark, peer)
        assert len(lines) == 1
        assert "UNAUTHORIZED" in lines[0]


@pytest.mark.parametrize("token", ["wrong", None], ids=["wrong", "missing"])
def test_wrong_or_missing_token_client(token_server: ServerProcess, token: str | None) -> None:
    server = token_server
    with good_client(server, token="secret") as good:
        mark = len(server.log)
        started = time.monotonic()
        with pytest.raises(AuthenticationError):
            Client(*server.address, token=token, timeout=IO_TIMEOUT, connect_timeout=IO_TIMEOUT)
        assert time.monotonic() - started < 1.0
        assert_survived(server, good)
        deadline = time.monotonic() + LOG_WAIT
        while not server.log_since(mark) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(LOG_SETTLE)
        new = server.log_since(mark)
        assert len(new) == 1 and "UNAUTHORIZED" in new[0], new


def test_right_token_handshake_works(token_server: ServerProcess) -> None:
    sock, _ = connect(token_server)
    with sock:
        handshake(sock, token="secret")
        sock.sendall(echo_request(1, b"authorised"))
        assert read_frame(sock) == Frame(FrameKind.RESPONSE, 1, b"authorised")
    with Client(*token_server.address, token="secret", timeout=IO_TIMEOUT) as client:
        assert client.echo(b"hi") == b"hi"


# -- clients that go away -----------------------------------------------------------


def test_truncated_frame_then_client_closes(any_server: ServerProcess, good: Client) -> None:
    sock, _ = connect(any_server)
    with sock:
        handshake(sock)
        frame = echo_request(1, b"x" * 100)
        sock.sendall(frame[: len(frame) // 2])
        sock.shutdown(socket.SHUT_WR)
        # The server must see the end of the stream and close its side, sending nothing.
        assert read_until_eof(sock) == []
    assert_survived(any_server, good)


def test_truncated_frame_is_logged_once(any_server: ServerProcess, good: Client) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        handshake(sock)
        frame = echo_request(1, b"x" * 100)
        sock.sendall(frame[: len(frame) // 2])
        sock.shutdown(socket.SHUT_WR)
        assert read_until_eof(sock) == []
    assert_survived(any_server, good)
    assert len(wait_for_log(any_server, mark, peer)) == 1


def test_client_vanishes_mid_request(any_server: ServerProcess, good: Client) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    handshake(sock)
    sock.sendall(request(1, "sleep", methods.F64.pack(0.3)))
    time.sleep(0.05)  # let the server start the request
    abort(sock)
    assert_survived(any_server, good)
    lines = wait_for_log(any_server, mark, peer)
    assert len(lines) == 1, lines
    assert "lost" in lines[0]
    assert_survived(any_server, good)


def test_client_vanishes_mid_stream(any_server: ServerProcess, good: Client) -> None:
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    handshake(sock)
    sock.sendall(request(1, "words", methods.U32_F64.pack(1000, 0.005)))
    assert read_frame(sock).kind is FrameKind.STREAM_ITEM
    abort(sock)
    assert_survived(any_server, good)
    assert len(wait_for_log(any_server, mark, peer)) == 1


# -- counters and volume ------------------------------------------------------------


def test_stats_count_the_errors(any_server: ServerProcess, good: Client) -> None:
    before = good.stats().errors
    # one connection-level error ...
    mark = len(any_server.log)
    sock, peer = connect(any_server)
    with sock:
        sock.sendall(GARBAGE["http"])
        read_until_eof(sock)
    wait_for_log(any_server, mark, peer)
    assert good.stats().errors == before + 1
    # ... and two request-level errors, on the well-behaved connection
    with pytest.raises(RemoteError) as unknown:
        good.call("no_such_method")
    assert unknown.value.code == ErrorCode.UNKNOWN_METHOD
    with pytest.raises(RemoteError) as bad_args:
        good.call("echo", b"abc")
    assert bad_args.value.code == ErrorCode.BAD_ARGUMENTS
    assert good.stats().errors == before + 3
    assert good.echo(b"fine") == b"fine"
    assert good.stats().errors == before + 3


def test_survives_200_garbage_connections(any_server: ServerProcess, good: Client) -> None:
    mark = len(any_server.log)
    before = good.stats().errors
    rng = random.Random(99)
    peers = []
    for i in range(200):
        sock, peer = connect(any_server)
        peers.append(peer)
        with sock:
            sock.sendall(list(GARBAGE.values())[i % len(GARBAGE)] + rng.randbytes(i % 7))
            assert_connection_error(read_until_eof(sock), ErrorCode.BAD_FRAME, ErrorCode.FRAME_TOO_LARGE)
    assert_survived(any_server, good)
    with Client(*any_server.address, timeout=IO_TIMEOUT) as fresh:
        assert fresh.echo(b"new connection") == b"new connection"
    deadline = time.monotonic() + LOG_WAIT
    while len(any_server.log_since(mark)) < 200 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(LOG_SETTLE)
    new = any_server.log_since(mark)
    assert len(new) == 200
    logged = {line.split(": ")[0].split()[-1] for line in new}
    assert logged <= set(peers)
    assert good.stats().errors == before + 200
