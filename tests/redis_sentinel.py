"""A real Redis Sentinel set-up for the Sentinel tests: a primary, its replica and three
sentinels (quorum 2, a primary judged down after 1 s of silence) on free ports. Each
test that kills a primary starts a set of its own; skipped, with the reason, where
redis-server is not installed."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from dualio.lab.common.redis_server import RedisServer, start_redis, start_sentinel
from dualio_sync.redis import Redis

SERVICE = "mymaster"
READY_WITHIN = 30.0


@dataclass
class SentinelSet:
    primary: RedisServer
    replica: RedisServer
    sentinels: list[RedisServer]

    @property
    def addresses(self) -> list[tuple[str, int]]:
        return [s.address for s in self.sentinels]

    def named_primary(self) -> tuple[str, int] | None:
        """The primary the first sentinel that answers names."""
        for sentinel in self.sentinels:
            if not sentinel.alive:
                continue
            with Redis(*sentinel.address, timeout=2, decode_responses=True) as r:
                named = r.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
                if named:
                    return named[0], int(named[1])
        return None

    def wait_ready(self) -> None:
        """Until every sentinel knows the other two and the replica, and the replica has
        synced (a replica that never synced is not promoted)."""
        until = time.monotonic() + READY_WITHIN
        while time.monotonic() < until:
            try:
                ready = []
                for sentinel in self.sentinels:
                    with Redis(*sentinel.address, timeout=2, decode_responses=True) as r:
                        master = r.execute("SENTINEL", "MASTER", SERVICE)
                        if isinstance(master, list):  # RESP2's flat list
                            master = dict(zip(master[::2], master[1::2], strict=True))
                        facts = master
                        ready.append(int(facts["num-other-sentinels"]) == len(self.sentinels) - 1
                                     and int(facts["num-slaves"]) == 1)
                with Redis(*self.replica.address, timeout=2, decode_responses=True) as r:
                    ready.append("master_link_status:up" in r.execute("INFO", "replication"))
                if all(ready):
                    return
            except Exception:  # a process still starting: asked again
                pass
            time.sleep(0.2)
        raise RuntimeError("the sentinels did not come to know each other and the replica")

    def stop(self) -> None:
        for server in [*self.sentinels, self.replica, self.primary]:
            server.stop()


def start_set() -> Iterator[SentinelSet]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    started: list[RedisServer] = []
    try:
        primary = start_redis()
        started.append(primary)
        replica = start_redis(options=["--replicaof", "127.0.0.1", str(primary.port)])
        started.append(replica)
        sentinels = []
        for _ in range(3):
            sentinels.append(start_sentinel(primary.address, SERVICE))
            started.append(sentinels[-1])
        watched = SentinelSet(primary, replica, sentinels)
        watched.wait_ready()
        yield watched
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="module")
def sentinel_set() -> Iterator[SentinelSet]:
    """One set for a module's tests that leave it as they found it."""
    yield from start_set()


@pytest.fixture
def own_sentinel_set() -> Iterator[SentinelSet]:
    """A set of the test's own: it may kill the primary."""
    yield from start_set()
