"""A real Redis Cluster for the cluster faces' tests (dualio/lab/common/redis_sets.py: six
redis-server processes in cluster mode, three primaries each with a replica, a node
timeout of 1 s), shared by the session (each xdist worker has its own). Skipped, with
the reason, where redis-server or redis-cli is not installed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dualio.lab.common.redis_sets import Cluster, started_cluster
from tests.redis_server import started_or_skipped

__all__ = ["Cluster", "redis_cluster", "start"]


def start() -> Iterator[Cluster]:
    yield from started_or_skipped(started_cluster)


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[Cluster]:
    yield from start()
