"""A real redis-server for the Redis faces' tests (:mod:`dualio.lab.common.redis_server`,
which the lab starts its own with), as session fixtures: one per xdist worker.

Tests that need it are skipped, with the reason, when redis-server is not installed.
"""

from __future__ import annotations

import shutil
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, TypeVar

import anyio
import pytest

from dualio.lab.common import redis_server
from dualio.lab.common.redis_server import NOT_INSTALLED, RedisServer

__all__ = [
    "ASYNC_TRANSPORTS", "NOT_INSTALLED", "RedisServer", "received_while_publishing", "start_redis",
    "started_or_skipped",
]

T = TypeVar("T")
REDIS_SERVER = shutil.which("redis-server")
PASSWORD = "s3cret-for-tests"
start_redis = partial(redis_server.start_redis, debug_command=True)
"""A redis-server for a test: DEBUG SLEEP is allowed (a command the server takes long on)."""
ASYNC_TRANSPORTS = [
    pytest.param("asyncio", "native", id="native-asyncio"),
    pytest.param("asyncio", "anyio", id="anyio-asyncio"),
    pytest.param("trio", "native", id="native-trio"),
    pytest.param("asyncio", "emulated", id="pool-asyncio"),
]
"""``(anyio_backend, transport)`` of the async face, for the tests of several servers at once
(a cluster, a Sentinel set): each waiting style once."""


def started_or_skipped(starter: Callable[[], AbstractContextManager[T]]) -> Iterator[T]:
    """What ``starter`` starts, for a fixture: the test skipped, with the reason, where
    redis-server (or redis-cli) is not installed."""
    try:
        with starter() as started:
            yield started
    except redis_server.RedisServerError as exc:
        if "not installed" not in str(exc):
            raise
        pytest.skip(str(exc))


def _started(password: str | None = None, hello: bool = True) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    server = start_redis(password=password, hello=hello)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A redis-server for the session (each xdist worker has its own)."""
    yield from _started()


@pytest.fixture(scope="session")
def redis_auth_server() -> Iterator[RedisServer]:
    """A redis-server that requires ``PASSWORD`` (``--requirepass``)."""
    yield from _started(PASSWORD)


@pytest.fixture(scope="session")
def redis_resp2_server() -> Iterator[RedisServer]:
    """A redis-server that refuses HELLO, as one before Redis 6 does."""
    yield from _started(hello=False)


async def received_while_publishing(
    receive: Callable[[], Awaitable[Any]], publish: Callable[[], Awaitable[Any]], within: float = 20,
) -> Any:
    """What ``receive`` gives, while ``publish`` is called every 20 ms until it does (a
    subscription being made again hears only what is published after)."""
    got: list[Any] = []

    async def take() -> None:
        got.append(await receive())

    with anyio.fail_after(within):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(take)
            while not got:
                await publish()
                await anyio.sleep(0.02)
    return got[0]
