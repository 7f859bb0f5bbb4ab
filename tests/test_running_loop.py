"""LoopHandle (transports/running_loop.py): one handle per running loop, shared by its
connections, and the check that a client is used from the loop it belongs to."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest
import trio

from dualio import AsyncClient, UsageError
from dualio_transports.running_loop import LoopHandle
from tests.conftest import ServerProcess


async def _handle() -> LoopHandle:
    return LoopHandle.current()


def test_one_handle_per_asyncio_loop() -> None:
    async def twice() -> tuple[LoopHandle, LoopHandle]:
        return LoopHandle.current(), await _handle()

    loop = asyncio.new_event_loop()
    try:
        first, second = loop.run_until_complete(twice())
        assert first is second
        assert first.backend == "asyncio" and first.loop is loop and first.is_current() is False
        assert loop.run_until_complete(_is_current(first))
        other = asyncio.run(_handle())
        assert other is not first and other.loop is not loop
        assert not asyncio.run(_is_current(first))  # another loop is running
    finally:
        loop.close()


async def _is_current(handle: LoopHandle) -> bool:
    return handle.is_current()


def test_one_handle_per_trio_run() -> None:
    async def main() -> None:
        first = LoopHandle.current()
        assert first is LoopHandle.current()
        assert first.backend == "trio" and first.is_current()
        ran: list[bool] = []
        assert first.call_soon_threadsafe(lambda: ran.append(True))
        await trio.sleep(0.01)
        assert ran == [True]
        assert not asyncio.run(_is_current(first))  # asyncio, in trio's thread: not it

    trio.run(main)


def test_the_shared_handles_keep_no_loop_alive() -> None:
    loop = asyncio.new_event_loop()
    handle = loop.run_until_complete(_handle())
    loop.close()
    gone = weakref.ref(loop)
    del loop, handle
    gc.collect()
    assert gone() is None


def test_outside_any_loop() -> None:
    with pytest.raises(UsageError, match="no event loop is running"):
        LoopHandle.current()


def test_connections_on_one_loop_share_its_handle(server: ServerProcess) -> None:
    async def main() -> None:
        async with AsyncClient(*server.address) as one, AsyncClient(*server.address) as two:
            assert await one.echo(b"1") == b"1" and await two.echo(b"2") == b"2"
            assert one._conn is not None and two._conn is not None
            assert one._conn.loop is two._conn.loop is LoopHandle.current()

    asyncio.run(main())


def test_a_client_used_from_trio_after_asyncio_says_so(server: ServerProcess) -> None:
    loop = asyncio.new_event_loop()
    client = loop.run_until_complete(AsyncClient(*server.address).open())
    try:
        assert loop.run_until_complete(client.echo(b"here")) == b"here"
        with pytest.raises(UsageError, match="another event loop"):
            trio.run(client.echo, b"there")
        assert loop.run_until_complete(client.echo(b"still")) == b"still"  # still usable at home
    finally:
        loop.run_until_complete(client.aclose())
        loop.close()
