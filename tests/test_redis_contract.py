"""The v1 contract, stated for the Redis faces against a real redis-server, on every
transport configuration the Redis face tests use (tests/contract/faces.py ``TRANSPORTS``):

- calls given up at random moments never hand a reply to the wrong caller, and the
  client keeps its one connection;
- every fault of dualio/lab/common/fault_proxy.py ends a call in time with a typed dualio error (or
  its right answer), and the same client recovers by itself once the fault is gone;
- a server that restarts on the same port is connected to again by the next call;
- refused credentials and a database that does not exist are typed errors, at once and
  without a loop of attempts;
- an error reply (WRONGTYPE) fails its call only, on the same connection;
- a command the server is busy with for longer than the keepalive interval is not taken
  for a dead connection.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest

from dualio import (
    AuthenticationError,
    ClosedError,
    ConnectError,
    DualioError,
    DualioTimeout,
    RemoteError,
    RetryPolicy,
)
from dualio.lab.common.fault_proxy import FaultProxy, Toxic
from dualio.redis import Redis as AsyncRedis
from dualio.redis import RedisError
from dualio_sync.redis import Redis as SyncRedis
from tests.contract.faces import Backend, Transport, parametrize_transports
from tests.contract.fault_matrix import BIG, BIG_REQUEST, CALL_TIMEOUT, NETWORK, OUTAGES, RECOVERY_CALLS
from tests.redis_server import (
    NOT_INSTALLED,
    PASSWORD,
    REDIS_SERVER,
    RedisServer,
    redis_auth_server,
    redis_server,
    start_redis,
)
from tests.test_redis_faces import Face

__all__ = ["redis_auth_server", "redis_server"]  # the fixtures, used by name

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

Address = tuple[str, int]
LATE = 1.0
"""How far past its timeout a call may end (far above what it takes: the machine is shared)."""
RECOVERY = 10.0
"""Seconds the same client has, once a fault is cleared, to answer RECOVERY_CALLS calls in a row."""
PROMPT = 2.0
"""A refusal reaches its caller well within this; the client's timeouts are 10 s."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_transports(metafunc)


@pytest.fixture
def anyio_backend(transport: Transport) -> Backend:
    return transport.backend


