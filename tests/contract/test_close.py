"""The contract, on every transport: closing, the server going away, connecting failing
(see test_calls.py for how the cases run on every transport)."""

from __future__ import annotations

import functools
import signal
import socket
import time
from collections.abc import Callable

import anyio
import anyio.to_thread
import pytest

from dualio import ClosedError, ConnectError, ConnectTimeout, DualioError
from dualio_transports.dualio_protocol.frames import FrameKind, encode_frame
from tests.conftest import start_server
from tests.contract.faces import Face, Transport
from tests.contract.helpers import PROMPT, peer_finishes, timed
from tests.scripted_peer import ScriptedPeer, Step, drain, expect, hang_up, reset, send_raw, stall

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(20)]

Scripted = Callable[..., ScriptedPeer]


async def test_an_idle_client_says_goodbye(transport: Transport, scripted: Scripted) -> None:
    peer = scripted(drain())
    client = await transport.connect(peer.address)
    assert not client.closed
    await client.aclose()
    assert client.closed
    assert await peer_finishes(peer)
    assert peer.kinds == [FrameKind.HELLO, FrameKind.CLOSE]


CLOSE_GRACE = 1.0  # how long a close waits for its goodbye to leave before it aborts


async def test_closing_against_a_peer_that_reads_nothing_ends_within_the_grace(
    transport: Transport, scripted: Scripted
) -> None:
    """The peer stops reading after the handshake and the client fills the socket's
    buffers with large requests, each given up at a short timeout (a transport may
    fail the connection for a request it could not write whole in time). Closing then
    returns within the close grace, whatever the goodbye could do, and the client is
    closed."""
    peer = scripted(stall())
    client = await transport.connect(peer.address, timeout=0.5)
    for _ in range(20):
        error, _ = await timed(lambda: client.echo(b"x" * (1 << 20), timeout=0.05))
        assert isinstance(error, DualioError), repr(error)
    error, took = await timed(client.aclose)
    assert error is None, repr(error)
    assert took < CLOSE_GRACE + PROMPT, took
    assert client.closed


async def test_calls_after_close_raise_closed_error(client: Face) -> None:
    assert await client.echo(b"open") == b"open"
    await client.aclose()
    assert client.closed
    for call in (lambda: client.echo(b"x"), client.ping, client.stats, lambda: client.words(3)):
        error, took = await timed(call)
        assert isinstance(error, ClosedError), repr(error)
        assert took < PROMPT
    await client.aclose()  # closing again is harmless
    assert client.closed


async def test_closing_fails_the_pending_calls_promptly(client: Face) -> None:
    """Calls waiting in other tasks (threads, on the blocking face) when the client is closed."""
    outcomes: list[tuple[Exception | None, float]] = []

    async def pending() -> None:
        error, _ = await timed(lambda: client.sleep(5))
        outcomes.append((error, time.monotonic()))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            for _ in range(3):
                tg.start_soon(pending)
            await anyio.sleep(0.3)  # the calls are waiting for the server
            closed_at = time.monotonic()
            await client.aclose()
    assert len(outcomes) == 3
    for error, finished_at in outcomes:
        assert isinstance(error, ClosedError), repr(error)
        assert finished_at - closed_at < PROMPT
    assert client.closed


# Calls pending at once. Four, so that a pool emulation on the default executor (at least
# five workers: min(32, cpus + 4)) still has a worker for the stats call that watches them.
PENDING = 4


async def test_server_killed_fails_every_pending_call(transport: Transport) -> None:
    proc = await anyio.to_thread.run_sync(start_server)
    try:
        client = await transport.connect(proc.address, timeout=10)
        try:
            assert await client.echo(b"up") == b"up"
            outcomes: list[tuple[Exception | None, float]] = []

            async def pending() -> None:
                error, _ = await timed(lambda: client.sleep(5))
                outcomes.append((error, time.monotonic()))

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    for _ in range(PENDING):
                        tg.start_soon(pending)
                    while (await client.stats()).requests_in_flight < PENDING:
                        await anyio.sleep(0.01)
                    proc.process.send_signal(signal.SIGKILL)
                    killed_at = time.monotonic()
            assert len(outcomes) == PENDING
            for error, finished_at in outcomes:
                assert isinstance(error, ClosedError), repr(error)
                assert finished_at - killed_at < PROMPT
            assert client.closed
            error, took = await timed(lambda: client.echo(b"after"))
            assert isinstance(error, DualioError), repr(error)
            assert took < PROMPT
        finally:
            await client.aclose()
    finally:
        proc.process.kill()
        await anyio.to_thread.run_sync(functools.partial(proc.process.wait, 5))


CLOSE_FRAME = encode_frame(FrameKind.CLOSE, 0)

GOING_AWAY: dict[str, tuple[Step, ...]] = {
    "says-goodbye": (send_raw(CLOSE_FRAME), hang_up()),
    "closes": (hang_up(),),
    "resets": (reset(),),
}


@pytest.mark.parametrize("going", GOING_AWAY.values(), ids=GOING_AWAY.keys())
async def test_the_server_going_away_mid_request_fails_the_call_promptly(
    transport: Transport, scripted: Scripted, going: tuple[Step, ...]
) -> None:
    peer = scripted(expect(FrameKind.REQUEST), *going)
    client = await transport.connect(peer.address, timeout=5)
    try:
        error, took = await timed(lambda: client.echo(b"pending"))
        assert isinstance(error, ClosedError), repr(error)
        assert took < PROMPT
        assert client.closed
        error, took = await timed(lambda: client.echo(b"after"))
        assert isinstance(error, ClosedError), repr(error)
        assert took < PROMPT
    finally:
        await client.aclose()


@pytest.mark.parametrize("going", GOING_AWAY.values(), ids=GOING_AWAY.keys())
async def test_the_server_going_away_before_welcome_is_a_connect_error(
    transport: Transport, scripted: Scripted, going: tuple[Step, ...]
) -> None:
    peer = scripted(expect(FrameKind.HELLO), *going, handshake=False)
    error, took = await timed(lambda: transport.connect(peer.address, connect_timeout=5))
    assert isinstance(error, ConnectError), repr(error)
    assert not isinstance(error, ConnectTimeout), repr(error)
    assert took < PROMPT


async def test_connection_refused_is_a_connect_error(transport: Transport) -> None:
    # A bound socket that does not listen: connecting to it is refused, and holding it
    # bound keeps anyone else from listening on that port meanwhile.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        address = holder.getsockname()[:2]
        error, took = await timed(lambda: transport.connect(address, connect_timeout=5))
    assert isinstance(error, ConnectError), repr(error)
    assert not isinstance(error, ConnectTimeout), repr(error)
    assert took < PROMPT
