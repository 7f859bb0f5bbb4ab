"""Redis set-ups of several servers on 127.0.0.1, for the lab and the test suite: a Redis
Cluster (six redis-server processes in cluster mode, three primaries each with a replica,
joined by ``redis-cli --cluster create``) and a Sentinel set (a primary, its replica and
three sentinels). Each is started on free ports, waited for until usable, and stopped by
its processes' PIDs."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from dualio.lab.common.redis_server import (
    NOT_INSTALLED,
    RedisServer,
    RedisServerError,
    start_cluster_node,
    start_redis,
    start_sentinel,
)
from dualio_sync.redis import Redis

NODES = 6
SERVICE = "mymaster"
READY_WITHIN = 30.0
NOT_INSTALLED_CLUSTER = "redis-server or redis-cli is not installed (Debian: apt-get install redis-server)"


@dataclass
class Cluster:
    servers: list[RedisServer]

    @property
    def seed(self) -> tuple[str, int]:
        return self.servers[0].address

    def node_id(self, server: RedisServer) -> str:
        with Redis(*server.address, timeout=5, decode_responses=True) as r:
            return str(r.execute("CLUSTER", "MYID"))

    def primaries(self) -> list[RedisServer]:
        found = []
        for server in self.servers:
            if server.process.poll() is not None:
                continue
            with Redis(*server.address, timeout=5, decode_responses=True) as r:
                if "role:master" in r.execute("INFO", "replication"):
                    found.append(server)
        return found

    def owner(self, slot: int) -> RedisServer:
        """The primary that serves ``slot``, as the cluster says."""
        with Redis(*self.seed, timeout=5) as r:
            for start, end, primary, *_ in r.execute("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    port = int(primary[1])
                    return next(s for s in self.servers if s.port == port)
        raise LookupError(slot)

    def wait_ok(self) -> None:
        """Until every node says the cluster is ok and every replica has its primary's data
        (a replica that never synced is not promoted)."""
        until = time.monotonic() + READY_WITHIN
        while time.monotonic() < until:
            states = []
            for server in self.servers:
                if server.process.poll() is not None:
                    continue
                try:
                    with Redis(*server.address, timeout=2, decode_responses=True) as r:
                        replication = r.execute("INFO", "replication")
                        synced = "role:master" in replication or "master_link_status:up" in replication
                        states.append("cluster_state:ok" in r.execute("CLUSTER", "INFO") and synced)
                except Exception:  # a node still starting: asked again
                    states.append(False)
            if states and all(states):
                return
            time.sleep(0.1)
        raise RuntimeError("the cluster did not reach cluster_state:ok")


@contextmanager
def started_cluster(node_timeout_ms: int = 1000) -> Iterator[Cluster]:
    """A six-node cluster, ready (every node says ok, every replica synced), stopped after."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        raise RedisServerError(NOT_INSTALLED_CLUSTER)
    servers: list[RedisServer] = []
    try:
        for _ in range(NODES):
            servers.append(start_cluster_node(["--cluster-node-timeout", str(node_timeout_ms)]))
        subprocess.run(
            ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{s.port}" for s in servers),
             "--cluster-replicas", "1", "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )
        cluster = Cluster(servers)
        cluster.wait_ok()
        yield cluster
    finally:
        for server in servers:
            server.stop()


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

@contextmanager
def started_sentinel_set() -> Iterator[SentinelSet]:
    """A primary, its replica and three sentinels that know each other, stopped after."""
    if shutil.which("redis-server") is None:
        raise RedisServerError(NOT_INSTALLED)
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