@pytest.fixture
def key(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """Keys of this case alone (the cases of a worker share its server)."""
    return lambda name: f"{request.node.nodeid}:{name}"


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of this case alone, which the case may stop and start again."""
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    server = start_redis()
    try:
        yield server
    finally:
        discard(server)


def discard(server: RedisServer) -> None:
    """Stop a case's own server at its end: killed (nothing of it is kept), which is quicker."""
    if server.process.poll() is None:
        server.process.kill()
        server.process.wait()
    server.stop()  # its directory


async def open_client(transport: Transport, address: Address, **options: Any) -> Face:
    """An open Redis client of ``address`` on ``transport``, with the face's default retry."""
    options.setdefault("timeout", 10.0)
    options.setdefault("connect_timeout", 10.0)
    if transport.is_sync:
        client: Any = await anyio.to_thread.run_sync(functools.partial(
            SyncRedis, *address, transport=transport.sync_transport, **options
        ))
        return Face(client)
    async_client: AsyncRedis[Any] = AsyncRedis(*address, **(transport.options or {}), **options)
    await async_client.open()
    return Face(async_client)


async def close_quietly(face: Face) -> None:
    with anyio.CancelScope(shield=True), anyio.move_on_after(10):
        await face.aclose()


def info_field(info: bytes | str, name: str) -> int:
    text = info.decode() if isinstance(info, bytes) else info
    for line in text.splitlines():
        if line.startswith(f"{name}:"):
            return int(line.split(":", 1)[1])
    raise AssertionError(f"no {name} in INFO: {text[:200]!r}")


async def connections_received(face: Face) -> int:
    """The server's count of connections it accepted, asked on ``face``'s own connection."""
    return info_field(await face.execute("INFO", "stats"), "total_connections_received")


def observed(server: RedisServer, password: str | None = None) -> Callable[[], int]:
    """``total_connections_received`` of ``server``, asked on a connection of its own
    (which that count includes)."""
    def count() -> int:
        with SyncRedis(*server.address, password=password, timeout=10, retry=None) as r:
            return info_field(r.execute("INFO", "stats"), "total_connections_received")
    return count


async def in_thread(fn: Callable[[], Any]) -> Any:
    return await anyio.to_thread.run_sync(fn)


# -- a: calls given up at random moments -------------------------------------------------

STORM_TASKS = 20
STORM_ROUNDS = 10  # each task's: 200 given-up-or-not GETs in all, each followed by a checked GET
STORM_LATENCY = 0.010


async def test_calls_given_up_at_random_never_get_another_s_reply_and_the_connection_is_kept(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """200 GETs, each given up after a random 1-30 ms (a cancel scope or ``timeout=``
    on the async face, ``timeout=`` on the blocking one) while every reply is 10 ms late
    (the proxy's latency toxic), each followed by a GET of another key: every answer is
    its own key's value, and the client keeps its one connection throughout."""
    values = {key(str(n)): f"value-{n}".encode() for n in range(STORM_TASKS * 2)}
    rng = random.Random(20240611)
    wrong: list[tuple[str, object]] = []
    counts = {"gave up": 0, "finished": 0}
    with FaultProxy(redis_server.address) as proxy:
        r = await open_client(transport, proxy.address)
        try:
            await r.mset(values)
            first_id = await r.execute("CLIENT", "ID")
            connections = await connections_received(r)
            proxy.set(Toxic("latency", STORM_LATENCY))

            async def given_up(name: str, limit: float, how: int) -> None:
                try:
                    if transport.is_sync or how == 0:
                        got = await r.get(name, timeout=limit)
                    else:
                        got = None
                        with anyio.move_on_after(limit) as scope:
                            got = await r.get(name)
                        if scope.cancelled_caught:
                            counts["gave up"] += 1
                            return
                except DualioTimeout:
                    counts["gave up"] += 1
                    return
                counts["finished"] += 1
                if got != values[name]:
                    wrong.append((name, got))

            async def rounds(task: int) -> None:
                mine, other = key(str(task * 2)), key(str(task * 2 + 1))
                for _ in range(STORM_ROUNDS):
                    await given_up(mine, rng.uniform(0.001, 0.030), rng.randrange(2))
                    got = await r.get(other)
                    if got != values[other]:
                        wrong.append((other, got))

            with anyio.fail_after(40):
                async with anyio.create_task_group() as tasks:
                    for task in range(STORM_TASKS):
                        tasks.start_soon(rounds, task)
            proxy.clear()
            assert wrong == []
            assert counts["gave up"] > 0, counts
            assert counts["gave up"] + counts["finished"] == STORM_TASKS * STORM_ROUNDS
            for name, value in values.items():  # the late replies were all dropped
                assert await r.get(name) == value
            assert await r.execute("CLIENT", "ID") == first_id
            assert await connections_received(r) == connections
            assert not r.client.closed
        finally:
            await close_quietly(r)


# -- b: the fault matrix -----------------------------------------------------------------

TOXICS = NETWORK + OUTAGES


async def _bounded(
    name: str, timeout: float, call: Callable[[], Awaitable[object]], expected: object, problems: list[str]
) -> None:
    """Run ``call``: it returns ``expected`` or raises a typed dualio error, within
    ``timeout`` (plus LATE)."""
    started = time.monotonic()
    try:
        got = await call()
    except DualioError:
        got = expected
    except Exception as exc:  # not a typed dualio error
        problems.append(f"{name} raised {type(exc).__name__}: {exc}")
        return
    took = time.monotonic() - started
    if took > timeout + LATE:
        problems.append(f"{name} took {took:.2f}s, its timeout is {timeout}s")
    if got != expected:
        problems.append(f"{name} got a wrong answer: {got!r:.80}")


async def _cell(
    r: Face, proxy: FaultProxy, toxic: Toxic, key: Callable[[str], str], problems: list[str]
) -> None:
    """One toxic against one client: calls under it end in time, rightly or with a typed
    error; once it is cleared the same client answers RECOVERY_CALLS calls in a row."""
    name = f"{toxic}"
    values = {key(f"{toxic.kind}-{n}"): f"{toxic.kind}-{n}".encode() for n in range(3)}
    await r.mset(values)
    proxy.set(toxic)
    during: list[str] = []
    async with anyio.create_task_group() as tasks:
        for item, value in values.items():
            tasks.start_soon(
                _bounded, f"GET under {name}", CALL_TIMEOUT,
                functools.partial(r.get, item, timeout=CALL_TIMEOUT), value, during,
            )
        if toxic.kind in BIG_REQUEST:
            tasks.start_soon(
                _bounded, f"a {BIG >> 20} MiB SET under {name}", CALL_TIMEOUT,
                functools.partial(r.set, key(f"{toxic.kind}-big"), bytes(BIG), timeout=CALL_TIMEOUT),
                True, during,
            )
    problems.extend(during)
    proxy.clear()
    answered = 0
    failures: list[str] = []
    started = time.monotonic()
    with anyio.move_on_after(RECOVERY):
        while answered < RECOVERY_CALLS:
            item = key(f"{toxic.kind}-{answered % 3}")
            try:
                got = await r.get(item, timeout=2)
            except DualioError as exc:
                failures.append(f"{type(exc).__name__}: {exc}")
                answered = 0  # in a row
                await anyio.sleep(0.05)
                continue
            if got != values[item]:
                problems.append(f"after {name}: GET {item} was answered with {got!r:.80}")
                return
            answered += 1
    if answered < RECOVERY_CALLS:
        problems.append(
            f"after {name} was cleared the client answered {answered} calls in a row in "
            f"{time.monotonic() - started:.1f}s; failures: {failures[:3]}"
        )


async def test_every_fault_ends_a_call_in_time_with_a_typed_error_and_the_same_client_recovers(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """Every toxic of the proxy (the v1 fault matrix's, tests/contract/fault_matrix.py),
    each in force between its own client and the server, all at once: the GETs made
    under it (and a SET larger than the socket buffers, for the toxics that stall or cut
    a write) return their own answer or raise a typed dualio error within their timeout;
    then the toxic is cleared and the same client answers again, by itself."""
    proxies = [FaultProxy(redis_server.address) for _ in TOXICS]
    clients: dict[int, Face] = {}
    problems: dict[str, list[str]] = {str(toxic): [] for toxic in TOXICS}

    async def connect(n: int) -> None:
        clients[n] = await open_client(
            transport, proxies[n].address, timeout=30.0, connect_timeout=10.0, retry=RetryPolicy()
        )

    try:
        async with anyio.create_task_group() as tasks:
            for n in range(len(TOXICS)):
                tasks.start_soon(connect, n)
        with anyio.fail_after(45):
            async with anyio.create_task_group() as tasks:
                for n, toxic in enumerate(TOXICS):
                    tasks.start_soon(_cell, clients[n], proxies[n], toxic, key, problems[str(toxic)])
    finally:
        with anyio.CancelScope(shield=True):
            async with anyio.create_task_group() as tasks:
                for r in clients.values():
                    tasks.start_soon(close_quietly, r)
                for proxy in proxies:
                    tasks.start_soon(in_thread, proxy.close)
    assert {toxic: found for toxic, found in problems.items() if found} == {}


# -- c: a server that restarts -------------------------------------------------------------

async def restart(server: RedisServer, password: str | None = None) -> RedisServer:
    """Stop ``server`` and start a new one on its port (with ``password``, if given)."""
    port = server.port
    await in_thread(server.stop)
    return await in_thread(functools.partial(start_redis, port=port, password=password))


async def test_a_server_that_restarts_is_connected_to_again_by_the_next_call(
    own_redis: RedisServer, transport: Transport
) -> None:
    """The server stops and a new one starts on the same port between two calls: the
    same client's next call connects again and is answered, though it is not safe to
    send twice (INCR): the old connection was gone before the call was made."""
    r = await open_client(transport, own_redis.address)
    server = own_redis
    try:
        assert await r.incr("counter") == 1
        server = await restart(own_redis)
        assert await r.incr("counter") == 1  # nothing was saved: a new server
        assert await r.get("counter") == b"1"
        assert await connections_received(r) == 2  # start_redis's readiness probe, then this client
        assert not r.client.closed
    finally:
        await close_quietly(r)
        discard(server)


# -- d: refused credentials ----------------------------------------------------------------

WRONG_PASSWORD = "not-the-password"
SERVER_PASSWORD = "the-password-now"


async def test_a_wrong_password_is_refused_at_once_with_one_attempt(
    redis_auth_server: RedisServer, transport: Transport
) -> None:
    """A wrong password: AuthenticationError when the client opens, long before its
    timeouts, after one connection to the server (a refusal is not tried again)."""
    count = observed(redis_auth_server, PASSWORD)
    before = await in_thread(count)
    started = time.monotonic()
    with pytest.raises(AuthenticationError, match="WRONGPASS"):
        await open_client(transport, redis_auth_server.address, password=WRONG_PASSWORD)
    assert time.monotonic() - started < PROMPT
    assert await in_thread(count) - before == 2  # the refused client's, and the count's own


async def test_credentials_refused_on_reconnecting_are_a_typed_error_without_a_loop(
    own_redis: RedisServer, transport: Transport
) -> None:
    """The client authenticated; the server restarts with another password. The next
    call reconnects once, is refused (AuthenticationError, long before its timeout), and
    the calls after it fail at once (the client is closed for good) without connecting
    again."""
    r = await open_client(transport, own_redis.address, password=None)
    server = own_redis
    try:
        assert await r.set("k", "v") is True
        server = await restart(own_redis, password=SERVER_PASSWORD)
        started = time.monotonic()
        with pytest.raises(AuthenticationError, match=r"NOAUTH|WRONGPASS"):
            await r.get("k")
        assert time.monotonic() - started < PROMPT
        for _ in range(3):
            started = time.monotonic()
            with pytest.raises((AuthenticationError, ClosedError)):
                await r.get("k")
            assert time.monotonic() - started < PROMPT
        assert r.client.closed
        # start_redis's readiness probe, the client's one refused attempt, the count's own
        assert await in_thread(observed(server, SERVER_PASSWORD)) == 3
    finally:
        await close_quietly(r)
        discard(server)


# -- e: a database that does not exist -----------------------------------------------------

async def test_selecting_a_database_that_does_not_exist_is_a_typed_error_at_open(
    redis_server: RedisServer, transport: Transport
) -> None:
    """db=10000 on a server of 16 databases: the handshake's SELECT is refused, a
    ConnectError (not an authentication or version error) with the server's words, when
    the client opens, long before its timeouts, after one connection to the server."""
    count = observed(redis_server)
    before = await in_thread(count)
    started = time.monotonic()
    with pytest.raises(ConnectError) as refused:
        await open_client(transport, redis_server.address, db=10000)
    assert time.monotonic() - started < PROMPT
    assert type(refused.value) is ConnectError, repr(refused.value)
    assert "SELECT" in str(refused.value) and "out of range" in str(refused.value)
    assert await in_thread(count) - before == 2  # the refused client's, and the count's own


# -- f: an error reply ---------------------------------------------------------------------

async def test_a_wrongtype_reply_is_a_redis_error_and_the_connection_goes_on(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """LPUSH on a string: RedisError (a RemoteError) with the server's code and words;
    the same connection answers the next calls, and error replies among concurrent calls
    fail those calls only."""
    r = await open_client(transport, redis_server.address)
    try:
        text = key("text")
        await r.set(text, "words")
        client_id = await r.execute("CLIENT", "ID")
        with pytest.raises(RedisError) as caught:
            await r.lpush(text, "x")
        error = caught.value
        assert isinstance(error, RemoteError)
        assert error.prefix == "WRONGTYPE"
        assert error.message == "Operation against a key holding the wrong kind of value"
        assert str(error).startswith("WRONGTYPE Operation against a key holding the wrong kind of value")
        assert await r.get(text) == b"words"
        assert await r.execute("CLIENT", "ID") == client_id

        outcomes: dict[int, object] = {}

        async def one(n: int) -> None:
            try:
                outcomes[n] = await (r.hget(text, "f") if n % 3 == 0 else r.get(text))
            except RedisError as exc:
                outcomes[n] = exc.prefix

        async with anyio.create_task_group() as tasks:
            for n in range(30):
                tasks.start_soon(one, n)
        assert outcomes == {n: "WRONGTYPE" if n % 3 == 0 else b"words" for n in range(30)}
        assert await r.execute("CLIENT", "ID") == client_id
        assert not r.client.closed
    finally:
        await close_quietly(r)


# -- a command the server takes long on ------------------------------------------------------

async def test_a_command_the_server_takes_long_on_is_not_taken_for_a_dead_connection(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """keepalive=0.1 and a command the server runs for 0.3 s (DEBUG SLEEP): the server
    is alive and busy, not dead; the command is answered within its timeout, on the same
    connection."""
    r = await open_client(transport, redis_server.address, keepalive=0.1)
    try:
        client_id = await r.execute("CLIENT", "ID")
        assert await r.execute("DEBUG", "SLEEP", "0.3", timeout=5) == b"OK"
        assert await r.execute("CLIENT", "ID") == client_id
    finally:
        await close_quietly(r)
