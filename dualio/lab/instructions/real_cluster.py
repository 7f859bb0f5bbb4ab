"""Instructions per GET through ``RedisCluster`` beside ``Redis``, against one redis-server in
cluster mode that serves every slot, counted by callgrind with ``dualio.testing.figures_main``.

    python -m dualio.lab.instructions.real_cluster [--calls 400] [--figures NAMES]

The same server answers both clients the same GET of a 16-byte value, so the difference is
the cluster client's own work per command: finding the key in the command's arguments,
its slot, and the node's client. Figures: ``cluster-sync`` / ``redis-sync`` (the blocking
faces), ``cluster-native`` / ``redis-native`` (asyncio), and ``raw``, a blocking socket.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from dualio.lab.common.redis_server import start_cluster_node
from dualio.lab.instructions.call_loops import Clock, _check, _per_call
from dualio.lab.instructions.fake_peers import KEY, PAYLOAD
from dualio.lab.instructions.real_redis import _blocking_gets, raw_get
from dualio.redis import Redis as AsyncRedis
from dualio.redis import RedisCluster as AsyncRedisCluster
from dualio.testing import Figure, figures_main
from dualio_sync.redis import Redis, RedisCluster

MODULE = "dualio.lab.instructions.real_cluster"
ADDRESS = "DUALIO_LAB_REDIS"  # what real_redis's raw loop reads
FIGURES = [
    Figure("cluster-sync", "dualio_sync.redis.RedisCluster.get, blocking", "raw", "cluster_sync_get",
           module=MODULE),
    Figure("redis-sync", "dualio_sync.redis.Redis.get, blocking, the same server", "raw",
           "redis_sync_get", module=MODULE),
    Figure("cluster-native", "dualio.redis.RedisCluster.get, asyncio native", "raw",
           "cluster_native_get", module=MODULE),
    Figure("redis-native", "dualio.redis.Redis.get, asyncio native, the same server", "raw",
           "redis_native_get", module=MODULE),
    Figure("raw", "a blocking socket: send GET, recv, read the bulk string", None, "raw_get", module=MODULE),
]
__all__ = ["raw_get"]  # a loop of this module's figures


def _address() -> tuple[str, int]:
    host, _, port = os.environ[ADDRESS].rpartition(":")
    return host, int(port)


def cluster_sync_get(calls: int, clock: Clock) -> float:
    with RedisCluster(*_address()) as client:
        return _blocking_gets(client.get, calls, clock)


def redis_sync_get(calls: int, clock: Clock) -> float:
    with Redis(*_address()) as client:
        return _blocking_gets(client.get, calls, clock)


async def cluster_native_get(calls: int, clock: Clock) -> float:
    async with AsyncRedisCluster(*_address()) as client:
        get = client.get
        _check(await get(KEY))
        return await _per_call(lambda: get(KEY), calls, 1, clock)


async def redis_native_get(calls: int, clock: Clock) -> float:
    async with AsyncRedis(*_address()) as client:
        get = client.get
        _check(await get(KEY))
        return await _per_call(lambda: get(KEY), calls, 1, clock)


@contextmanager
def one_node_cluster() -> Iterator[dict[str, str]]:
    """A redis-server in cluster mode serving all 16,384 slots, its key set; stopped at the end."""
    server = start_cluster_node()
    try:
        with Redis(*server.address) as node:
            node.execute("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
            for _ in range(200):
                if "cluster_state:ok" in node.execute("CLUSTER", "INFO").decode():
                    break
                time.sleep(0.05)
            node.set(KEY, PAYLOAD)
        yield {ADDRESS: f"{server.host}:{server.port}"}
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    return figures_main(MODULE, FIGURES, one_node_cluster, argv)


if __name__ == "__main__":
    raise SystemExit(main())
