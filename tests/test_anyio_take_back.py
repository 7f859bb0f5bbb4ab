"""The anyio transport's writer queue: a request taken back before it left is the one
its caller queued, whatever other requests are made of the same bytes.

Several requests may be the very same bytes object (every Redis command without
arguments is one cached object: ``TIME``, ``DBSIZE``; every PING). A caller that gave
up while its request waited for the writer took back the first frame *equal by
identity*, which was another caller's: that caller's request never left while it kept
its place in the order of answers, and its own, released, left at its place. Every
later reply went to the caller before its own, until the connection ended."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator

import anyio
import pytest

from dualio.redis.commands import redis_protocol
from dualio_transports.native.anyio_connection import AnyioConnection
from dualio_transports.policy.connect_options import ConnectOptions
from dualio_transports.redis_protocol.resp import encode_command, parse
from dualio_transports.wire.deadline import deadline
from dualio_transports.wire.request import Request
from tests.redis_server import RedisServer, redis_server

__all__ = ["redis_server"]

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def conn(redis_server: RedisServer) -> AsyncIterator[AnyioConnection]:
    redis = redis_protocol(None, None, None, 0)
    options = ConnectOptions(*redis_server.address, keepalive=None, protocol=redis)
    connection = await AnyioConnection.connect(options, deadline(5))
    try:
        yield connection
    finally:
        await connection.aclose()


def _request(*args: str) -> Request[object]:
    return Request(args[0], encode_command(*args), parse, False)


async def test_a_request_given_up_in_the_queue_takes_back_its_own_frame(conn: AnyioConnection) -> None:
    same = encode_command("DBSIZE")
    assert same is encode_command("DBSIZE")  # one object for both calls below
    got: dict[str, object] = {}

    async def call(name: str, request: Request[object]) -> None:
        got[name] = await conn.call(request, deadline(5))

    await conn._write_lock.acquire()  # a writer holds the socket: requests queue up behind it
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(call, "first", Request("DBSIZE", same, parse, False))
        await anyio.sleep(0.05)
        tasks.start_soon(call, "echo", _request("ECHO", "mine"))
        await anyio.sleep(0.05)
        given_up = anyio.CancelScope()
        tasks.start_soon(functools.partial(_give_up_in_the_queue, conn, same, given_up))
        await anyio.sleep(0.05)
        given_up.cancel()
        await anyio.sleep(0.05)
        conn._write_lock.release()
    assert got["echo"] == b"mine"
    assert isinstance(got["first"], int)
    assert await conn.call(_request("ECHO", "after"), deadline(5)) == b"after"


async def _give_up_in_the_queue(conn: AnyioConnection, same: bytes, scope: anyio.CancelScope) -> None:
    with scope:
        await conn.call(Request("DBSIZE", same, parse, False), deadline(5))
