"""A real Redis Sentinel set-up for the Sentinel tests (dualio/lab/common/redis_sets.py: a
primary, its replica and three sentinels, quorum 2, a primary judged down after 1 s of
silence). Each test that kills a primary starts a set of its own; skipped, with the
reason, where redis-server is not installed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dualio.lab.common.redis_sets import SERVICE, SentinelSet, started_sentinel_set
from tests.redis_server import started_or_skipped

__all__ = ["SERVICE", "SentinelSet", "own_sentinel_set", "sentinel_set"]


def start() -> Iterator[SentinelSet]:
    yield from started_or_skipped(started_sentinel_set)


@pytest.fixture(scope="module")
def sentinel_set() -> Iterator[SentinelSet]:
    """One set for a module's tests that leave it as they found it."""
    yield from start()


@pytest.fixture
def own_sentinel_set() -> Iterator[SentinelSet]:
    """A set of the test's own: it may kill the primary."""
    yield from start()
