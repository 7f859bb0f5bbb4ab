"""`dualio serve --model sequential`, over real TCP: one connection at a time, the others
waiting in the listen backlog; the full protocol on every transport; a garbage peer, a
silent peer and an idle peer cost one connection, not the server; signals stop it."""

from __future__ import annotations

import importlib.util
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from dualio_sync import Client
from dualio_transports.dualio_protocol.frames import FrameKind
from dualio_transports.wire.errors import ErrorCode
from tests.conftest import ServerProcess, start_server
from tests.contract.faces import TRANSPORTS, UVLOOP, Backend, Transport
from tests.test_server_bad_input import (
    GARBAGE,
    IO_TIMEOUT,
    assert_connection_error,
    connect,
    echo_request,
    handshake,
    hello,
    read_frame,
    read_until_eof,
    wait_for_log,
)

pytestmark = pytest.mark.timeout(60)

SEQUENTIAL = ("--model", "sequential")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dualio", "serve", "--port", "0", *args],
                          capture_output=True, text=True, timeout=20)


@pytest.fixture(scope="module")
def sequential_server() -> Iterator[ServerProcess]:
    # A short idle timeout: a connection a case leaves open by mistake delays the next
    # case by seconds, not minutes.
    server = start_server(*SEQUENTIAL, "--idle-timeout", "5")
    yield server
    assert server.stop() == 0


def queued_client(server: ServerProcess, answers: list[tuple[float, bytes]]) -> threading.Thread:
    """A thread whose Client connects now and records when its first call is answered."""

    def run() -> None:
        with Client(*server.address, retry=None, timeout=20, connect_timeout=20) as client:
            answer = client.echo(b"queued")
            answers.append((time.monotonic(), answer))

    thread = threading.Thread(target=run)
    thread.start()
    return thread


# -- the protocol, on every transport ------------------------------------------------


@pytest.fixture
def anyio_backend(transport: Transport) -> Backend:
    return transport.backend


