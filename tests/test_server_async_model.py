"""The asyncio server model's own mechanics, on a real event loop with a stand-in transport:
the answers of one loop pass go out in one write, delayed replies are timers (no task) that a
CANCEL or a lost connection stops and whose place and bytes are freed, and a delayed reply
due while the peer reads nothing waits for the drain."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from dualio.server.async_model import _Connection
from dualio.server.config import ServerConfig
from dualio_transports.dualio_protocol import methods
from dualio_transports.dualio_protocol.client_protocol import ClientProtocol, decode_error
from dualio_transports.dualio_protocol.frames import Frame, FrameDecoder, FrameKind, encode_frame
from dualio_transports.wire.errors import ErrorCode

pytestmark = pytest.mark.timeout(30)


class StandIn:
    """Duck-typed like a loop's stream transport, as uvloop's is (not an asyncio.Transport)."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closing = False
        self.reading = True
        self.high: int | None = None
        self.buffered = 0  # bytes "not yet sent": set by a test, grown by writes if it says so
        self.backed_up: _Connection | None = None  # told pause_writing, as asyncio's would

    def drain(self) -> None:
        self.buffered = 0
        if self.backed_up is not None:
            self.backed_up.resume_writing()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self.high = high

    def write(self, data: bytes) -> None:
        assert not self.closing
        self.writes.append(bytes(data))
        if self.backed_up is not None:
            paused = self.buffered > (self.high or 0)
            self.buffered += len(data)
            if not paused and self.buffered > (self.high or 0):
                self.backed_up.pause_writing()

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def frames(self) -> list[Frame]:
        return FrameDecoder().feed(b"".join(self.writes))


def echo(rid: int, body: bytes, delay: float = 0.0) -> bytes:
    args = methods.F64.pack(delay) + body
    return encode_frame(FrameKind.REQUEST, rid, methods.encode_request("echo", args))


def cancel(rid: int) -> bytes:
    return encode_frame(FrameKind.CANCEL, rid)


async def one_pass() -> None:
    """Let the loop run the callbacks scheduled so far (the connection's flush among them)."""
    await asyncio.sleep(0)
    await asyncio.sleep(0)


def run(test: Callable[[_Connection, StandIn, ServerConfig], Awaitable[None]], **config: int) -> None:
    """``test(connection, transport, config)`` on a fresh loop, after the handshake."""

    async def main() -> None:
        cfg = ServerConfig(port=0, **config)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        conn = _Connection(cfg, loop, loop.time(), "test", lambda _: None)
        transport = StandIn()
        conn.connection_made(transport)  # type: ignore[arg-type]
        assert transport.high == cfg.write_buffer_high
        conn.data_received(ClientProtocol().hello())
        await one_pass()
        assert [f.kind for f in transport.frames()] == [FrameKind.WELCOME]
        transport.writes.clear()
        try:
            await test(conn, transport, cfg)
        finally:
            if conn._transport is not None:
                conn.connection_lost(None)

    asyncio.run(main())


def test_the_answers_of_one_read_are_one_write() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        conn.data_received(b"".join(echo(rid, b"x" * 16) for rid in range(1, 101)))
        assert len(transport.writes) == 1  # as the read ends, not a pass of the loop later
        await one_pass()
        assert len(transport.writes) == 1
        assert transport.frames() == [(FrameKind.RESPONSE, rid, b"x" * 16) for rid in range(1, 101)]
        assert config.counters.snapshot().requests_served == 100

    run(test)


def test_answers_over_the_high_water_mark_are_written_at_once() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        conn.data_received(b"".join(echo(rid, b"y" * 100) for rid in range(1, 101)))
        assert transport.writes  # written inside data_received: no more than ~1 KiB waits
        assert all(len(data) >= 1024 for data in transport.writes)
        await one_pass()
        assert all(len(data) < 1024 + 200 for data in transport.writes)
        assert transport.frames() == [(FrameKind.RESPONSE, rid, b"y" * 100) for rid in range(1, 101)]

    run(test, write_buffer_high=1024)


def test_a_batch_is_written_once_it_fills_the_room_left_in_the_transport() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        transport.buffered = 1000  # of 1024: the peer is slow to read
        conn.data_received(echo(1, b"a"))
        await one_pass()  # written, and the room left is now known: 24 bytes
        assert len(transport.writes) == 1
        conn.data_received(echo(2, b"b" * 16))  # a 25-byte frame fills it: written at once
        assert len(transport.writes) == 2
        assert transport.frames() == [(FrameKind.RESPONSE, 1, b"a"), (FrameKind.RESPONSE, 2, b"b" * 16)]

    run(test, write_buffer_high=1024)


