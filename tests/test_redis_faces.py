"""Both Redis faces, against a real redis-server, on every transport configuration the
contract suite runs (tests/contract/faces.py ``TRANSPORTS``): each case runs once per
transport, on that transport's anyio backend.

Concurrent calls on one connection run on every transport too: a protocol answered in
order needs each call's place in the order of answers and its request's bytes kept
together, which every transport does (docs/architecture.md §1.5); the blocking face's
calls come from worker threads, so they are concurrent calls from several threads.
"""

from __future__ import annotations

import functools
import os
import random
import ssl
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest

from dualio import (
    AuthenticationError,
    ConnectError,
    DualioError,
    DualioTimeout,
    FrameTooLarge,
    OutcomeUnknown,
    ProtocolError,
    RemoteError,
    RetriesExhausted,
    RetryPolicy,
    UsageError,
)
from dualio.lab.common.fault_proxy import FaultProxy, Toxic
from dualio.redis import ClientCache, LockError, LockNotOwnedError, RedisError, WatchError
from dualio.redis import Redis as AsyncRedis
from dualio_sync.redis import Redis as SyncRedis
from dualio_sync.redis.commands import RedisCommands, parse_url
from dualio_transports.wire.request import Request
from tests.contract.faces import Backend, Transport, parametrize_transports
from tests.redis_server import (
    NOT_INSTALLED,
    PASSWORD,
    REDIS_SERVER,
    RedisServer,
    received_while_publishing,
    redis_auth_server,
    redis_resp2_server,
    redis_server,
    start_redis,
)

__all__ = ["redis_auth_server", "redis_resp2_server", "redis_server"]  # the fixtures, used by name

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(30)]

def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_transports(metafunc)


@pytest.fixture
def anyio_backend(transport: Transport) -> Backend:
    return transport.backend


class Face:
    """A Redis client of either face, its methods as coroutines: the blocking face's run
    in a worker thread each, so its own timeouts and errors are what a case sees."""

    def __init__(self, client: AsyncRedis[Any] | SyncRedis[Any]) -> None:
        self.client = client

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.client, name)
        if isinstance(self.client, AsyncRedis):
            return method  # type: ignore[no-any-return]

        async def run(*args: Any, **kwargs: Any) -> Any:
            return await anyio.to_thread.run_sync(functools.partial(method, *args, **kwargs))

        return run

    async def aclose(self) -> None:
        if isinstance(self.client, AsyncRedis):
            await self.client.aclose()
        else:
            await anyio.to_thread.run_sync(self.client.close)


async def connect(transport: Transport, server: RedisServer, **options: Any) -> Face:
    """An open client of ``server`` on ``transport`` (short default timeouts)."""
    options.setdefault("timeout", 5.0)
    options.setdefault("connect_timeout", 5.0)
    if transport.is_sync:
        client: Any = await anyio.to_thread.run_sync(functools.partial(
            SyncRedis, *server.address, transport=transport.sync_transport, **options
        ))
        return Face(client)
    async_client: AsyncRedis[Any] = AsyncRedis(*server.address, **(transport.options or {}), **options)
    await async_client.open()
    return Face(async_client)


async def from_url(transport: Transport, url: str, **options: Any) -> Face:
    if transport.is_sync:
        client: Any = await anyio.to_thread.run_sync(functools.partial(
            SyncRedis.from_url, url, transport=transport.sync_transport, **options
        ))
        return Face(client)
    async_client: AsyncRedis[Any] = AsyncRedis.from_url(url, **(transport.options or {}), **options)
    await async_client.open()
    return Face(async_client)


@pytest.fixture
async def r(redis_server: RedisServer, transport: Transport) -> AsyncIterator[Face]:
    face = await connect(transport, redis_server)
    try:
        yield face
    finally:
        await face.aclose()