@pytest.mark.anyio
@pytest.mark.parametrize("transport", [
    pytest.param(t, id=t.id, marks=[pytest.mark.skipif(
        importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed")]
        if t.backend == UVLOOP else [])
    for t in TRANSPORTS
])
async def test_every_transport_is_served(sequential_server: ServerProcess, transport: Transport) -> None:
    client = await transport.connect(sequential_server.address, timeout=5, connect_timeout=5)
    try:
        before = await client.stats()
        assert before.connections_open == 1  # this one: the server holds no other
        assert await client.echo(b"hello") == b"hello"
        started = time.monotonic()
        assert await client.upper("later", delay=0.1) == "LATER"
        assert time.monotonic() - started >= 0.1
        words = await client.words(20)
        assert len(words) == 20 and await client.words(20, wait=0.001) == words
        assert await client.words(1000, take=3) == words[:3]  # left early: the stream is cancelled
        with pytest.raises(TimeoutError):
            await client.sleep(10, timeout=0.2)  # the client gives up: CANCEL ends the wait
        started = time.monotonic()
        assert await client.echo(b"after") == b"after"
        assert time.monotonic() - started < 2  # not queued behind the 10 s sleep
        after = await client.stats()
        assert after.requests_in_flight == 0
        assert after.connections_open == 1
        assert after.requests_served > before.requests_served
        assert after.errors >= before.errors + 1  # the CANCELLED sleep
    finally:
        await client.aclose()


# -- one connection at a time ----------------------------------------------------------


def test_a_second_client_waits_in_the_backlog_until_the_first_leaves(
    sequential_server: ServerProcess,
) -> None:
    server = sequential_server
    with Client(*server.address, retry=None, timeout=5) as first:
        assert first.echo(b"first") == b"first"
        second = socket.create_connection(server.address, timeout=20)  # the kernel accepts it
        connected_at = time.monotonic()
        with second:
            second.sendall(hello() + echo_request(1, b"second"))
            answered: list[float] = []

            def read_welcome() -> None:
                frame = read_frame(second)
                answered.append(time.monotonic())
                assert frame.kind is FrameKind.WELCOME

            reader = threading.Thread(target=read_welcome)
            reader.start()
            time.sleep(0.5)
            assert answered == []  # still waiting: the server serves the first client only
            assert first.echo(b"still first") == b"still first"
            left_at = time.monotonic()  # leaving begins: the answer may come before close() returns
            first.close()
            reader.join(10)
            assert answered, "the waiting client was never served"
            assert connected_at < left_at <= answered[0] < left_at + 5
            response = read_frame(second)
            assert response.kind is FrameKind.RESPONSE and response.id == 1
            assert response.payload == b"second"


@pytest.mark.skipif(sys.platform != "linux", reason="Linux queues backlog + 1 connections")
@pytest.mark.parametrize(("args", "backlog"), [((), 5), (("--backlog", "1"), 1)],
                         ids=["default-5", "backlog-1"])
def test_the_listen_backlog_bounds_the_waiting_connections(args: tuple[str, ...], backlog: int) -> None:
    server = start_server(*SEQUENTIAL, *args)
    waiting: list[socket.socket] = []
    try:
        with Client(*server.address, retry=None, timeout=5) as client:
            assert client.echo(b"held") == b"held"  # the server is busy with this one
            for _ in range(backlog + 4):
                try:
                    waiting.append(socket.create_connection(server.address, timeout=0.5))
                except OSError:
                    pass  # the accept queue is full: the kernel dropped the SYN (or reset it)
            assert len(waiting) == backlog + 1
    finally:
        for sock in waiting:
            sock.close()
        assert server.stop() == 0


# -- what a peer can make it hold ----------------------------------------------------


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=GARBAGE.keys())
def test_a_garbage_peer_gets_an_error_and_the_next_connection_is_served(
    sequential_server: ServerProcess, garbage: bytes
) -> None:
    server = sequential_server
    mark = len(server.log)
    sock, peer = connect(server)
    with sock:
        sock.sendall(garbage)
        frames = read_until_eof(sock)
    assert_connection_error(frames, ErrorCode.BAD_FRAME, ErrorCode.FRAME_TOO_LARGE)
    with Client(*server.address, retry=None, timeout=IO_TIMEOUT) as client:
        assert client.echo(b"next") == b"next"
    assert len(wait_for_log(server, mark, peer)) == 1


@pytest.fixture(scope="module")
def impatient_server() -> Iterator[ServerProcess]:
    server = start_server(*SEQUENTIAL, "--handshake-timeout", "0.5", "--idle-timeout", "1")
    yield server
    assert server.stop() == 0


@pytest.mark.parametrize("says", ["nothing", "hello-then-nothing"])
def test_a_silent_peer_is_dropped_and_the_waiting_client_served(
    impatient_server: ServerProcess, says: str
) -> None:
    server = impatient_server
    limit = 0.5 if says == "nothing" else 1.0  # the handshake deadline, then the idle timeout
    connected_at = time.monotonic()  # before connect: the server's clock starts at its accept,
    sock, _ = connect(server)  # which may come before connect() returns here
    with sock:
        if says == "hello-then-nothing":
            handshake(sock)
        answers: list[tuple[float, bytes]] = []
        waiting = queued_client(server, answers)
        frames = read_until_eof(sock, timeout=10)
        dropped_at = time.monotonic()
    assert limit <= dropped_at - connected_at < limit + 3
    if says == "nothing":
        assert frames == []  # no HELLO in time: closed without a word
    else:
        assert [frame.kind for frame in frames] == [FrameKind.CLOSE]
    waiting.join(20)
    assert answers and answers[0][1] == b"queued"
    assert answers[0][0] - dropped_at < 3


# -- stopping -----------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_it_while_a_client_is_served_and_another_waits(sig: signal.Signals) -> None:
    server = start_server(*SEQUENTIAL)
    with Client(*server.address, retry=None, timeout=5) as client:
        assert client.echo(b"served") == b"served"
        with socket.create_connection(server.address, timeout=5):  # waits in the backlog
            started = time.monotonic()
            server.process.send_signal(sig)
            assert server.process.wait(10) == 0
            assert time.monotonic() - started < 3
    assert not [line for line in server.log if "Traceback" in line], server.log


# -- bad options -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--backlog", "0"), "--backlog must be in 1..65535, got 0"),
        (("--backlog", "-3"), "--backlog must be in 1..65535, got -3"),
        (("--backlog", "70000"), "--backlog must be in 1..65535, got 70000"),
        (("--idle-timeout", "0"), "--model sequential needs --idle-timeout above 0"),
        (("--loop", "uvloop"), "--loop uvloop needs --model async"),
    ],
    ids=["backlog-0", "backlog-negative", "backlog-too-big", "no-idle-timeout", "uvloop"],
)
def test_bad_options_are_one_line_and_exit_2(args: tuple[str, ...], says: str) -> None:
    out = run_cli(*SEQUENTIAL, *args)
    assert out.returncode == 2, out
    assert says in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr


@pytest.mark.parametrize("args", [("--model", "nope"), (*SEQUENTIAL, "--backlog", "five")],
                         ids=["unknown-model", "backlog-not-a-number"])
def test_unparsable_options_exit_2_without_a_traceback(args: tuple[str, ...]) -> None:
    out = run_cli(*args)
    assert out.returncode == 2, out
    assert "invalid" in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_the_help_tells_the_backlog_default_of_each_model() -> None:
    out = subprocess.run([sys.executable, "-m", "dualio", "serve", "--help"], capture_output=True,
                         text=True, timeout=20)
    assert out.returncode == 0
    text = " ".join(out.stdout.split())
    assert "sequential" in text
    assert "default 5 for --model sequential" in text and "4096 otherwise" in text
