"""A real Redis Cluster for the cluster faces' tests (dualio/lab/common/redis_sets.py: six
redis-server processes in cluster mode, three primaries each with a replica, a node
timeout of 1 s), shared by the session (each xdist worker has its own). Skipped, with
the reason, where redis-server or redis-cli is not installed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dualio.lab.common.redis_server import RedisServerError
from dualio.lab.common.redis_sets import Cluster, started_cluster

__all__ = ["Cluster", "redis_cluster", "start"]


def start() -> Iterator[Cluster]:
    try:
        with started_cluster() as cluster:
            yield cluster
    except RedisServerError as exc:
        if "not installed" not in str(exc):
            raise
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[Cluster]:
    yield from start()