@pytest.fixture
def key(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """Keys of this case alone (every case shares the session's server)."""
    return lambda name: f"{request.node.nodeid}:{name}"


async def test_strings(r: Face, key: Callable[[str], str]) -> None:
    a, b, n = key("a"), key("b"), key("n")
    assert await r.get(a) is None
    assert await r.set(a, "1") is True
    assert await r.get(a) == b"1"
    assert await r.set(a, b"2", nx=True) is False  # NX: it exists
    assert await r.set(b, 3, xx=True) is False  # XX: it does not
    assert await r.set(b, 3.5, ex=100) is True
    assert 0 < await r.ttl(b) <= 100
    assert await r.set(b, "x", px=50_000) is True
    assert 0 < await r.ttl(b) <= 50
    assert await r.ttl(a) == -1 and await r.ttl(key("none")) == -2
    assert await r.mget(a, key("none"), b) == [b"1", None, b"x"]
    assert await r.mset({a: "m", n: 10}) is True  # OK, as redis-py reads it
    assert await r.incr(n) == 11
    assert await r.incrby(n, -20) == -9
    assert await r.exists(a, b, key("none"), a) == 3
    assert await r.expire(a, 100) is True
    assert await r.expire(key("none"), 100) is False
    assert await r.delete(a, b, key("none")) == 2
    assert await r.exists(a) == 0


async def test_hashes(r: Face, key: Callable[[str], str]) -> None:
    h = key("h")
    assert await r.hset(h, mapping={"f": 1, b"g": "two"}) == 2
    assert await r.hset(h, mapping={"f": 3}) == 0  # updated, not new
    assert await r.hget(h, "f") == b"3"
    assert await r.hget(h, "none") is None
    assert await r.hgetall(h) == {b"f": b"3", b"g": b"two"}
    assert await r.hdel(h, "f", "none") == 1
    assert await r.hgetall(key("none")) == {}


async def test_lists(r: Face, key: Callable[[str], str]) -> None:
    lst = key("l")
    assert await r.rpush(lst, 1, 2) == 2
    assert await r.lpush(lst, "b", "a") == 4  # each pushed at the head in turn
    assert await r.lrange(lst, 0, -1) == [b"a", b"b", b"1", b"2"]
    assert await r.lpop(lst) == b"a"
    assert await r.rpop(lst) == b"2"
    assert await r.lrange(lst, 0, 0) == [b"b"]
    assert await r.lpop(key("none")) is None


async def test_sets_and_sorted_sets(r: Face, key: Callable[[str], str]) -> None:
    s, z = key("s"), key("z")
    assert await r.sadd(s, "a", "b", "a") == 2
    assert await r.srem(s, "a", "none") == 1
    assert await r.smembers(s) == {b"b"}
    assert await r.smembers(key("none")) == set()
    assert await r.zadd(z, {"m": 2.5, "n": 1, "o": -1}) == 3
    assert await r.zadd(z, {"m": 0}) == 0  # a new score, not a new member
    assert await r.zrange(z, 0, -1) == [b"o", b"m", b"n"]
    assert await r.zrange(z, 0, 1, withscores=True) == [(b"o", -1.0), (b"m", 0.0)]


async def test_publish_ping_and_any_command(r: Face, key: Callable[[str], str]) -> None:
    assert await r.publish(key("channel"), "hi") == 0  # nobody subscribes
    assert 0 <= await r.ping() < 5
    assert await r.execute("ECHO", b"\x00raw") == b"\x00raw"
    assert await r.execute("SET", key("e"), 5) == b"OK"
    assert await r.execute("INCRBYFLOAT", key("e"), "0.5") == b"5.5"
    assert await r.execute("CONFIG", "GET", "save") == {b"save": b""}  # a map
    for refused in (("SUBSCRIBE", "c"), ("unsubscribe", "c"), ("MULTI",), ("WATCH", "k"), ("MONITOR",),
                    ("SELECT", 1), ("HELLO", 2), ("AUTH", "x"), ("QUIT",), ("READONLY",)):
        with pytest.raises(UsageError):
            await r.execute(*refused)
    for refused, words in (
        (("CLIENT", "REPLY", "OFF"), "every call waits for its reply"),
        ((b"client", b"reply", b"skip"), "every call waits for its reply"),
        (("CLIENT", "SETNAME", "x"), "use client_name="),
        (("client", "tracking", "on"), "CLIENT TRACKING is refused"),
        (("CLIENT", "NO-EVICT", "on"), "a new connection would not have it"),
    ):
        with pytest.raises(UsageError, match=words):
            await r.execute(*refused)
        with pytest.raises(UsageError, match=words):
            await r.pipeline(("GET", key("e")), refused)
    assert isinstance(await r.execute("CLIENT", "ID"), int)  # CLIENT's other subcommands go through
    with pytest.raises(ValueError):
        await r.execute()
    assert await r.get(key("e")) == b"5.5"  # nothing refused was sent


async def test_decode_responses(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    r = await connect(transport, redis_server, decode_responses=True)
    try:
        await r.mset({key("a"): "é", key("b"): 2})
        assert await r.get(key("a")) == "é"
        assert await r.mget(key("a"), key("b"), key("none")) == ["é", "2", None]
        await r.hset(key("h"), mapping={"f": "v"})
        assert await r.hgetall(key("h")) == {"f": "v"}
        await r.sadd(key("s"), "m")
        assert await r.smembers(key("s")) == {"m"}
        await r.zadd(key("z"), {"m": 1})
        assert await r.zrange(key("z"), 0, -1, withscores=True) == [("m", 1.0)]
        await r.rpush(key("l"), "x")
        assert await r.lrange(key("l"), 0, -1) == ["x"]
        assert await r.lpop(key("l")) == "x"
        assert await r.execute("CONFIG", "GET", "save") == {"save": ""}
        assert await r.incr(key("b")) == 3
    finally:
        await r.aclose()


async def test_a_password_authenticates_and_a_wrong_one_is_refused(
    redis_auth_server: RedisServer, transport: Transport, key: Callable[[str], str],
) -> None:
    r = await connect(transport, redis_auth_server, password=PASSWORD, client_name="dualio-tests")
    try:
        assert await r.set(key("a"), "v") is True
        assert await r.execute("CLIENT", "GETNAME") == b"dualio-tests"
    finally:
        await r.aclose()
    r = await connect(transport, redis_auth_server, password=PASSWORD, username="default")
    try:
        assert await r.get(key("a")) == b"v"
    finally:
        await r.aclose()
    with pytest.raises(AuthenticationError):
        await connect(transport, redis_auth_server, password="wrong")
    with pytest.raises(AuthenticationError):  # none at all: NOAUTH
        r = await connect(transport, redis_auth_server)
        await r.get(key("a"))


async def test_db_selects_a_database(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    zero, three = await connect(transport, redis_server), await connect(transport, redis_server, db=3)
    try:
        await three.set(key("a"), "in 3")
        assert await zero.get(key("a")) is None
        assert await three.get(key("a")) == b"in 3"
        client_info = await three.execute("CLIENT", "INFO")
        assert b" db=3 " in client_info
    finally:
        await zero.aclose()
        await three.aclose()


async def test_an_error_reply_fails_that_call_only(r: Face, key: Callable[[str], str]) -> None:
    await r.set(key("s"), "text")
    with pytest.raises(RedisError) as caught:
        await r.incr(key("s"))
    assert isinstance(caught.value, RemoteError)
    assert caught.value.prefix == "ERR" and "not an integer" in caught.value.message
    with pytest.raises(RedisError) as wrong_type:
        await r.lpush(key("s"), "x")
    assert wrong_type.value.prefix == "WRONGTYPE"
    assert await r.get(key("s")) == b"text"  # the connection answers as before
    assert not r.client.closed


async def test_a_timed_out_command_s_late_reply_is_dropped(r: Face, key: Callable[[str], str]) -> None:
    await r.set(key("a"), "mine")
    with pytest.raises(DualioTimeout):
        await r.execute("DEBUG", "SLEEP", "0.5", timeout=0.1)
    # the server answers DEBUG SLEEP first (+OK, read and dropped), then this GET
    assert await r.get(key("a"), timeout=5) == b"mine"
    assert await r.incr(key("n"), timeout=5) == 1
    assert not r.client.closed
    assert r.client._conn is not None and r.client._conn.dropped >= 1


STORMS = {
    # name: (calls, proxy latency, give-up moments in (low, high) seconds, with a client-side cache)
    "answers-under-way": (300, 0.02, (0.001, 0.1), False),
    "writes-under-way": (3000, 0.0, (0.00001, 0.005), False),
    "cached": (3000, 0.0, (0.00001, 0.005), True),
}


@pytest.mark.parametrize("storm", sorted(STORMS))
async def test_a_cancel_storm_keeps_the_one_connection(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str], storm: str
) -> None:
    """GETs, 20 at once, through a proxy (delaying every chunk, or not), each given up at
    a random moment: by its timeout on every transport, and on the async face half of
    them by a cancel. Every answer that comes is the call's own, and the client never
    opens another connection: 0 reconnects."""
    calls, latency, (low, high), cached = STORMS[storm]
    rng = random.Random(7)
    with FaultProxy(redis_server.address) as proxy:
        cache = ClientCache() if cached else None
        r = await connect(transport, _Proxied(proxy), timeout=10.0, cache=cache)  # type: ignore[arg-type]
        try:
            keys = [key(f"k{i}") for i in range(20)]
            for name in keys:
                await r.set(name, name)
            if latency:
                proxy.set(Toxic("latency", latency))
            wrong: list[Any] = []
            given_up = 0
            cancel = isinstance(r.client, AsyncRedis)
            moments = [rng.uniform(low, high) for _ in range(calls)]

            async def one(index: int) -> None:
                nonlocal given_up
                name = keys[index % len(keys)]
                moment = moments[index]
                try:
                    if cancel and index % 2:
                        with anyio.move_on_after(moment) as scope:
                            value = await r.get(name, timeout=5)
                        if scope.cancelled_caught:
                            given_up += 1
                            return
                    else:
                        value = await r.get(name, timeout=moment)
                except DualioTimeout:
                    given_up += 1
                    return
                if value != name.encode():
                    wrong.append((name, value))

            limiter = anyio.Semaphore(20)

            async def limited(index: int) -> None:
                async with limiter:
                    await one(index)

            async with anyio.create_task_group() as tasks:
                for index in range(calls):
                    tasks.start_soon(limited, index)
            proxy.clear()
            assert (wrong == [] and 0 < given_up < calls) or (cached and given_up == 0), (wrong[:3], given_up)
            assert await r.get(keys[3], timeout=5) == keys[3].encode()
            assert not r.client.closed
            reconnects = proxy.accepted - 1
            assert reconnects == 0, f"{reconnects} reconnects, {given_up} of {calls} calls given up"
        finally:
            await r.aclose()


async def test_from_url(
    redis_auth_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    host, port = redis_auth_server.address
    r = await from_url(transport, f"redis://:{PASSWORD}@{host}:{port}/2?decode_responses=1&timeout=5")
    try:
        assert r.client.db == 2 and r.client.decode_responses and r.client.timeout == 5
        await r.set(key("a"), "v")
        assert await r.get(key("a")) == "v"
        assert b" db=2 " in (await r.execute("CLIENT", "INFO")).encode()
    finally:
        await r.aclose()


async def test_concurrent_gets_each_get_their_own_value(r: Face, key: Callable[[str], str]) -> None:
    """Many concurrent GETs share the one connection (pipelined); each gets its own
    key's value."""
    count = 200
    await r.mset({key(str(i)): f"value-{i}" for i in range(count)})
    got: dict[int, Any] = {}

    async def get(i: int) -> None:
        got[i] = await r.get(key(str(i)))

    async with anyio.create_task_group() as tasks:
        for i in range(count):
            tasks.start_soon(get, i)
    assert got == {i: f"value-{i}".encode() for i in range(count)}


async def test_a_cancelled_command_s_reply_is_dropped_too(r: Face, key: Callable[[str], str]) -> None:
    await r.set(key("a"), "mine")
    with anyio.move_on_after(0.1):
        await r.execute("DEBUG", "SLEEP", "0.5")
    assert await r.get(key("a")) == b"mine"
    assert not r.client.closed


# -- no server: the URL, the arguments, what is sent again ---------------------------


def test_parse_url() -> None:
    assert parse_url("redis://localhost") == {"host": "localhost", "port": 6379}
    assert parse_url("redis://u:p%40ss@h:1234/5?timeout=none&client_name=me") == {
        "host": "h", "port": 1234, "username": "u", "password": "p@ss", "db": 5, "timeout": None,
        "client_name": "me",
    }
    assert parse_url("redis://:pw@h")["password"] == "pw"
    assert "tls" in parse_url("rediss://h")
    assert parse_url("redis://h?db=3&socket_timeout=2.5&socket_connect_timeout=1&health_check_interval=none"
                     "&decode_responses=true&protocol=3&password=p%26w&username=u") == {
        "host": "h", "port": 6379, "db": 3, "timeout": 2.5, "connect_timeout": 1.0, "keepalive": None,
        "decode_responses": True, "password": "p&w", "username": "u",
    }
    assert parse_url("unix:///run/redis/redis.sock?db=2") == {
        "unix_socket_path": "/run/redis/redis.sock", "db": 2,
    }
    assert parse_url("unix://u:pw@/tmp/r.sock") == {"unix_socket_path": "/tmp/r.sock", "username": "u",
                                                     "password": "pw"}
    for bad, named in (("http://h", "not a redis://"), ("redis://", "no host"), ("redis://h/x", "number"),
                       ("redis://h?nope=1", "unknown key 'nope'"), ("redis://h:99999", "bad port"),
                       ("redis://h?db=x", "db must be a number"), ("redis://pw@h", "user name alone"),
                       ("unix://", "no socket path"), ("redis://h?protocol=2", "protocol must be 3"),
                       ("redis://h?decode_responses=yes", "decode_responses must be")):
        with pytest.raises(ValueError, match=named):
            parse_url(bad)


@pytest.mark.parametrize("face", [AsyncRedis, SyncRedis])
def test_arguments_are_checked_before_connecting(face: type[Any]) -> None:
    for options, error in (
        ({"username": "u"}, ValueError),  # a username without a password
        ({"db": -1}, ValueError),
        ({"db": "1"}, TypeError),
        ({"password": 1}, TypeError),
        ({"transport": "nope"}, ValueError),
        ({"timeout": -1}, ValueError),
    ):
        with pytest.raises(error):
            face(port=1, **options)


class Sent(RedisCommands[bytes]):
    """The commands' requests, not sent."""

    decode_responses = False

    def __init__(self) -> None:  # no connection: the requests are only made
        pass

    def request(self, request: Request[Any], timeout: object = None, held: bool = False) -> Any:
        return request


def test_only_what_is_safe_to_send_twice_is_idempotent() -> None:
    s: Any = Sent()
    safe = [s.get("k"), s.mget("k"), s.execute("GET", "k"), s.execute("del", "k"), s.set("k", 1),
            s.set("k", 1, xx=True, ex=5), s.mset({"k": 1}), s.delete("k"), s.exists("k"), s.ttl("k"),
            s.hget("h", "f"), s.hgetall("h"), s.lrange("l", 0, 1), s.smembers("s"), s.zrange("z", 0, 1),
            s.zrange("z", 0, 1, withscores=True)]
    unsafe = [s.set("k", 1, nx=True), s.incr("k"), s.incrby("k", 2), s.hset("h", mapping={"f": 1}),
              s.hdel("h", "f"), s.lpush("l", 1), s.rpush("l", 1), s.lpop("l"), s.rpop("l"), s.sadd("s", 1),
              s.srem("s", 1), s.zadd("z", {"m": 1}), s.publish("c", "m"), s.execute("INCR", "k"),
              s.execute("NOSUCH", "k"), s.expire("k", 1)]  # EXPIRE: RW on its key in Redis's spec
    assert [(r.method, r.idempotent) for r in safe] == [(r.method, True) for r in safe]
    assert [(r.method, r.idempotent) for r in unsafe] == [(r.method, False) for r in unsafe]
    assert s.set("k", "v", ex=5, nx=True).args == (
        b"*6\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nEX\r\n$1\r\n5\r\n$2\r\nNX\r\n"
    )


# -- batches ------------------------------------------------------------------------------

async def test_a_pipeline_sends_its_commands_at_once_and_reads_a_reply_each(
    r: Face, key: Callable[[str], str]
) -> None:
    k, word = key("n"), key("word")
    assert await r.pipeline(("SET", k, 1), ("INCR", k), ("GET", k)) == [b"OK", 2, b"2"]
    assert await r.pipeline() == []
    await r.set(word, "text")
    with pytest.raises(RedisError, match="WRONGTYPE"):
        await r.pipeline(("LPUSH", word, "x"), ("INCR", k))
    assert await r.get(k) == b"3"  # an error reply fails no other command of the batch
    values = await r.pipeline(("LPUSH", word, "x"), ("GET", k), raise_on_error=False)
    assert isinstance(values[0], RedisError) and values[0].prefix == "WRONGTYPE" and values[1] == b"3"
    for refused in (("SUBSCRIBE", "c"), ("BLPOP", "l", 1), ("MULTI",), ("SELECT", 1)):
        with pytest.raises(UsageError):
            await r.pipeline(("GET", k), refused)
    for malformed in ("GET k", (), 5):
        with pytest.raises(TypeError):
            await r.pipeline(malformed)
    assert await r.get(k) == b"3"  # nothing refused was sent


async def test_a_transaction_runs_whole_and_nothing_else_runs_inside_it(
    r: Face, key: Callable[[str], str]
) -> None:
    k = key("n")
    assert await r.transaction(("SET", k, 1), ("INCR", k), ("GET", k), ("BLPOP", key("empty"), 5)) == [
        b"OK", 2, b"2", None,  # a command the server would hold does not wait inside a transaction
    ]
    with pytest.raises(RedisError, match="EXECABORT") as aborted:
        await r.transaction(("INCR", k), ("NOSUCHCOMMAND",))
    assert "NOSUCHCOMMAND" in str(aborted.value).upper()
    assert await r.get(k) == b"2"  # none of it ran
    with pytest.raises(RedisError, match="WRONGTYPE"):
        await r.transaction(("INCR", k), ("LPUSH", k, "x"))
    assert await r.get(k) == b"3"  # the other command ran: Redis has no rollback
    values = await r.transaction(("LPUSH", k, "x"), ("INCR", k), raise_on_error=False)
    assert isinstance(values[0], RedisError) and values[1] == 4
    with pytest.raises(UsageError):
        await r.transaction(("WATCH", k))

    counter, other = key("counter"), key("other")
    await r.set(other, "untouched")
    got: list[Any] = []

    async def transact() -> None:
        got.append(await r.transaction(("INCR", counter), ("GET", counter)))

    async def get() -> None:
        assert await r.get(other) == b"untouched"  # never QUEUED inside another's MULTI

    async with anyio.create_task_group() as tasks:
        for _ in range(20):
            tasks.start_soon(transact)
            tasks.start_soon(get)
    assert sorted(values[0] for values in got) == list(range(1, 21))
    assert all(str(n).encode() == value for n, value in got)


# -- Unix sockets ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def redis_unix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisServer, str]]:
    """A redis-server that listens on a Unix socket too."""
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    path = str(tmp_path_factory.mktemp("sock") / "redis.sock")
    server = start_redis(options=["--unixsocket", path, "--unixsocketperm", "700"])
    try:
        yield server, path
    finally:
        server.stop()


async def test_a_unix_socket(
    redis_unix: tuple[RedisServer, str], transport: Transport, key: Callable[[str], str]
) -> None:
    server, path = redis_unix
    r = await connect(transport, server, unix_socket_path=path)
    try:
        await r.set(key("k"), "over a Unix socket")
        assert await r.get(key("k")) == b"over a Unix socket"
        assert await r.blpop(key("empty"), wait=0.05) is None  # a held command's connection too
        clients = await r.execute("CLIENT", "LIST")
        assert b"laddr=" + path.encode() in clients or b"/redis.sock" in clients
    finally:
        await r.aclose()
    r = await from_url(transport, f"unix://{path}?db=1&timeout=5")
    try:
        assert await r.client_info() is not None and r.client.db == 1
    finally:
        await r.aclose()


async def test_a_unix_socket_that_is_not_there_is_a_connect_error_in_time(
    redis_unix: tuple[RedisServer, str], transport: Transport, tmp_path: Any,
) -> None:
    started = time.monotonic()
    with pytest.raises(ConnectError, match="unix:"):
        await connect(transport, redis_unix[0], unix_socket_path=str(tmp_path / "none.sock"),
                      connect_timeout=1, timeout=2, retry=None)
    assert time.monotonic() - started < 2.5


# -- replies over the client's bound -------------------------------------------------------------


async def test_a_reply_over_the_bound_fails_its_call_alone_and_the_client_goes_on(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """A value, or a list, over ``max_reply_size``: that call raises FrameTooLarge, the
    connection is given up for another, and every later call works."""
    r = await connect(transport, redis_server, max_reply_size=1 << 16)
    try:
        big, items = key("big"), key("items")
        await r.set(big, b"x" * ((1 << 16) + 1))
        await r.rpush(items, *[b"y" * 100] * 700)  # 700 short items: over 64 KiB in all
        for _ in range(2):
            with pytest.raises(FrameTooLarge):
                await r.get(big)
            assert await r.strlen(big) == (1 << 16) + 1  # the client goes on
            with pytest.raises(FrameTooLarge, match="max_reply"):
                await r.lrange(items, 0, -1)
            assert len(await r.lrange(items, 0, 9)) == 10
    finally:
        await r.aclose()


def test_a_value_of_redis_s_own_size_is_read_by_default(redis_server: RedisServer) -> None:
    """64 MiB and a byte: over the bound of old, not over Redis's 512 MiB."""
    with SyncRedis(*redis_server.address) as r:
        value = b"v" * ((64 << 20) + 1)
        r.set("64MiB+1", value)
        assert r.get("64MiB+1") == value
        r.delete("64MiB+1")


# -- iterators, scripts and streams -----------------------------------------------------------


async def _collect(r: Face, method: str, *args: Any, **kwargs: Any) -> list[Any]:
    """What one of the client's iterators gives: ``async for`` on the async face, a
    generator run in a worker thread on the blocking one."""
    client = r.client
    if isinstance(client, AsyncRedis):
        return [item async for item in getattr(client, method)(*args, **kwargs)]
    return await anyio.to_thread.run_sync(lambda: list(getattr(client, method)(*args, **kwargs)))


async def test_scan_iterators_go_through_every_cursor(r: Face, key: Callable[[str], str]) -> None:
    prefix = key("scan")
    for i in range(30):
        await r.set(f"{prefix}:{i}", i)
    await r.hset(key("h"), mapping={f"f{i}": i for i in range(20)})
    await r.sadd(key("s"), *range(20))
    await r.zadd(key("z"), {f"m{i}": i for i in range(20)})
    glob = prefix.replace("[", "\\[").replace("]", "\\]")  # the case's id has brackets
    keys = await _collect(r, "scan_iter", match=f"{glob}:*", count=5)
    assert set(keys) == {f"{prefix}:{i}".encode() for i in range(30)}
    assert set(await _collect(r, "scan_iter", match=f"{glob}:*", _type="hash")) == set()
    assert dict(await _collect(r, "hscan_iter", key("h"), count=3)) == {
        f"f{i}".encode(): str(i).encode() for i in range(20)
    }
    assert set(await _collect(r, "sscan_iter", key("s"), count=3)) == {str(i).encode() for i in range(20)}
    assert dict(await _collect(r, "zscan_iter", key("z"), match="m1*")) == {
        b"m1": 1.0, **{f"m{i}".encode(): float(i) for i in range(10, 20)}
    }


async def test_a_registered_script_loads_itself_when_the_server_does_not_have_it(
    r: Face, key: Callable[[str], str]
) -> None:
    script = r.client.register_script("return {KEYS[1], ARGV[1], 'from a script'}")
    await r.script_flush()  # the server has no script: EVALSHA says NOSCRIPT, EVAL loads it

    async def run(*args: Any, **kwargs: Any) -> Any:
        if isinstance(r.client, AsyncRedis):
            return await script(*args, **kwargs)
        return await anyio.to_thread.run_sync(functools.partial(script, *args, **kwargs))

    k = key("k")
    assert await run([k], ["a"]) == [k.encode(), b"a", b"from a script"]
    assert await r.script_exists(script.sha) == [1]  # loaded: the next call is an EVALSHA
    assert await run(keys=[k], args=[2]) == [k.encode(), b"2", b"from a script"]
    failing = r.client.register_script("return redis.call('NOPE')")
    with pytest.raises(RedisError, match="Unknown Redis command called from script"):  # not a NOSCRIPT
        await (failing() if isinstance(r.client, AsyncRedis) else anyio.to_thread.run_sync(failing))


async def test_a_consumer_group_reads_with_block_on_a_connection_of_its_own(
    r: Face, key: Callable[[str], str]
) -> None:
    stream = key("stream")
    assert await r.xgroup_create(stream, "workers", "$", mkstream=True) is True
    got: list[Any] = []

    async def read() -> None:
        got.append(await r.xreadgroup("workers", "w1", {stream: ">"}, block=5000, count=1))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        await anyio.sleep(0.2)
        assert await r.get(key("k"), timeout=2) is None  # the read holds up no other call
        entry = await r.xadd(stream, {"job": "build"})
    assert got == [{stream.encode(): [(entry, {b"job": b"build"})]}]
    assert await r.xack(stream, "workers", entry) == 1
    assert await r.xreadgroup("workers", "w1", {stream: ">"}, block=50) is None  # nothing came in 50 ms
    assert await r.xrange(stream, "-", "+") == [(entry, {b"job": b"build"})]


# -- optimistic transactions and locks --------------------------------------------------------


async def _run(r: Face, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args)`` of a client's object (a watch, a lock): awaited on the async face, in
    a worker thread on the blocking one."""
    if isinstance(r.client, AsyncRedis):
        return await fn(*args, **kwargs)
    return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))


async def _enter(r: Face, manager: Any) -> Any:
    return await _run(r, manager.__aenter__ if isinstance(r.client, AsyncRedis) else manager.__enter__)


async def _exit(r: Face, manager: Any) -> None:
    leave = manager.__aexit__ if isinstance(r.client, AsyncRedis) else manager.__exit__
    await _run(r, leave, None, None, None)


async def test_a_watch_runs_its_transaction_unless_a_watched_key_changed(
    r: Face, redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    stock = key("stock")
    await r.set(stock, 10)
    tx = await _enter(r, r.client.watch(stock))
    try:
        left = int(await _run(r, tx.get, stock))
        assert await r.get(key("other"), timeout=2) is None  # the shared connection goes on meanwhile
        assert await _run(r, tx.transaction, ("SET", stock, left - 3), ("GET", stock)) == [b"OK", b"7"]
    finally:
        await _exit(r, tx)
    other = await connect(transport, redis_server)
    try:
        tx = await _enter(r, r.client.watch(stock))
        try:
            await _run(r, tx.get, stock)
            await other.set(stock, 100)  # another client changes it between WATCH and EXEC
            with pytest.raises(WatchError, match="a watched key changed"):
                await _run(r, tx.transaction, ("SET", stock, 1))
        finally:
            await _exit(r, tx)
        assert await r.get(stock) == b"100"  # nothing ran
        tx = await _enter(r, r.client.watch(stock))  # left without EXEC: UNWATCH, the connection reused
        await _exit(r, tx)
        with pytest.raises(UsageError):
            await _run(r, tx.get, stock)  # outside its block
    finally:
        await other.aclose()


async def test_a_transaction_of_a_function_tries_again_while_a_watched_key_changes(
    r: Face, redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    counter = key("counter")
    await r.set(counter, 0)
    other = await connect(transport, redis_server)
    tries: list[int] = []
    sync = not isinstance(r.client, AsyncRedis)
    portal = anyio.from_thread if sync else None

    def disturb() -> None:  # runs in a worker thread on the blocking face
        if portal is not None:
            portal.run(other.incr, counter)

    async def double_async(tx: Any) -> int:
        value = int(await tx.get(counter))
        tries.append(value)
        if len(tries) < 3:
            await other.incr(counter)  # changed after WATCH: this try is void
        return int((await tx.transaction(("SET", counter, value * 2)))[0] == b"OK")

    def double_sync(tx: Any) -> int:
        value = int(tx.get(counter))
        tries.append(value)
        if len(tries) < 3:
            disturb()
        return int(tx.transaction(("SET", counter, value * 2))[0] == b"OK")

    try:
        result = await _run(r, r.client.transaction, double_sync if sync else double_async, counter)
        assert result == 1 and tries == [0, 1, 2] and await r.get(counter) == b"4"
        tries.clear()
        await r.set(counter, 0)
        with pytest.raises(WatchError):  # every try disturbed
            await _run(r, r.client.transaction, double_sync if sync else double_async, counter, attempts=2)
    finally:
        await other.aclose()


async def test_a_lock_is_held_by_one_holder_and_a_late_release_frees_nobody_else_s(
    r: Face, redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    name = key("lock")
    other = await connect(transport, redis_server)
    try:
        first = r.client.lock(name, lease=0.3)
        second = other.client.lock(name, lease=10)
        assert await _run(r, first.acquire) is True
        assert await _run(other, second.acquire, blocking=False) is False
        assert await _run(other, second.acquire, wait=0.05) is False
        assert await _run(other, second.acquire, wait=5) is True  # once the first's lease ran out
        assert await _run(r, first.owned) is False and await _run(other, second.owned) is True
        with pytest.raises(LockNotOwnedError):
            await _run(r, first.release)  # too late: the second holder's lock is left alone
        assert await _run(other, second.locked) is True and await r.pttl(name) > 5000
        late = r.client.lock(key("late"), lease=0.05)
        assert await _run(r, late.acquire) is True
        await anyio.sleep(0.2)
        with pytest.raises(LockNotOwnedError):
            await _run(r, late.extend, 10)  # its lease ran out: nothing extended
        assert await r.exists(key("late")) == 0
        await _run(other, second.extend, 20)
        assert await r.pttl(name) > 20_000
        await _run(other, second.release)
        assert await r.exists(name) == 0
        with pytest.raises(LockError, match="not held"):
            await _run(other, second.release)
    finally:
        await other.aclose()


async def test_a_lock_makes_its_holders_take_turns(r: Face, key: Callable[[str], str]) -> None:
    name, total = key("lock"), key("total")
    await r.set(total, 0)

    async def add_one() -> None:
        lock = r.client.lock(name, lease=5, wait=10, sleep=0.01)
        await _enter(r, lock)
        try:
            value = int(await r.get(total))
            await anyio.sleep(0.005)
            await r.set(total, value + 1)  # lost updates, were two inside at once
        finally:
            await _exit(r, lock)

    async with anyio.create_task_group() as tasks:
        for _ in range(8):
            tasks.start_soon(add_one)
    assert await r.get(total) == b"8" and await r.exists(name) == 0
    held = r.client.lock(name, lease=5, wait=0)
    blocker = r.client.lock(name, lease=5)
    await _run(r, blocker.acquire)
    with pytest.raises(LockError, match="did not come free"):
        await _enter(r, held)
    await _run(r, blocker.release)


# -- commands the server holds --------------------------------------------------------------

async def test_blpop_waits_on_a_connection_of_its_own(
    r: Face, redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    queue, k = key("queue"), key("k")
    await r.set(k, "v")
    assert await r.blpop(queue, wait=0.1) is None
    other = await connect(transport, redis_server)
    try:
        async with anyio.create_task_group() as tasks:
            popped: list[Any] = []

            async def pop() -> None:
                popped.append(await r.blpop([key("none"), queue], wait=10))

            tasks.start_soon(pop)
            await anyio.sleep(0.2)
            assert await r.get(k, timeout=2) == b"v"  # the pop holds up no other call
            await other.rpush(queue, "a", "b")
        assert popped == [(queue.encode(), b"a")]
        assert await r.brpop(queue, wait=1) == (queue.encode(), b"b")
    finally:
        await other.aclose()
    with pytest.raises(ValueError):
        await r.blpop(queue, wait=-1)
    with pytest.raises(TypeError):
        await r.blpop(wait=1)  # type: ignore[call-arg]


async def test_a_blpop_given_up_closes_its_connection_and_loses_nothing_pushed_later(
    r: Face, transport: Transport, key: Callable[[str], str]
) -> None:
    queue = key("queue")
    before = await r.execute("CLIENT", "LIST")
    with pytest.raises(DualioTimeout):
        await r.blpop(queue, wait=0, timeout=0.3)
    if not transport.is_sync:  # a blocking call in a worker thread cannot be cancelled
        with anyio.move_on_after(0.3):
            await r.execute("BLPOP", queue, 0, timeout=10)
    await anyio.sleep(0.2)
    await r.rpush(queue, "kept")
    assert await r.execute("LLEN", queue) == 1  # no closed connection took it
    after = await r.execute("CLIENT", "LIST")
    assert after.count(b"cmd=blpop") == before.count(b"cmd=blpop") == 0
    assert await r.lpop(queue) == b"kept"


class _Proxied:
    """A server's address behind a fault proxy, where :func:`connect` takes a server."""

    def __init__(self, proxy: FaultProxy) -> None:
        self.address = proxy.address


async def test_a_held_command_backs_off_when_its_connection_cannot_be_opened(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """BLPOP runs on a connection of its own: a connect that fails there is tried again
    after the retry policy's pause, as every other call's reconnect is, not at once (a
    consumer looping on BLPOP made some 1,000 connects a second to a server that reset
    them)."""
    policy = RetryPolicy(attempts=3, base_delay=0.1, max_delay=0.1)
    with FaultProxy(redis_server.address) as proxy:
        proxy.set(Toxic("reset_peer"))
        r = await connect(transport, _Proxied(proxy), lazy=True, retry=policy)  # type: ignore[arg-type]
        try:
            started = time.monotonic()
            with pytest.raises(RetriesExhausted):
                await r.blpop(key("queue"), wait=0.1, timeout=10)
            assert time.monotonic() - started >= 3 * 0.05  # three pauses of at least half the delay
            assert proxy.accepted == 4  # the first try and three more
        finally:
            await r.aclose()


async def test_held_commands_are_bounded_by_held_connections(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    r = await connect(transport, redis_server, held_connections=1)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(functools.partial(r.blpop, key("a"), wait=1))
            await anyio.sleep(0.2)
            with pytest.raises(DualioTimeout):  # waits for the one connection, past its timeout
                await r.blpop(key("b"), wait=5, timeout=0.3)
        assert await r.blpop(key("b"), wait=0.1) is None  # the connection is free again
    finally:
        await r.aclose()
    with pytest.raises(ValueError):
        await connect(transport, redis_server, held_connections=0)


# -- subscriptions -------------------------------------------------------------------------

class Subscribed:
    """A subscription of either face, its steps as coroutines."""

    def __init__(self, face: Face, names: tuple[str, ...], patterns: bool) -> None:
        client = face.client
        self.sync = isinstance(client, SyncRedis)
        self.subscription: Any = (client.psubscribe if patterns else client.subscribe)(*names)

    async def enter(self) -> Subscribed:
        if self.sync:
            await anyio.to_thread.run_sync(self.subscription.__enter__)
        else:
            await self.subscription.__aenter__()
        return self

    async def next(self) -> Any:
        if self.sync:
            return await anyio.to_thread.run_sync(next, self.subscription)
        return await self.subscription.__anext__()

    async def close(self) -> None:
        if self.sync:
            await anyio.to_thread.run_sync(self.subscription.close)
        else:
            await self.subscription.aclose()


async def subscribers(r: Face, channel: str) -> int:
    numsub = await r.execute("PUBSUB", "NUMSUB", channel)
    return int(numsub[1])


async def test_a_subscription_gets_messages_while_commands_go_on_and_leaving_unsubscribes(
    r: Face, key: Callable[[str], str]
) -> None:
    plain = key("").translate(str.maketrans("[]*?\\", "()___"))  # no glob characters in the pattern below
    news, sport = plain + "news", plain + "sport"
    messages = await Subscribed(r, (news, sport), False).enter()
    try:
        assert await subscribers(r, news) == 1  # confirmed before enter() returned
        assert await r.publish(news, "one") == 1
        await r.set(key("k"), "v")
        assert await r.get(key("k")) == b"v"  # commands on the subscription's connection
        assert await r.publish(sport, "two") == 1
        assert await messages.next() == (news.encode(), b"one", None)
        assert await messages.next() == (sport.encode(), b"two", None)
        with pytest.raises(UsageError, match="already subscribed"):
            await Subscribed(r, (news,), False).enter()
        patterns = await Subscribed(r, (plain + "n*",), True).enter()
        await r.publish(news, "three")
        assert await patterns.next() == (news.encode(), b"three", (plain + "n*").encode())
        assert await messages.next() == (news.encode(), b"three", None)
        await patterns.close()
    finally:
        await messages.close()
    assert await subscribers(r, news) == 0 and await subscribers(r, sport) == 0
    again = await Subscribed(r, (news,), False).enter()  # the names are free again
    await r.publish(news, "four")
    assert await again.next() == (news.encode(), b"four", None)
    await again.close()
    assert await r.get(key("k")) == b"v" and not r.client.closed


async def test_a_message_that_is_not_text_fails_alone_and_the_subscription_goes_on(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """decode_responses=True, and a message that is not UTF-8: reading it raises a
    ProtocolError, and the next message comes, still subscribed."""
    r = await connect(transport, redis_server, decode_responses=True)
    try:
        channel = key("binary")
        messages = await Subscribed(r, (channel,), False).enter()
        try:
            assert await r.publish(channel, b"\xff\xfe") == 1
            assert await r.publish(channel, "text") == 1
            with pytest.raises(ProtocolError, match="not UTF-8"):
                await messages.next()
            assert await messages.next() == (channel, "text", None)
            assert await subscribers(r, channel) == 1
        finally:
            await messages.close()
    finally:
        await r.aclose()


async def test_a_subscription_refused_by_the_server_fails_alone(
    r: Face, transport: Transport, redis_server: RedisServer, key: Callable[[str], str]
) -> None:
    user = f"limited-{uuid.uuid4().hex}"
    await r.execute("ACL", "SETUSER", user, "on", ">pw", "~*", "&allowed", "+@all")
    limited = await connect(transport, redis_server, username=user, password="pw")
    try:
        await limited.set(key("k"), "v")
        with pytest.raises(RedisError, match="NOPERM"):
            await Subscribed(limited, ("secret",), False).enter()
        assert await limited.get(key("k")) == b"v"  # the next reply in order is this GET's
        allowed = await Subscribed(limited, ("allowed",), False).enter()
        await r.publish("allowed", "yes")
        assert (await allowed.next()).data == b"yes"
        await allowed.close()
    finally:
        await limited.aclose()
        await r.execute("ACL", "DELUSER", user)


async def test_a_subscription_subscribes_again_after_its_connection_is_lost(
    r: Face, redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """The subscription notices the loss when its consumer asks for the next message,
    and subscribes again then: messages published before that are not delivered."""
    channel = key("channel")
    messages = await Subscribed(r, (channel,), False).enter()
    killer = await connect(transport, redis_server)
    try:
        assert await killer.execute("CLIENT", "KILL", "TYPE", "pubsub") >= 1
        got = await received_while_publishing(messages.next, lambda: killer.publish(channel, "after"))
        assert got == (channel.encode(), b"after", None)
    finally:
        await killer.aclose()
        await messages.close()


# -- a client-side cache ------------------------------------------------------------------------


async def _get_calls(r: Face) -> int:
    stats = await r.info("commandstats")
    return int(stats["cmdstat_get"]["calls"]) if "cmdstat_get" in stats else 0


async def test_a_client_side_cache_answers_from_memory_and_never_stale_after_an_invalidation(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    cache = ClientCache()
    r = await connect(transport, redis_server, cache=cache)
    w = await connect(transport, redis_server)
    try:
        k = key("cached")
        await w.set(k, "old")
        assert await r.get(k) == b"old"  # a miss: asked, kept
        calls = await _get_calls(w)
        for _ in range(5):
            assert await r.get(k) == b"old"  # hits: no GET reaches the server
        assert await _get_calls(w) == calls
        assert cache.stats.hits == 5 and len(cache) == 1
        await w.set(k, "new")
        seen = []
        with anyio.fail_after(5):
            while not seen or seen[-1] != b"new":
                seen.append(await r.get(k))
                await anyio.sleep(0.001)
        assert set(seen) <= {b"old", b"new"} and cache.stats.invalidations >= 1
        for _ in range(50):
            assert await r.get(k) == b"new"  # never the old value again
        await w.delete(k)
        with anyio.fail_after(5):
            while await r.get(k) is not None:
                await anyio.sleep(0.001)
        await r.hset(key("h"), mapping={"f": "1"})
        assert await r.hgetall(key("h")) == {b"f": b"1"} and await r.hgetall(key("h")) == {b"f": b"1"}
        await r.hset(key("h"), "f", "2")  # its own write invalidates too
        with anyio.fail_after(5):
            while await r.hgetall(key("h")) != {b"f": b"2"}:
                await anyio.sleep(0.001)
    finally:
        await r.aclose()
        await w.aclose()


async def test_a_client_side_cache_is_flushed_when_the_server_restarts(
    transport: Transport, key: Callable[[str], str]
) -> None:
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    server = start_redis()
    cache = ClientCache()
    r = await connect(transport, server, cache=cache, timeout=15.0, connect_timeout=1.0)
    try:
        k = key("k")
        await r.set(k, "before")
        assert await r.get(k) == b"before" and await r.get(k) == b"before"
        assert cache.stats.hits == 1
        port = server.port
        server.process.kill()
        server.process.wait()
        server.stop()
        server = start_redis(port=port)  # empty: "before" is gone
        assert await r.get(k) is None  # the lost connection's entries are not served
        assert await r.get(k) is None
    finally:
        await r.aclose()
        server.stop()


def test_a_client_side_cache_is_off_on_a_resp2_server(redis_resp2_server: RedisServer) -> None:
    cache = ClientCache()
    with SyncRedis(*redis_resp2_server.address, cache=cache) as r:
        r.set("resp2-cache", "v")
        assert r.get("resp2-cache") == b"v" and r.get("resp2-cache") == b"v"
        assert cache.stats.hits == 0 and not cache.active  # no pushes on RESP2: never served from memory


def test_a_client_side_cache_is_one_client_s() -> None:
    cache = ClientCache()
    SyncRedis(lazy=True, cache=cache)
    with pytest.raises(ValueError, match="belongs to another client"):
        SyncRedis(lazy=True, cache=cache)


# -- a server restart ---------------------------------------------------------------------------


async def test_reads_ride_out_a_server_restart_and_a_write_in_flight_says_its_outcome_is_unknown(
    transport: Transport, key: Callable[[str], str]
) -> None:
    """The server is killed while a script that writes runs, and comes back on the same
    port 2 s later: GETs made all along (read-only, safe to send twice) each return, with
    the default retry policy, within their timeout; the script, whose effect is unknown,
    raises OutcomeUnknown, and is not sent again."""
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    server = start_redis()
    port = server.port
    r = await connect(transport, server, timeout=15.0, connect_timeout=1.0)
    errors: list[BaseException] = []
    reads = 0
    try:
        await r.set(key("k"), "before")

        async def read_all_along(stop: anyio.Event) -> None:
            nonlocal reads
            while not stop.is_set():
                try:
                    await r.get(key("k"))
                    reads += 1
                except Exception as exc:
                    errors.append(exc)
                await anyio.sleep(0.02)

        busy = ("local t = redis.call('TIME') redis.call('SET', KEYS[1], 'ran') "
                "while redis.call('TIME')[1] - t[1] < 3 do end return 1")
        stop = anyio.Event()
        write: list[BaseException] = []

        async def write_in_flight() -> None:
            try:
                await r.eval(busy, [key("w")])
            except Exception as exc:
                write.append(exc)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(write_in_flight)
            await anyio.sleep(0.5)  # the script runs on the server
            tasks.start_soon(read_all_along, stop)
            server.process.kill()
            server.process.wait()
            await anyio.sleep(2.0)
            server.stop()
            server = start_redis(port=port)
            await anyio.sleep(1.0)
            stop.set()
        assert len(write) == 1 and isinstance(write[0], OutcomeUnknown), write
        assert "whether it ran is unknown" in str(write[0])
        assert errors == [] and reads > 0
        assert await r.get(key("k")) is None  # a new server, empty: the client is on it
    finally:
        await r.aclose()
        server.stop()


# -- telemetry ------------------------------------------------------------------------------

async def test_telemetry_follows_the_database_conventions_and_never_names_a_key_or_value(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind, StatusCode

    from dualio import instrument

    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    r = await connect(transport, redis_server, db=3)
    secret_key, secret_value = key("secret-key"), "secret-value"
    try:
        meter_provider = MeterProvider(metric_readers=[reader])
        instrument(r.client, tracer_provider=tracer_provider, meter_provider=meter_provider)
        await r.set(secret_key, secret_value)
        assert await r.get(secret_key) == secret_value.encode()
        with pytest.raises(RedisError):
            await r.lpush(secret_key, "x")
        assert await r.blpop(key("empty"), wait=0.05) is None
        await r.pipeline(("GET", secret_key), ("GET", secret_key))
    finally:
        await r.aclose()
    finished = spans.get_finished_spans()
    assert [span.name for span in finished] == ["SET", "GET", "LPUSH", "BLPOP", "pipeline"]
    host, port = redis_server.address
    for span in finished:
        assert span.kind is SpanKind.CLIENT
        attributes = dict(span.attributes or {})
        assert {k: attributes[k] for k in ("db.system.name", "db.operation.name", "db.namespace",
                                           "server.address", "server.port")} == {
            "db.system.name": "redis", "db.operation.name": span.name, "db.namespace": "3",
            "server.address": host, "server.port": port,
        }
        assert not any(secret in str(value) for value in attributes.values()
                       for secret in (secret_key, secret_value)), attributes
    failed = finished[2]
    assert failed.status.status_code is StatusCode.ERROR
    assert failed.attributes["error.type"] == "WrongTypeError"
    data = reader.get_metrics_data()
    assert data is not None
    metrics = [m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics]
    assert [(m.name, m.unit) for m in metrics] == [("db.client.operation.duration", "s")]
    points = list(metrics[0].data.data_points)
    assert sum(point.count for point in points) == 5  # type: ignore[attr-defined]
    assert all(0 <= point.max < 5 for point in points)  # type: ignore[attr-defined]  # seconds, not ms


# -- closing ------------------------------------------------------------------------------

async def test_closing_ends_every_call_in_flight_and_every_connection(
    redis_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """A client closed while two held commands and a subscription wait: each ends with
    a DualioError soon, and the server sees none of the client's connections left."""
    r = await connect(transport, redis_server, client_name="closing")
    watcher = await connect(transport, redis_server)
    outcomes: list[BaseException | None] = []

    async def run(step: Callable[[], Any]) -> None:
        try:
            await step()
        except Exception as exc:
            outcomes.append(exc)
        else:
            outcomes.append(None)

    async def subscribed() -> None:
        messages = await Subscribed(r, (key("ch"),), False).enter()
        try:
            await messages.next()
        finally:
            with anyio.CancelScope(shield=True):
                await messages.close()

    def names() -> Any:
        return watcher.execute("CLIENT", "LIST")

    try:
        with anyio.fail_after(15):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(run, lambda: r.blpop(key("empty"), wait=0, timeout=None))
                tasks.start_soon(run, subscribed)
                tasks.start_soon(run, lambda: r.execute("BLPOP", key("empty2"), 0, timeout=None))
                while (await names()).count(b"name=closing") < 3:
                    await anyio.sleep(0.02)
                await anyio.sleep(0.1)
                await r.aclose()
        assert len(outcomes) == 3
        assert all(isinstance(outcome, DualioError) for outcome in outcomes), outcomes
        with anyio.fail_after(5):
            while b"name=closing" in await names():
                await anyio.sleep(0.02)
        with pytest.raises(DualioError):
            await r.get(key("k"))
    finally:
        await r.aclose()
        await watcher.aclose()


# -- fork ---------------------------------------------------------------------------------

@pytest.mark.filterwarnings(
    r"ignore:This process \(pid=\d+\) is multi-threaded, use of fork\(\) may lead to deadlocks"
    ":DeprecationWarning"
)
@pytest.mark.parametrize("sync_transport", ["blocking", "portal"])
def test_a_forked_child_opens_its_own_connections_held_ones_included(
    redis_server: RedisServer, sync_transport: str, key: Callable[[str], str]
) -> None:
    """The child's first calls, a held one included, go out on connections of its own; the
    parent's connections (the shared one and the held one) answer as before."""
    with SyncRedis(*redis_server.address, transport=sync_transport, timeout=5) as r:  # type: ignore[arg-type]
        r.set(key("k"), "parent")
        assert r.blpop(key("q"), wait=0.05) is None  # a held connection, kept for the next one
        parent_id = r.execute("CLIENT", "ID")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report through the pipe, then leave at once
            try:
                r.rpush(key("q"), "from the child")
                popped = r.blpop(key("q"), wait=1)
                child_id = r.execute("CLIENT", "ID")
                ok = popped is not None and r.get(key("k")) == b"parent" and child_id != parent_id
                os.write(write, b"ok" if ok else f"{popped!r} {child_id} {parent_id}".encode())
            except BaseException as exc:
                os.write(write, repr(exc).encode())
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            report = pipe.read()
        os.waitpid(pid, 0)
        assert report == b"ok"
        assert r.execute("CLIENT", "ID") == parent_id
        assert r.blpop(key("q"), wait=0.05) is None


# -- TLS ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def redis_tls_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RedisServer, ssl.SSLContext]]:
    """A redis-server speaking TLS only, and a context that trusts its certificate."""
    trustme = pytest.importorskip("trustme")
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    folder = tmp_path_factory.mktemp("redis-tls")
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1", "localhost")
    chain, private = folder / "chain.pem", folder / "key.pem"
    for blob in issued.cert_chain_pems:
        with chain.open("ab") as file:
            file.write(blob.bytes())
    issued.private_key_pem.write_to_path(str(private))
    context = ssl.create_default_context()
    authority.configure_trust(context)
    try:
        server = start_redis(tls=(str(chain), str(private)))
    except RuntimeError as exc:
        pytest.skip(f"this redis-server does not speak TLS: {exc}")
    try:
        yield server, context
    finally:
        server.stop()


async def test_tls(
    redis_tls_server: tuple[RedisServer, ssl.SSLContext], transport: Transport, key: Callable[[str], str]
) -> None:
    server, context = redis_tls_server
    r = await connect(transport, server, tls=context)
    try:
        await r.set(key("k"), "over TLS")
        assert await r.get(key("k")) == b"over TLS"
        assert await r.blpop(key("q"), wait=0.05) is None  # a held command's connection is TLS too
    finally:
        await r.aclose()
    with pytest.raises(ConnectError, match=r"(?i)certificate"):
        await connect(transport, server, tls=ssl.create_default_context(), connect_timeout=5)


async def test_a_subscription_collected_unclosed_frees_its_names(
    redis_server: RedisServer, key: Callable[[str], str]
) -> None:
    """Iterated without ``async with`` and dropped: once collected (its generator closed by
    the loop), its channel may be subscribed again and the server unsubscribed it."""
    import gc

    channel = key("dropped")
    async with AsyncRedis(*redis_server.address, timeout=5) as r:
        subscription = r.subscribe(channel)
        await r.publish(channel, "x")  # nobody hears it yet: not subscribed before the first next
        with anyio.move_on_after(0.2):
            await subscription.__anext__()
        del subscription
        for _ in range(50):
            gc.collect()
            await anyio.sleep(0.02)
            if not r._live_names:
                break
        assert not r._live_names
        async with r.subscribe(channel) as again:
            await r.publish(channel, "y")
            assert (await again.__anext__()).data == b"y"


# -- RESP2 --------------------------------------------------------------------------------

async def test_a_server_that_does_not_know_hello_is_spoken_to_in_resp2(
    redis_resp2_server: RedisServer, transport: Transport, key: Callable[[str], str]
) -> None:
    """As Redis before 6: the commands work and their results have the same types as on
    RESP3 (a dict, a set, (member, score) pairs); a subscription is refused."""
    r = await connect(transport, redis_resp2_server, client_name="old", db=1)
    try:
        assert await r.execute("CLIENT", "GETNAME") == b"old"
        await r.set(key("s"), "v")
        assert await r.get(key("s")) == b"v" and await r.get(key("none")) is None
        await r.hset(key("h"), mapping={"f": 1, "g": "x"})
        assert await r.hgetall(key("h")) == {b"f": b"1", b"g": b"x"}
        assert await r.hgetall(key("none")) == {}
        await r.sadd(key("set"), "a", "b")
        assert await r.smembers(key("set")) == {b"a", b"b"}
        await r.zadd(key("z"), {"m": 1.5, "n": 2})
        assert await r.zrange(key("z"), 0, -1, withscores=True) == [(b"m", 1.5), (b"n", 2.0)]
        assert await r.pipeline(("INCR", key("n")), ("INCR", key("n"))) == [1, 2]
        assert await r.transaction(("INCR", key("n")), ("GET", key("n"))) == [3, b"3"]
        assert await r.blpop(key("q"), wait=0.05) is None
        with pytest.raises(UsageError, match="RESP3"):
            await Subscribed(r, (key("c"),), False).enter()
        assert await r.get(key("s")) == b"v"
    finally:
        await r.aclose()

