"""Redis through Sentinel (tests/redis_sentinel.py: a primary, a replica, three sentinels):
the client finds the primary the sentinels name, follows a failover with no error for
commands safe to repeat and no wrong value, on the blocking face and the async face's
transports; sentinels that cannot be reached and a service nobody knows are named in a
typed error within the call's time."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import pytest

from dualio import ClosedError, ConnectError, DualioError
from dualio.redis import Redis as AsyncRedis
from dualio_sync.redis import Redis
from tests.redis_sentinel import SERVICE, SentinelSet, own_sentinel_set, sentinel_set
from tests.redis_server import ASYNC_TRANSPORTS

__all__ = ["own_sentinel_set", "sentinel_set"]  # fixtures, used by name

pytestmark = pytest.mark.timeout(120)
ASYNC = ASYNC_TRANSPORTS
WORKERS = 20
FAILOVER_WITHIN = 30.0  # the sentinels promote the replica in 2-4 s here


def test_the_client_connects_to_the_primary_the_sentinels_name(sentinel_set: SentinelSet) -> None:
    with Redis(sentinels=sentinel_set.addresses, service_name=SERVICE, timeout=5) as r:
        assert r.set("greeting", "hello")
        assert r.get("greeting") == b"hello"
        assert (r.host, r.port) == sentinel_set.primary.address
    with Redis(*sentinel_set.primary.address, timeout=5) as direct:
        assert direct.get("greeting") == b"hello"  # written on the primary itself


def test_a_sentinel_that_cannot_be_reached_is_passed_over(sentinel_set: SentinelSet) -> None:
    dead = ("127.0.0.1", 1)
    with Redis(sentinels=[dead, *sentinel_set.addresses], service_name=SERVICE, timeout=5) as r:
        assert r.ping() > 0


def test_unreachable_sentinels_are_named_in_a_connect_error_within_the_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(ConnectError, match=r"sentinel 127\.0\.0\.1:1: .*sentinel 127\.0\.0\.1:2: ") as caught:
        Redis(sentinels=[("127.0.0.1", 1), ("127.0.0.1", 2)], service_name=SERVICE, timeout=1.0,
              connect_timeout=1.0, sentinel_timeout=0.5, lazy=True).ping()
    assert time.monotonic() - started < 5.0
    assert "no sentinel named the primary" in str(caught.value)


def test_a_service_no_sentinel_knows_closes_the_client_for_good(sentinel_set: SentinelSet) -> None:
    r = Redis(sentinels=sentinel_set.addresses, service_name="nobody-knows", timeout=5, lazy=True)
    with pytest.raises(ConnectError, match="no service named 'nobody-knows'") as caught:
        r.ping()
    assert not caught.value.retryable
    with pytest.raises(ClosedError):
        r.ping()
    r.close()


@pytest.mark.parametrize(("arguments", "error"), [
    ({"sentinels": [], "service_name": SERVICE}, ValueError),
    ({"sentinels": "127.0.0.1:26379", "service_name": SERVICE}, ValueError),
    ({"sentinels": [("127.0.0.1",)], "service_name": SERVICE}, ValueError),
    ({"sentinels": [("", 26379)], "service_name": SERVICE}, TypeError),
    ({"sentinels": [("127.0.0.1", 0)], "service_name": SERVICE}, ValueError),
    ({"sentinels": [("127.0.0.1", "26379")], "service_name": SERVICE}, ValueError),
    ({"sentinels": [("127.0.0.1", 26379)]}, ValueError),
    ({"sentinels": [("127.0.0.1", 26379)], "service_name": ""}, ValueError),
    ({"service_name": SERVICE}, ValueError),
    ({"sentinels": [("127.0.0.1", 26379)], "service_name": SERVICE, "sentinel_timeout": -1}, ValueError),
    ({"sentinels": [("127.0.0.1", 26379)], "service_name": SERVICE, "unix_socket_path": "/tmp/r"},
     ValueError),
])
def test_bad_sentinel_settings_are_refused_at_once(arguments: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        Redis(lazy=True, **arguments)
    with pytest.raises(error):
        AsyncRedis(lazy=True, **arguments)


class Tally:
    """What concurrent writers and readers saw across a failover."""

    def __init__(self) -> None:
        self.calls = 0
        self.errors: list[str] = []
        self.wrong: list[str] = []
        self.last_error_at = 0.0

    def error(self, exc: BaseException) -> None:
        self.errors.append(f"{type(exc).__name__}: {exc}")
        self.last_error_at = time.monotonic()


def _failover(watched: SentinelSet) -> tuple[str, int]:
    """Kill the primary (SIGKILL) and wait for the sentinels to name another."""
    old = watched.primary.address
    watched.primary.process.kill()
    watched.primary.process.wait()
    until = time.monotonic() + FAILOVER_WITHIN
    while time.monotonic() < until:
        named = watched.named_primary()
        if named is not None and named != old:
            return named
        time.sleep(0.05)
    raise RuntimeError("the sentinels promoted no replica")


def test_the_blocking_face_rides_out_a_failover(own_sentinel_set: SentinelSet) -> None:
    tally = Tally()
    stop = threading.Event()
    with Redis(sentinels=own_sentinel_set.addresses, service_name=SERVICE, timeout=15) as r:
        def work(worker: int) -> None:
            n = 0
            while not stop.is_set():
                n += 1
                key, value = f"w{worker}", f"{worker}:{n}"
                try:
                    r.set(key, value)
                    got = r.get(key)
                    tally.calls += 2
                    if got != value.encode():
                        tally.wrong.append(f"{key}: {got!r} != {value!r}")
                except DualioError as exc:
                    tally.error(exc)

        threads = [threading.Thread(target=work, args=(w,)) for w in range(WORKERS)]
        for thread in threads:
            thread.start()
        try:
            time.sleep(0.5)
            promoted = _failover(own_sentinel_set)
            time.sleep(1.0)
        finally:
            stop.set()
            for thread in threads:
                thread.join(30)
        assert (r.host, r.port) == promoted
        assert r.get("w0") is not None
    assert tally.wrong == []
    assert tally.errors == []
    assert tally.calls > WORKERS * 4


@pytest.mark.anyio
@pytest.mark.parametrize(("anyio_backend", "transport"), ASYNC)
async def test_the_async_face_rides_out_a_failover(own_sentinel_set: SentinelSet, transport: str) -> None:
    tally = Tally()
    done = anyio.Event()
    async with AsyncRedis(sentinels=own_sentinel_set.addresses, service_name=SERVICE, timeout=15,
                          transport=transport) as r:
        async def work(worker: int) -> None:
            n = 0
            while not done.is_set():
                n += 1
                key, value = f"w{worker}", f"{worker}:{n}"
                try:
                    await r.set(key, value)
                    got = await r.get(key)
                    tally.calls += 2
                    if got != value.encode():
                        tally.wrong.append(f"{key}: {got!r} != {value!r}")
                except DualioError as exc:
                    tally.error(exc)

        async with anyio.create_task_group() as tasks:
            for w in range(WORKERS):
                tasks.start_soon(work, w)
            await anyio.sleep(0.5)
            promoted = await anyio.to_thread.run_sync(_failover, own_sentinel_set)
            await anyio.sleep(1.0)
            done.set()
        assert (r.host, r.port) == promoted
    assert tally.wrong == []
    assert tally.errors == []
    assert tally.calls > WORKERS * 4


def test_no_sentinel_timeout_and_no_call_timeout(sentinel_set: SentinelSet) -> None:
    with Redis(sentinels=sentinel_set.addresses, service_name=SERVICE, timeout=None,
               sentinel_timeout=None) as r:
        assert r.ping() > 0
