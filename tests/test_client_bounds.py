"""What a peer can make a client hold is bounded: stream items waiting for a slow
consumer, and the time a stalled write may keep a cancelled caller."""

from __future__ import annotations

import importlib.util
import time
from typing import Any

import anyio
import pytest

from dualio import AsyncClient
from dualio_transports.wire import timing
from dualio_transports.wire.call_table import ITEM_COST, STREAM_BACKLOG
from dualio_transports.wire.errors import ConnectionLost
from tests.conftest import ServerProcess
from tests.scripted_peer import ScriptedPeer, stall

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

WORDS = 300_000
ONE_READ_OF_ITEMS = 256 * 1024 // 14  # the smallest word frame is 14 bytes


def buffered_items(client: AsyncClient) -> int:
    conn: Any = client._conn
    table = conn._table
    return sum(len(call.items or ()) for call in table.live.values())


@pytest.mark.parametrize("anyio_backend", [
    "asyncio",
    pytest.param(("asyncio", {"use_uvloop": True}), marks=pytest.mark.skipif(
        importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed")),
], ids=["asyncio", "uvloop"])
async def test_a_slow_stream_consumer_pauses_reading_on_the_asyncio_fast_path(server: ServerProcess) -> None:
    bound = STREAM_BACKLOG // ITEM_COST + ONE_READ_OF_ITEMS
    async with AsyncClient(*server.address, timeout=10) as client:
        words = client.words(WORDS)
        peak = 0
        async for index, _ in aenumerate(words):
            if index < 20:
                await anyio.sleep(0.05)  # a slow consumer: the server could send everything meanwhile
                peak = max(peak, buffered_items(client))
            elif index == 20:
                assert peak < bound < WORDS // 3, (peak, bound)
            # then it keeps up, and the whole stream still arrives
        assert index == WORDS - 1
        assert await client.echo(b"after") == b"after"


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("emulation", ["pool", "thread", "callback"])
async def test_a_slow_stream_consumer_holds_the_emulations_items_to_the_tables_bound(
    server: ServerProcess, emulation: str
) -> None:
    """One unit of backpressure everywhere: the emulation's stream items wait in the
    blocking connection's call table, bounded by STREAM_BACKLOG bytes as on every transport."""
    bound = STREAM_BACKLOG // ITEM_COST + ONE_READ_OF_ITEMS
    async with AsyncClient(*server.address, timeout=10, transport="emulated", emulation=emulation) as client:
        blocking: Any = client._conn._conn  # type: ignore[union-attr]
        peak = 0
        count = 0
        async for _ in client.words(WORDS // 10):
            count += 1
            if count < 10:
                await anyio.sleep(0.05)
                peak = max(peak, sum(len(call.items or ()) for call in blocking._table.live.values()))
        assert count == WORDS // 10
        assert 0 < peak < bound, (peak, bound)
        assert await client.echo(b"after") == b"after"


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("emulation", ["pool", "callback"])
async def test_leaving_a_backlogged_stream_lets_the_reader_read_again(
    server: ServerProcess, emulation: str
) -> None:
    async with AsyncClient(*server.address, timeout=10, transport="emulated", emulation=emulation) as client:
        async for _ in client.words(WORDS // 10):
            await anyio.sleep(0.3)  # the backlog fills up meanwhile
            break
        assert await client.echo(b"after") == b"after"
    # aclose() joined every thread this connection started: nothing hangs on a full backlog


@pytest.mark.parametrize("anyio_backend", ["trio", "asyncio"])
async def test_a_stalled_write_without_timeout_fails_its_connection_after_the_stall_limit(
    monkeypatch: pytest.MonkeyPatch, anyio_backend: str
) -> None:
    monkeypatch.setattr(timing, "WRITE_STALL_LIMIT", 0.5)
    with ScriptedPeer(stall()) as peer:
        async with AsyncClient(*peer.address, timeout=None, transport="anyio", retry=None) as client:
            started = time.monotonic()
            with pytest.raises(ConnectionLost, match=r"no progress for 0\.5s"):
                await client.echo(b"x" * (15 << 20))  # more than the socket buffers hold: the send stalls
            took = time.monotonic() - started
            assert 0.5 <= took < 0.5 + 1.0, took
            assert client.closed  # retry=None: the failed connection is not replaced


def test_a_stalled_write_without_timeout_fails_its_connection_after_the_stall_limit_sync(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dualio_sync import Client

    monkeypatch.setattr(timing, "WRITE_STALL_LIMIT", 0.5)
    with ScriptedPeer(stall()) as peer, Client(*peer.address, timeout=None, retry=None) as client:
        started = time.monotonic()
        with pytest.raises(ConnectionLost, match=r"no progress for 0\.5s"):
            client.echo(b"x" * (15 << 20))
        took = time.monotonic() - started
        assert 0.5 <= took < 0.5 + 1.0, took
        assert client.closed


async def aenumerate(items: Any) -> Any:
    index = 0
    async for item in items:
        yield index, item
        index += 1


def test_another_caller_does_not_grow_a_slow_consumers_backlog_sync(server: ServerProcess) -> None:
    """While one thread consumes a stream slowly, another thread's calls do not read
    that stream's items into memory without bound: they wait for it to catch up."""
    import threading

    from dualio_sync import Client, DualioTimeout

    bound = STREAM_BACKLOG // ITEM_COST + ONE_READ_OF_ITEMS
    with Client(*server.address, timeout=10) as client:
        conn: Any = client._conn
        slow_phase = threading.Event()
        peak = [0]

        def other_caller() -> None:
            while not slow_phase.is_set():
                try:
                    client.ping(timeout=0.1)
                except DualioTimeout:
                    pass  # waits for the slow consumer: bounded memory costs latency here
                peak[0] = max(peak[0], sum(len(c.items or ()) for c in conn._table.live.values()))

        thread = threading.Thread(target=other_caller)
        count = 0
        for _ in client.words(WORDS):
            count += 1
            if count == 1:
                thread.start()
            if count < 10:
                time.sleep(0.1)
            elif count == 10:
                slow_phase.set()
                thread.join()
        assert count == WORDS
        assert 0 < peak[0] < bound, (peak[0], bound)
        assert client.ping() < 1


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("emulation", ["pool", "callback"])
async def test_closing_while_a_backlog_holds_the_reader_thread_ends_at_once(
    server: ServerProcess, emulation: str
) -> None:
    """The stream's consumer is behind and still in its loop: the reader thread waits for it.
    Closing the client must wake that thread, and join it, at once."""
    client = AsyncClient(*server.address, timeout=10, transport="emulated", emulation=emulation)
    await client.open()
    words = client.words(WORDS // 10)
    await words.__anext__()
    await anyio.sleep(0.5)  # the backlog fills up meanwhile; the consumer does not leave
    started = time.monotonic()
    with anyio.fail_after(5):
        await client.aclose()
    assert time.monotonic() - started < 2
    with anyio.CancelScope(shield=True), anyio.move_on_after(2):
        await words.aclose()  # type: ignore[attr-defined]
