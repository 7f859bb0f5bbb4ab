"""The client-side cache's bookkeeping (transports/redis_protocol/tracking.py), without a
server: what it keeps, what an invalidation drops, its bounds, and the generation check
that keeps a reply read across an invalidation out of it."""

from __future__ import annotations

import pytest

from dualio_transports.redis_protocol.tracking import ClientCache


def opened(**bounds: int) -> ClientCache:
    cache = ClientCache(**bounds)
    cache.flush(active=True)
    return cache


def test_a_reply_is_kept_and_an_invalidation_of_its_key_drops_it() -> None:
    cache = opened()
    cache.put(b"GET a", b"a", b"$1\r\n1\r\n", cache.generation)
    cache.put(b"HGETALL a", b"a", b"%0\r\n", cache.generation)
    cache.put(b"GET b", b"b", b"$1\r\n2\r\n", cache.generation)
    assert cache.get(b"GET a") == b"$1\r\n1\r\n" and len(cache) == 3
    cache.invalidated([b"a"])
    assert cache.get(b"GET a") is None and cache.get(b"HGETALL a") is None
    assert cache.get(b"GET b") == b"$1\r\n2\r\n"
    cache.invalidated(None)  # FLUSHALL
    assert len(cache) == 0 and cache.size == 0
    assert cache.stats.hits == 2 and cache.stats.invalidations == 2


def test_a_reply_read_across_an_invalidation_or_a_flush_is_not_kept() -> None:
    cache = opened()
    before = cache.generation
    cache.invalidated([b"other"])  # any key: the reply may be older than a write to its own
    cache.put(b"GET a", b"a", b"$1\r\n1\r\n", before)
    assert len(cache) == 0
    before = cache.generation
    cache.flush(active=True)  # a new connection
    cache.put(b"GET a", b"a", b"$1\r\n1\r\n", before)
    assert len(cache) == 0


def test_an_inactive_cache_keeps_and_serves_nothing() -> None:
    cache = ClientCache()  # no connection has said CLIENT TRACKING ON yet
    cache.put(b"GET a", b"a", b"x", cache.generation)
    assert len(cache) == 0 and cache.get(b"GET a") is None


def test_the_bounds_hold_the_least_recently_used_going_first() -> None:
    cache = opened(max_entries=3)
    for name in (b"a", b"b", b"c"):
        cache.put(b"GET " + name, name, b"v", cache.generation)
    assert cache.get(b"GET a") == b"v"  # a is now the most recently used
    cache.put(b"GET d", b"d", b"v", cache.generation)
    assert cache.get(b"GET b") is None and cache.get(b"GET a") == b"v" and len(cache) == 3
    small = opened(max_bytes=100)
    for index in range(10):
        small.put(b"GET %d" % index, b"%d" % index, b"x" * 30, small.generation)
    assert small.size <= 100 and small.stats.evictions >= 7
    small.put(b"GET big", b"big", b"x" * 200, small.generation)  # over the bound alone: not kept
    assert small.get(b"GET big") is None


def test_a_flood_of_invalidations_for_keys_never_read_keeps_nothing() -> None:
    cache = opened(max_entries=10)
    cache.put(b"GET a", b"a", b"v", cache.generation)
    for start in range(0, 100_000, 1000):
        cache.invalidated([b"never-read-%d" % index for index in range(start, start + 1000)])
    assert len(cache._by_key) == 1 and cache.stats.invalidations == 100_000
    assert cache.get(b"GET a") == b"v"  # not its key
    cache.invalidated(b"not a list")  # a push it does not know: counted, nothing else
    assert cache.stats.unknown_pushes == 1 and len(cache) == 1


@pytest.mark.parametrize("bounds", [{"max_entries": 0}, {"max_bytes": -1}, {"max_entries": True}])
def test_bad_bounds_are_refused(bounds: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        ClientCache(**bounds)
