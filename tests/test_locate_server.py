"""A face's ``locate_server`` hook on protocol v1 (Redis's Sentinel client is its other user,
tests/test_redis_sentinel.py): asked before each connect, its options are where the
connection goes, and a ConnectError it raises is a failed connect the call's retries ride
out, on the blocking face and the async face's transports."""

from __future__ import annotations

import dataclasses

import anyio
import pytest

from dualio import AsyncClient, ConnectError, RetryPolicy
from dualio.toolkit import ConnectOptions
from dualio_sync import Client
from tests.conftest import ServerProcess

UNUSED_PORT = 1  # nothing listens there: only the hook's options reach the server


def test_the_blocking_face_connects_where_the_hook_says(server: ServerProcess) -> None:
    asked: list[float] = []

    class Located(Client):
        def locate_server(self, options: ConnectOptions, until: float) -> ConnectOptions:
            asked.append(until)
            if len(asked) == 1:
                raise ConnectError("not known yet")  # a failed connect: tried again
            return dataclasses.replace(options, port=server.address[1])

    with Located(server.address[0], UNUSED_PORT, timeout=5, retry=RetryPolicy(), lazy=True) as client:
        assert client.echo(b"here") == b"here"
    assert len(asked) == 2 and all(until > 0 for until in asked)


@pytest.mark.anyio
@pytest.mark.parametrize(("anyio_backend", "transport"), [
    ("asyncio", "native"), ("asyncio", "anyio"), ("trio", "native"), ("asyncio", "emulated"),
])
async def test_the_async_face_connects_where_the_hook_says(server: ServerProcess, transport: str) -> None:
    asked: list[float] = []

    class Located(AsyncClient):
        async def locate_server(self, options: ConnectOptions, until: float) -> ConnectOptions:
            asked.append(until)
            await anyio.sleep(0)
            return dataclasses.replace(options, port=server.address[1])

    async with Located(server.address[0], UNUSED_PORT, timeout=5, transport=transport) as client:
        assert await client.echo(b"here") == b"here"
    assert len(asked) == 1
