"""The asyncio fast path: its one timer per connection serves every call's deadline and
the keepalive checks, so neither may delay the other; its requests go out in bounded
batches."""

from __future__ import annotations

import asyncio
import time

import pytest

from dualio import AsyncClient, ConnectionLost, DualioTimeout
from dualio_transports.dualio_protocol.frames import FrameDecoder, FrameKind
from tests.conftest import ServerProcess
from tests.scripted_peer import ScriptedPeer, drain, expect, reply, stall

pytestmark = pytest.mark.timeout(30)


def test_a_keepalive_ping_goes_out_while_a_call_with_a_far_deadline_waits() -> None:
    """A call with a 30 s timeout waits on a silent server: the PING is still sent after
    ``keepalive`` seconds, its PONG keeps the connection, and the call gets its answer."""
    peer = ScriptedPeer(
        expect(FrameKind.REQUEST), expect(FrameKind.PING), reply(FrameKind.PONG),
        reply(FrameKind.RESPONSE, b"late", request_id=1), drain(),
    )

    async def main() -> tuple[bytes, float]:
        async with AsyncClient(*peer.address, keepalive=0.3, timeout=30, retry=None) as client:
            started = time.perf_counter()
            answer = await client.call("echo", b"")
            return answer, time.perf_counter() - started

    with peer:
        answer, took = asyncio.run(main())
    assert answer == b"late"
    assert 0.3 <= took < 3
    assert peer.kinds[:3] == [FrameKind.HELLO, FrameKind.REQUEST, FrameKind.PING]


def test_a_call_times_out_on_time_before_the_next_keepalive_check() -> None:
    """The timer is armed for the keepalive check 10 s away when the call starts: the
    call's earlier deadline re-arms it, and the call is cancelled on the wire."""
    peer = ScriptedPeer(expect(FrameKind.REQUEST), expect(FrameKind.CANCEL, same_id=True), drain())

    async def main() -> float:
        async with AsyncClient(*peer.address, keepalive=10, retry=None) as client:
            started = time.perf_counter()
            with pytest.raises(DualioTimeout):
                await client.echo(b"x", timeout=0.2)
            return time.perf_counter() - started

    with peer:
        took = asyncio.run(main())
    assert 0.2 <= took < 1.0


def test_an_unanswered_keepalive_fails_a_call_with_a_far_deadline() -> None:
    """The server takes the request and then goes silent: the PING goes unanswered and
    the call fails with ConnectionLost after about two keepalive intervals, long before
    its own 30 s timeout."""
    peer = ScriptedPeer(expect(FrameKind.REQUEST), expect(FrameKind.PING), stall())

    async def main() -> float:
        async with AsyncClient(*peer.address, keepalive=0.3, timeout=30, retry=None) as client:
            started = time.perf_counter()
            with pytest.raises(ConnectionLost):
                await client.echo(b"x")
            return time.perf_counter() - started

    with peer:
        took = asyncio.run(main())
    assert 0.6 <= took < 3


def test_calls_time_out_in_deadline_order_with_the_keepalive_between_them() -> None:
    """Deadlines before and after the keepalive check, added out of order: each call
    ends at its own timeout, and the PING goes out in between."""
    peer = ScriptedPeer(
        expect(FrameKind.REQUEST), expect(FrameKind.REQUEST), expect(FrameKind.REQUEST),
        expect(FrameKind.CANCEL), expect(FrameKind.PING), reply(FrameKind.PONG), drain(),
    )
    ends: dict[float, float] = {}

    async def main() -> None:
        async with AsyncClient(*peer.address, keepalive=0.5, retry=None) as client:
            started = time.perf_counter()

            async def one(timeout: float) -> None:
                with pytest.raises(DualioTimeout):
                    await client.echo(b"x", timeout=timeout)
                ends[timeout] = time.perf_counter() - started

            await asyncio.gather(one(1.2), one(0.2), one(0.8))

    with peer:
        asyncio.run(main())
    for timeout, took in ends.items():
        assert timeout <= took < timeout + 0.5, (timeout, took)
    kinds = peer.kinds
    assert kinds.count(FrameKind.CANCEL) == 3 and FrameKind.PING in kinds


def test_calls_started_together_go_out_in_bounded_batches(server: ServerProcess) -> None:
    """1,000 calls started in one loop iteration: their requests are written together,
    at most ``_BATCH_FRAMES`` per write, so the first ones reach the server while the
    last are still being made (one write of all 1,000 would hold them all back)."""
    from dualio_transports.native import asyncio_connection

    frames_per_write: list[int] = []

    async def main() -> list[bytes]:
        async with AsyncClient(*server.address, timeout=10) as client:
            await client.echo(b"warm")
            conn = client._conn
            assert isinstance(conn, asyncio_connection.AsyncioConnection)
            transport = conn._transport
            assert transport is not None
            write = transport.write

            def counted(data: bytes | bytearray | memoryview) -> None:
                frames_per_write.append(len(FrameDecoder().feed(bytes(data))))
                write(data)

            transport.write = counted  # type: ignore[method-assign]
            try:
                return await asyncio.gather(*(client.echo(b"%d" % i) for i in range(1000)))
            finally:
                transport.write = write  # type: ignore[method-assign]

    answers = asyncio.run(main())
    assert answers == [b"%d" % i for i in range(1000)]
    assert sum(frames_per_write) == 1000
    assert max(frames_per_write) == asyncio_connection._BATCH_FRAMES
    assert len(frames_per_write) >= 1000 // asyncio_connection._BATCH_FRAMES
