"""A real Redis Cluster for the cluster faces' tests: six redis-server processes in
cluster mode (three primaries, each with a replica; a node timeout of 1 s) on free ports,
joined by ``redis-cli --cluster create``, shared by the session (each xdist worker has its
own). Skipped, with the reason, where redis-server or redis-cli is not installed."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from dualio.lab.common.redis_server import RedisServer, start_cluster_node
from dualio_sync.redis import Redis

NODES = 6
READY_WITHIN = 30.0


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


def _start() -> Iterator[Cluster]:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.skip("redis-server or redis-cli is not installed")
    servers: list[RedisServer] = []
    try:
        for _ in range(NODES):
            servers.append(start_cluster_node(["--cluster-node-timeout", "1000"]))
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


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[Cluster]:
    yield from _start()
