"""The async face on asyncio and trio, native and every emulation strategy, over real TCP."""

from __future__ import annotations

import asyncio
import random
import ssl
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
import trustme

from dualio import (
    AsyncClient,
    ClosedError,
    DualioTimeout,
    ProtocolError,
    RemoteError,
    UsageError,
)
from tests.conftest import ServerProcess, start_server
from transports.wire.blob import blob_bytes
from transports.wire.errors import ErrorCode
from transports.wire.methods import word_at

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


@pytest.fixture
async def client(server: ServerProcess, mode: dict[str, Any]) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(*server.address, timeout=10, **mode) as c:
        yield c


async def test_every_method(client: AsyncClient) -> None:
    assert await client.echo(b"hello") == b"hello"
    assert await client.upper("straße") == "STRASSE"
    assert await client.sleep(0.01) is None
    assert await client.blob(100_000, seed=5) == blob_bytes(100_000, 5)
    assert [w async for w in client.words(10)] == [word_at(i) for i in range(10)]
    assert (await client.stats()).connections_open >= 1
    assert 0 < await client.ping() < 1
    assert await client.call("echo", b"\x00" * 8 + b"raw") == b"raw"
    with pytest.raises(RemoteError) as info:
        await client.call("nope")
    assert info.value.code == ErrorCode.UNKNOWN_METHOD
    assert await client.echo(b"after") == b"after"


async def test_concurrent_calls_each_get_their_own_answer(client: AsyncClient) -> None:
    wrong: list[tuple[bytes, bytes]] = []

    async def one(i: int) -> None:
        payload = f"call-{i}".encode()
        answer = await client.echo(payload, delay=random.random() * 0.02)
        if answer != payload:
            wrong.append((payload, answer))

    async with anyio.create_task_group() as tg:
        for i in range(300):
            tg.start_soon(one, i)
    assert wrong == []


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


async def test_timeout_leaves_connection_usable(client: AsyncClient) -> None:
    started = time.perf_counter()
    with pytest.raises(DualioTimeout):
        await client.sleep(3, timeout=0.2)
    assert time.perf_counter() - started < 1.5
    with pytest.raises(TimeoutError):
        await client.echo(b"late", delay=1, timeout=0.1)
    for i in range(20):
        assert await client.echo(bytes([i])) == bytes([i])


async def test_cancellation_at_random_points_never_misroutes(client: AsyncClient) -> None:
    """Cancel calls at random moments, many times; every finished call got its own answer."""
    rng = random.Random(1234)
    wrong: list[tuple[bytes, bytes]] = []
    finished = 0

    async def one(i: int) -> None:
        nonlocal finished
        payload = f"c{i}".encode()
        with anyio.move_on_after(rng.random() * 0.01):
            answer = await client.echo(payload, delay=rng.choice([0, 0, 0.001, 0.005]))
            finished += 1
            if answer != payload:
                wrong.append((payload, answer))

    for round_ in range(4):
        async with anyio.create_task_group() as tg:
            for i in range(100):
                tg.start_soon(one, round_ * 1000 + i)
    assert wrong == []
    for i in range(30):
        assert await client.echo(f"after-{i}".encode()) == f"after-{i}".encode()


async def test_cancelled_task_never_receives_a_later_answer(client: AsyncClient) -> None:
    for i in range(20):
        with anyio.move_on_after(0.01):
            await client.echo(b"slow", delay=0.05)
        assert await client.echo(f"fast-{i}".encode()) == f"fast-{i}".encode()


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


async def test_leaving_a_stream_early_cancels_it(client: AsyncClient) -> None:
    before = await client.stats()
    async for _ in client.words(1000, wait=0.02):
        break
    assert await client.echo(b"after stream") == b"after stream"
    with anyio.fail_after(3):
        while (await client.stats()).requests_in_flight > before.requests_in_flight:
            await anyio.sleep(0.05)


async def test_close_fails_waiting_calls(server: ServerProcess, mode: dict[str, Any]) -> None:
    client = AsyncClient(*server.address, **mode)
    await client.open()
    errors: list[BaseException] = []

    async def wait() -> None:
        try:
            await client.sleep(5)
        except ClosedError as exc:
            errors.append(exc)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            await anyio.sleep(0.2)
            await client.aclose()
    assert len(errors) == 1 and isinstance(errors[0], ClosedError)
    with pytest.raises(ClosedError):
        await client.echo(b"x")


async def test_server_death_fails_every_pending_call(mode: dict[str, Any]) -> None:
    proc = start_server()
    errors: list[BaseException] = []
    async with AsyncClient(*proc.address, **mode) as client:

        async def wait() -> None:
            try:
                await client.sleep(10)
            except ClosedError as exc:
                errors.append(exc)

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(wait)
                await anyio.sleep(0.3)
                proc.process.kill()
        assert len(errors) == 5
        with pytest.raises(ClosedError):
            await client.echo(b"x")
    proc.process.wait(5)


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


async def test_malformed_frame_from_server(mode: dict[str, Any]) -> None:
    """A peer that answers the handshake, then sends garbage: the call fails with ProtocolError."""
    from tests.bad_peer import BadPeer

    with BadPeer(after_welcome=b"\x00\x00\x00\x05\x63\x00\x00\x00\x01") as peer:
        async with AsyncClient(*peer.address, **mode) as client:
            with anyio.fail_after(5), pytest.raises(ProtocolError):
                await client.echo(b"x")
            assert client.closed
            with pytest.raises(ClosedError):
                await client.echo(b"y")


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
