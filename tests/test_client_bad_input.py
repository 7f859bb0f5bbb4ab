"""The blocking client against servers that misbehave, over real TCP on 127.0.0.1.

Most tests run a tiny hand-written "bad server" on a thread: it accepts one
connection, reads the HELLO, answers a valid WELCOME, then misbehaves as the
scenario says. The rest use the real server (the ``server`` fixture or a
``start_server()`` process that gets killed).
"""

from __future__ import annotations

import signal
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from dualio_sync import (
    Client,
    ClosedError,
    ConnectError,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    FrameTooLarge,
    ProtocolError,
)
from tests.conftest import ServerProcess, start_server
from transports.wire.client_protocol import WELCOME
from transports.wire.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    HEADER,
    PROTOCOL_VERSION,
    Frame,
    FrameDecoder,
    FrameKind,
    encode_frame,
)

pytestmark = pytest.mark.timeout(30)

IO_TIMEOUT = 5.0  # the bad server never waits longer than this for anything
PROMPT = 1.0  # "promptly": a failure must reach the caller within this


# -- the bad server ---------------------------------------------------------------

Behaviour = Callable[[socket.socket], None]


def recv_exact(sock: socket.socket, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def read_frame(sock: socket.socket) -> Frame | None:
    """The next frame from the client, None at end of stream."""
    prefix = recv_exact(sock, 4)
    if prefix is None:
        return None
    (length,) = struct.unpack(">I", prefix)
    rest = recv_exact(sock, length)
    if rest is None:
        return None
    (frame,) = FrameDecoder().feed(prefix + rest)
    return frame


def read_request(sock: socket.socket) -> Frame:
    frame = read_frame(sock)
    assert frame is not None and frame.kind is FrameKind.REQUEST, frame
    return frame


def drain_until_eof(sock: socket.socket) -> None:
    """Keep reading (and ignoring) until the client goes away."""
    try:
        while sock.recv(65536):
            pass
    except OSError:
        pass


def welcome_frame() -> bytes:
    return encode_frame(FrameKind.WELCOME, 0, WELCOME.pack(PROTOCOL_VERSION, DEFAULT_MAX_FRAME_SIZE))


class BadServer:
    """Listens on 127.0.0.1:0; serves one connection with ``behaviour`` after the handshake."""

    def __init__(self, behaviour: Behaviour, *, welcome: bool = True) -> None:
        self.behaviour = behaviour
        self.welcome = welcome
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(IO_TIMEOUT)
        self.port: int = self.listener.getsockname()[1]
        self.hello: Frame | None = None
        self.failure: BaseException | None = None
        self.finished = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bad-server", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            conn, _ = self.listener.accept()
            with conn:
                conn.settimeout(IO_TIMEOUT)
                self.hello = read_frame(conn)
                assert self.hello is not None and self.hello.kind is FrameKind.HELLO
                if self.welcome:
                    conn.sendall(welcome_frame())
                self.behaviour(conn)
        except BaseException as exc:  # reported by close()
            self.failure = exc
        finally:
            self.finished.set()

    def client(self, **kwargs: float | None) -> Client:
        kwargs.setdefault("timeout", IO_TIMEOUT)
        kwargs.setdefault("connect_timeout", IO_TIMEOUT)
        return Client("127.0.0.1", self.port, **kwargs)  # type: ignore[arg-type]

    def close(self) -> None:
        self.thread.join(IO_TIMEOUT + 1)
        self.listener.close()
        assert not self.thread.is_alive(), "the bad server thread hangs"
        if self.failure is not None:
            raise self.failure


@pytest.fixture
def bad_server() -> Iterator[Callable[..., BadServer]]:
    servers: list[BadServer] = []

    def make(behaviour: Behaviour, **kwargs: bool) -> BadServer:
        server = BadServer(behaviour, **kwargs)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.close()


def timed(fn: Callable[[], object]) -> tuple[BaseException | None, float]:
    """Run ``fn``; the exception it raised (or None) and how long it took."""
    started = time.monotonic()
    try:
        fn()
    except BaseException as exc:
        return exc, time.monotonic() - started
    return None, time.monotonic() - started


# -- a server that breaks the protocol --------------------------------------------


def send_unknown_kind(sock: socket.socket) -> None:
    request = read_request(sock)
    sock.sendall(HEADER.pack(5, 99, request.id))
    drain_until_eof(sock)


def send_oversized_length(sock: socket.socket) -> None:
    read_request(sock)
    sock.sendall(struct.pack(">IBI", 0xFFFFFFFF, FrameKind.RESPONSE, 1))
    drain_until_eof(sock)


def send_response_for_unknown_id(sock: socket.socket) -> None:
    request = read_request(sock)
    sock.sendall(encode_frame(FrameKind.RESPONSE, request.id + 1000, b"not yours"))
    drain_until_eof(sock)


def send_short_length(sock: socket.socket) -> None:
    read_request(sock)
    sock.sendall(b"\x00\x00\x00\x02ab")
    drain_until_eof(sock)


def send_client_only_kind(sock: socket.socket) -> None:
    request = read_request(sock)
    sock.sendall(encode_frame(FrameKind.REQUEST, request.id, b"\x04echo"))
    drain_until_eof(sock)


def send_second_welcome(sock: socket.socket) -> None:
    read_request(sock)
    sock.sendall(welcome_frame())
    drain_until_eof(sock)


BROKEN = {
    "unknown-kind": (send_unknown_kind, ProtocolError),
    "oversized-length": (send_oversized_length, FrameTooLarge),
    "response-for-unknown-id": (send_response_for_unknown_id, ProtocolError),
    "length-shorter-than-header": (send_short_length, ProtocolError),
    "client-only-kind": (send_client_only_kind, ProtocolError),
    "second-welcome": (send_second_welcome, ProtocolError),
}


@pytest.mark.parametrize(("behaviour", "expected"), BROKEN.values(), ids=BROKEN.keys())
def test_protocol_violation_fails_the_pending_call_promptly(
    bad_server: Callable[..., BadServer], behaviour: Behaviour, expected: type[ProtocolError]
) -> None:
    server = bad_server(behaviour)
    client = server.client(timeout=IO_TIMEOUT)
    error, took = timed(lambda: client.echo(b"pending"))
    assert isinstance(error, expected), error
    assert took < PROMPT
    assert client.closed
    client.close()
    assert server.finished.wait(IO_TIMEOUT)  # the client hung up on the bad server


@pytest.mark.parametrize(("behaviour", "expected"), BROKEN.values(), ids=BROKEN.keys())
def test_calls_after_a_protocol_violation_raise_closed_error(
    bad_server: Callable[..., BadServer], behaviour: Behaviour, expected: type[ProtocolError]
) -> None:
    server = bad_server(behaviour)
    with server.client() as client:
        with pytest.raises(expected):
            client.echo(b"pending")
        assert client.closed
        error, took = timed(lambda: client.echo(b"after"))
        assert took < PROMPT
        assert isinstance(error, ClosedError), repr(error)


def test_calls_after_a_protocol_violation_fail_fast_with_a_dualio_error(
    bad_server: Callable[..., BadServer],
) -> None:
    """The part of the test above that holds today: no hang, a typed error."""
    server = bad_server(send_unknown_kind)
    with server.client() as client:
        with pytest.raises(ProtocolError):
            client.echo(b"pending")
        for call in (lambda: client.echo(b"after"), client.ping, client.stats):
            error, took = timed(call)
            assert isinstance(error, DualioError), repr(error)
            assert took < PROMPT


def test_closed_client_raises_closed_error(bad_server: Callable[..., BadServer]) -> None:
    server = bad_server(send_unknown_kind)
    client = server.client()
    with pytest.raises(ProtocolError):
        client.echo(b"pending")
    client.close()
    assert client.closed
    with pytest.raises(ClosedError):
        client.echo(b"after close")


# -- a server that goes away or goes quiet -----------------------------------------


def close_mid_request(sock: socket.socket) -> None:
    read_request(sock)


def test_server_closes_mid_request(bad_server: Callable[..., BadServer]) -> None:
    server = bad_server(close_mid_request)
    with server.client() as client:
        error, took = timed(lambda: client.echo(b"pending"))
        assert isinstance(error, ClosedError), repr(error)
        assert took < PROMPT
        assert client.closed
        with pytest.raises(DualioError):
            client.echo(b"after")


def reset_mid_request(sock: socket.socket) -> None:
    read_request(sock)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_server_resets_mid_request(bad_server: Callable[..., BadServer]) -> None:
    server = bad_server(reset_mid_request)
    with server.client() as client:
        error, took = timed(lambda: client.echo(b"pending"))
        assert isinstance(error, ClosedError), repr(error)
        assert took < PROMPT


def test_server_never_answers(bad_server: Callable[..., BadServer]) -> None:
    requests: list[Frame] = []

    def silent(sock: socket.socket) -> None:
        while (frame := read_frame(sock)) is not None:
            requests.append(frame)

    server = bad_server(silent)
    with server.client(timeout=IO_TIMEOUT) as client:
        for _ in range(2):
            error, took = timed(lambda: client.echo(b"anyone?", timeout=0.3))
            assert isinstance(error, DualioTimeout), repr(error)
            assert 0.29 <= took < 0.3 + PROMPT
            assert not client.closed  # a timeout leaves the connection usable
    assert server.finished.wait(IO_TIMEOUT)
    kinds = [frame.kind for frame in requests]
    # each timed-out call was cancelled on the wire, then the client said goodbye
    assert kinds == [FrameKind.REQUEST, FrameKind.CANCEL] * 2 + [FrameKind.CLOSE], kinds
    assert requests[0].id == requests[1].id != requests[2].id == requests[3].id


def test_server_never_sends_welcome(bad_server: Callable[..., BadServer]) -> None:
    server = bad_server(drain_until_eof, welcome=False)
    error, took = timed(lambda: server.client(connect_timeout=0.3))
    assert isinstance(error, ConnectTimeout), repr(error)
    assert 0.29 <= took < 0.3 + PROMPT


def hang_up(sock: socket.socket) -> None:
    pass


def reset(sock: socket.socket) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


@pytest.mark.parametrize("behaviour", [hang_up, reset], ids=["close", "reset"])
def test_server_goes_away_before_welcome_fails_promptly(
    bad_server: Callable[..., BadServer], behaviour: Behaviour
) -> None:
    server = bad_server(behaviour, welcome=False)
    error, took = timed(lambda: server.client(connect_timeout=IO_TIMEOUT))
    assert isinstance(error, DualioError), repr(error)
    assert took < PROMPT


@pytest.mark.parametrize("behaviour", [hang_up, reset], ids=["close", "reset"])
def test_server_goes_away_before_welcome_is_a_connect_error(
    bad_server: Callable[..., BadServer], behaviour: Behaviour
) -> None:
    server = bad_server(behaviour, welcome=False)
    error, _ = timed(lambda: server.client(connect_timeout=IO_TIMEOUT))
    assert isinstance(error, ConnectError), repr(error)
    assert not isinstance(error, ConnectTimeout)


def test_connection_refused() -> None:
    # A bound socket that does not listen: connecting to its port is refused, and
    # keeping it bound means no one else can start listening there meanwhile.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        error, took = timed(lambda: Client("127.0.0.1", port, connect_timeout=IO_TIMEOUT))
    assert isinstance(error, ConnectError), repr(error)
    assert not isinstance(error, ConnectTimeout)
    assert took < PROMPT


# -- the real server ------------------------------------------------------------------


def test_timeout_then_every_answer_goes_to_its_own_call(any_server: ServerProcess) -> None:
    with Client(*any_server.address, timeout=IO_TIMEOUT) as client:
        error, took = timed(lambda: client.sleep(1.0, timeout=0.2))
        assert isinstance(error, DualioTimeout), repr(error)
        assert 0.19 <= took < 0.2 + PROMPT
        assert not client.closed
        for i in range(100):
            payload = f"call {i} ".encode() * (i % 5 + 1)
            assert client.echo(payload) == payload
        # a second timed-out call whose late answer lands between later calls
        with pytest.raises(DualioTimeout):
            client.echo(b"late", delay=0.3, timeout=0.05)
        for i in range(100):
            payload = f"again {i}".encode()
            assert client.echo(payload, delay=0.005 if i % 10 == 0 else 0.0) == payload
        assert client.ping() < PROMPT


def test_server_killed_with_calls_pending_in_many_threads() -> None:
    server = start_server()
    try:
        with Client(*server.address, timeout=IO_TIMEOUT) as client:
            assert client.echo(b"up") == b"up"
            results: dict[int, BaseException | None] = {}
            finished_at: dict[int, float] = {}

            def wait(n: int) -> None:
                error, _ = timed(lambda: client.sleep(3.0))
                results[n] = error
                finished_at[n] = time.monotonic()

            threads = [threading.Thread(target=wait, args=(n,), daemon=True) for n in range(6)]
            for thread in threads:
                thread.start()
            deadline = time.monotonic() + IO_TIMEOUT
            while client.stats().requests_in_flight < len(threads) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert client.stats().requests_in_flight == len(threads)
            server.process.send_signal(signal.SIGKILL)
            killed_at = time.monotonic()
            for thread in threads:
                thread.join(PROMPT + 1)
            assert not any(thread.is_alive() for thread in threads), "a pending call hangs"
            assert sorted(results) == list(range(len(threads)))
            for n, error in results.items():
                assert isinstance(error, ClosedError), repr(error)
                assert finished_at[n] - killed_at < PROMPT
            assert client.closed
            with pytest.raises(DualioError):
                client.echo(b"after")
    finally:
        server.process.kill()
        server.process.wait(IO_TIMEOUT)


def test_many_threads_no_misrouted_responses(server: ServerProcess) -> None:
    threads_count, calls = 8, 200
    misrouted: list[tuple[bytes, bytes]] = []
    unexpected: list[BaseException] = []
    timed_out = [0] * threads_count
    ok = [0] * threads_count

    with Client(*server.address, timeout=IO_TIMEOUT) as client:

        def work(t: int) -> None:
            for i in range(calls):
                payload = f"thread {t} call {i} ".encode() + bytes([t, i % 256]) * (i % 13)
                try:
                    if i % 25 == 7:  # on purpose: the answer comes after the caller gave up
                        client.echo(payload, delay=0.2, timeout=0.02)
                        unexpected.append(AssertionError(f"{t}/{i} did not time out"))
                        continue
                    answer = client.echo(payload, delay=0.001 if i % 10 == 3 else 0.0)
                except DualioTimeout:
                    if i % 25 == 7:
                        timed_out[t] += 1
                    else:
                        unexpected.append(AssertionError(f"{t}/{i} timed out"))
                    continue
                except BaseException as exc:
                    unexpected.append(exc)
                    return
                if answer != payload:
                    misrouted.append((payload, answer))
                ok[t] += 1

        threads = [threading.Thread(target=work, args=(t,), daemon=True) for t in range(threads_count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert not any(thread.is_alive() for thread in threads), "a call hangs"
        assert unexpected == []
        assert misrouted == []
        assert timed_out == [calls // 25] * threads_count
        assert ok == [calls - calls // 25] * threads_count
        # Wait out the late answers (read while waiting), then every id is free again.
        assert client.echo(b"last", delay=0.3) == b"last"
        assert client._conn is not None
        assert client._conn.in_flight == 0
        assert client._conn.dropped > 0  # late answers did arrive, and were dropped
        assert not client.closed
