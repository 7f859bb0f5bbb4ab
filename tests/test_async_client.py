"""The async face on asyncio and trio, native and every emulation strategy, over real TCP:
what is particular to it (overlap and bounds of the strategies, asyncio's own
cancellation API, threads left behind, misuse, TLS).

The behaviour every transport shares (every method, timeouts, cancellation,
close, server death, a misbehaving server, no misrouted answers) is stated once
in the contract suite, tests/contract/, for the async face and the blocking one.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
import trustme

from dualio import AsyncClient, UsageError
from dualio_transports.dualio_protocol.blob import blob_bytes
from tests.conftest import ServerProcess, start_server

pytestmark = pytest.mark.anyio

MODES: dict[str, dict[str, Any]] = {
    "native": {"transport": "native"},
    "native-anyio": {"transport": "anyio"},  # on asyncio: the anyio transport, not the fast path
    "pool": {"transport": "emulated", "emulation": "pool"},
    "thread": {"transport": "emulated", "emulation": "thread"},
    "callback": {"transport": "emulated", "emulation": "callback"},
}


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=list(MODES))
def mode(
    request: pytest.FixtureRequest, anyio_backend: str
) -> dict[str, Any]:
    if request.param == "native-anyio" and anyio_backend != "asyncio":
        pytest.skip("on trio the native transport is the anyio one already")
    return MODES[request.param]


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("name", ["native", "thread", "callback"])
async def test_unbounded_modes_overlap(server: ServerProcess, name: str) -> None:
    async with AsyncClient(*server.address, **MODES[name]) as client:
        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(100):
                tg.start_soon(client.sleep, 0.2)
        assert time.perf_counter() - started < 1.5


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_pool_is_bounded_by_its_workers(server: ServerProcess) -> None:
    async with AsyncClient(*server.address, transport="emulated", max_workers=4) as client:
        started = time.perf_counter()
        async with anyio.create_task_group() as tg:
            for _ in range(20):
                tg.start_soon(client.sleep, 0.1)
        elapsed = time.perf_counter() - started
    assert 0.45 < elapsed < 2.0  # ceil(20 / 4) * 0.1 s


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_asyncio_wait_for_and_task_cancel(server: ServerProcess, mode: dict[str, Any]) -> None:
    async with AsyncClient(*server.address, **mode) as client:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.sleep(1), 0.05)
        task = asyncio.ensure_future(client.echo(b"x", delay=1))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await client.echo(b"usable") == b"usable"


async def test_no_threads_or_tasks_left_after_close(server: ServerProcess, mode: dict[str, Any]) -> None:
    before = {t.ident for t in threading.enumerate()}
    async with AsyncClient(*server.address, **mode) as client:
        async with anyio.create_task_group() as tg:
            for _ in range(20):
                tg.start_soon(client.sleep, 0.05)
        async for _ in client.words(3):
            pass
    leftover = [t for t in threading.enumerate()
                if t.ident not in before and t.name.startswith("dualio")]
    assert leftover == []


# -- bad input -----------------------------------------------------------------------


async def test_use_before_open_and_twice(server: ServerProcess) -> None:
    client = AsyncClient(*server.address)
    with pytest.raises(UsageError):
        await client.echo(b"x")
    async with client:
        pass
    with pytest.raises(UsageError):
        await client.open()


def test_constructor_arguments_are_checked() -> None:
    with pytest.raises(ValueError):
        AsyncClient(transport="carrier-pigeon")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        AsyncClient(transport="emulated", emulation="fork")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        AsyncClient(transport="emulated", max_workers=0)
    with pytest.raises(ValueError):
        AsyncClient(transport="emulated", max_workers=2, executor=ThreadPoolExecutor(1))
    with pytest.raises(ValueError):
        AsyncClient(timeout=-1)


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_executor_shut_down(server: ServerProcess) -> None:
    executor = ThreadPoolExecutor(2)
    async with AsyncClient(*server.address, transport="emulated", executor=executor) as client:
        assert await client.echo(b"x") == b"x"
        executor.shutdown()
        with pytest.raises(UsageError):
            await client.echo(b"y")


def test_use_from_another_loop(server: ServerProcess) -> None:
    async def open_client() -> AsyncClient:
        return await AsyncClient(*server.address).open()

    loop_a = asyncio.new_event_loop()
    client = loop_a.run_until_complete(open_client())
    try:
        with pytest.raises(UsageError):
            asyncio.run(client.echo(b"x"))
    finally:
        loop_a.run_until_complete(client.aclose())
        loop_a.close()


def test_no_running_loop_is_a_clear_error(server: ServerProcess) -> None:
    client = AsyncClient(*server.address)
    coroutine = client.open()
    with pytest.raises(UsageError):
        coroutine.send(None)
    coroutine.close()


async def test_tls(tmp_path: Path, mode: dict[str, Any]) -> None:
    ca = trustme.CA()
    chain = tmp_path / "server.pem"
    ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(chain))
    proc = start_server("--tls-cert", str(chain))
    try:
        context = ssl.create_default_context()
        ca.configure_trust(context)
        async with AsyncClient(*proc.address, tls=context, **mode) as client:
            assert await client.echo(b"secret") == b"secret"
            assert await client.blob(2 << 20, seed=1) == blob_bytes(2 << 20, 1)
    finally:
        assert proc.stop() == 0