def test_a_peer_that_reads_nothing_stops_serving_at_the_high_water_mark() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        transport.backed_up = conn
        conn.data_received(b"".join(echo(rid, b"y" * 100) for rid in range(1, 101)))  # 109 B each
        await one_pass()
        written = sum(map(len, transport.writes))
        assert 1024 < written <= 1024 + 109  # the high-water mark plus the frame that crossed it
        assert not transport.reading  # the rest wait in the queue, and nothing more is read
        served = config.counters.snapshot().requests_served
        assert served == written // 109
        transport.drain()
        await one_pass()
        assert config.counters.snapshot().requests_served > served
        while not transport.reading:
            transport.drain()
            await one_pass()
        assert transport.frames() == [(FrameKind.RESPONSE, rid, b"y" * 100) for rid in range(1, 101)]

    run(test, write_buffer_high=1024)


def test_a_delayed_reply_is_a_timer_not_a_task() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        tasks = len(asyncio.all_tasks())
        conn.data_received(echo(1, b"later", delay=0.05) + echo(2, b"now"))
        assert len(asyncio.all_tasks()) == tasks
        assert config.counters.snapshot().requests_in_flight == 1
        await one_pass()
        assert transport.frames() == [(FrameKind.RESPONSE, 2, b"now")]
        await asyncio.sleep(0.1)
        assert transport.frames()[1:] == [(FrameKind.RESPONSE, 1, b"later")]
        stats = config.counters.snapshot()
        assert (stats.requests_in_flight, stats.requests_served) == (0, 2)

    run(test)


def test_a_cancel_stops_a_delayed_reply_and_frees_its_place_and_bytes() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        conn.data_received(echo(1, b"z" * 1000, delay=0.05))
        assert config.counters.snapshot().requests_in_flight == 1
        conn.data_received(cancel(1))
        assert config.counters.snapshot().requests_in_flight == 0
        assert conn._held == 0 and not conn._work
        await asyncio.sleep(0.1)  # the timer would have fired by now
        [frame] = transport.frames()
        assert (frame.kind, frame.id) == (FrameKind.ERROR, 1)
        assert decode_error(frame.payload).code == ErrorCode.CANCELLED
        stats = config.counters.snapshot()
        assert (stats.requests_served, stats.errors) == (0, 1)

    run(test)


def test_delayed_replies_hold_the_in_flight_cap() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        conn.data_received(b"".join(echo(rid, b"w", delay=0.05) for rid in range(1, 6)))
        assert config.counters.snapshot().requests_in_flight == 2
        assert not transport.reading  # three wait in the queue; reading stops meanwhile
        await asyncio.sleep(0.3)
        assert sorted(f.id for f in transport.frames()) == [1, 2, 3, 4, 5]
        assert transport.reading and config.counters.snapshot().requests_in_flight == 0

    run(test, max_in_flight=2)


def test_a_delayed_reply_due_while_the_peer_reads_nothing_waits_for_the_drain() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        conn.data_received(b"".join(echo(rid, b"d%d" % rid, delay=0.01) for rid in (1, 2, 3)))
        conn.pause_writing()  # as the transport would, above write_buffer_high
        await asyncio.sleep(0.05)
        assert transport.writes == []
        conn.data_received(cancel(2))  # cancelled while it waits: CANCELLED, and not answered
        await one_pass()
        assert [(f.kind, f.id) for f in transport.frames()] == [(FrameKind.ERROR, 2)]
        conn.data_received(echo(2, b"again", delay=10.0))  # the id is free again
        conn.resume_writing()
        await one_pass()
        assert transport.frames()[1:] == [(FrameKind.RESPONSE, 1, b"d1"), (FrameKind.RESPONSE, 3, b"d3")]
        assert config.counters.snapshot().requests_in_flight == 1  # the new request 2 waits its 10 s

    run(test)


def test_a_lost_connection_stops_every_delayed_reply() -> None:
    async def test(conn: _Connection, transport: StandIn, config: ServerConfig) -> None:
        conn.data_received(b"".join(echo(rid, b"v" * 100, delay=0.05) for rid in range(1, 11)))
        assert config.counters.snapshot().requests_in_flight == 10
        conn.connection_lost(None)
        assert config.counters.snapshot().requests_in_flight == 0
        assert conn._held == 0 and not conn._work
        await asyncio.sleep(0.1)
        assert transport.writes == []

    run(test)
