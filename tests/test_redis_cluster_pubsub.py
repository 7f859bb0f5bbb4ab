"""Subscriptions on a real Redis Cluster (tests/redis_cluster.py): shard channels on their
slot's node, following the slot when it moves and when its primary is killed; plain
channels and patterns on one primary, hearing what any node publishes; bad input refused
before anything is sent. The blocking face and the async face's transports."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from dualio import DualioError, UsageError
from dualio.redis import Message
from dualio.redis import RedisCluster as AsyncRedisCluster  # the async face's
from dualio_sync.redis import Redis, RedisCluster
from dualio_transports.redis_protocol.slots import key_slot
from tests.redis_cluster import Cluster, redis_cluster, start
from tests.redis_server import ASYNC_TRANSPORTS, received_while_publishing
from tests.test_redis_cluster import _move

__all__ = ["redis_cluster"]  # a fixture, used by name

pytestmark = pytest.mark.timeout(120)


def _channel(cluster: Cluster, prefix: str = "ch") -> tuple[str, int]:
    """A shard channel whose slot holds no key (so the slot can be moved)."""
    rng = random.Random()
    while True:
        name = f"{prefix}:{rng.randrange(10**9)}"
        slot = key_slot(name.encode())
        with Redis(*cluster.owner(slot).address, timeout=5) as node:
            if int(node.execute("CLUSTER", "COUNTKEYSINSLOT", slot)) == 0:
                return name, slot


def _published_until_heard(
    rc: RedisCluster[bytes], channel: str, heard: threading.Event, failures: list[DualioError],
) -> None:
    """SPUBLISH ``channel`` every 20 ms until ``heard`` (for 20 s at most); a publish whose
    node failed under it (a write, not sent again: OutcomeUnknown) is kept and publishing goes on."""
    until = time.monotonic() + 20
    while not heard.is_set() and time.monotonic() < until:
        try:
            rc.spublish(channel, "again")
        except DualioError as exc:
            failures.append(exc)
        time.sleep(0.02)


def _next_while_publishing(rc: RedisCluster[bytes], messages: Any, channel: str) -> Message[bytes]:
    heard = threading.Event()
    failures: list[DualioError] = []
    publisher = threading.Thread(target=_published_until_heard, args=(rc, channel, heard, failures))
    publisher.start()
    try:
        return next(messages)  # type: ignore[no-any-return]
    finally:
        heard.set()
        publisher.join()


def test_shard_channels_are_subscribed_on_their_slot_s_node(redis_cluster: Cluster) -> None:
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        one, two = "{news}:one", "{news}:two"
        with rc.ssubscribe(one, two) as messages:
            owner = redis_cluster.owner(key_slot(b"news"))
            assert messages.node == owner.address
            with Redis(*owner.address, timeout=5) as node:
                assert node.execute("PUBSUB", "SHARDNUMSUB", one, two) == [one.encode(), 1, two.encode(), 1]
            assert rc.spublish(one, "first") == 1
            assert rc.spublish(two, "second") == 1
            assert next(messages) == (one.encode(), b"first", None)
            assert next(messages) == (two.encode(), b"second", None)
            with pytest.raises(UsageError, match="already subscribed"):
                rc.ssubscribe(one).__enter__()
        again = rc.ssubscribe(one)  # left: the name is free again
        with again:
            rc.spublish(one, "third")
            assert next(again) == (one.encode(), b"third", None)


def test_plain_channels_and_patterns_hear_what_any_node_publishes(redis_cluster: Cluster) -> None:
    rc = RedisCluster(*redis_cluster.seed, timeout=10)
    with rc, rc.subscribe("weather") as plain, rc.psubscribe("sport.*") as patterns:
        assert plain.node in rc.nodes and patterns.node in rc.nodes
        other = next(s for s in redis_cluster.primaries() if s.address != plain.node)
        with Redis(*other.address, timeout=5) as node:  # the cluster's bus carries it to every node
            node.publish("weather", "rain")  # its count is of this node's own subscribers: 0
            node.publish("sport.chess", "mate")
        assert next(plain) == (b"weather", b"rain", None)
        assert next(patterns) == (b"sport.chess", b"mate", b"sport.*")


def test_bad_subscriptions_are_refused_before_anything_is_sent(redis_cluster: Cluster) -> None:
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        with pytest.raises(UsageError, match=r"one slot, not \[\d+, \d+\]"):
            rc.ssubscribe("a", "b")
        with pytest.raises(ValueError, match="at least one"):
            rc.ssubscribe()
        with pytest.raises(UsageError, match="SSUBSCRIBE"):
            rc.execute("SSUBSCRIBE", "a")
        assert rc.get("{a}:untouched") is None


def test_a_shard_subscription_follows_its_slot_to_another_node(redis_cluster: Cluster) -> None:
    channel, slot = _channel(redis_cluster)
    before = redis_cluster.owner(slot)
    after = next(s for s in redis_cluster.primaries() if s is not before)
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc, rc.ssubscribe(channel) as messages:
        assert messages.node == before.address
        _move(redis_cluster, slot, after)  # the old node unsubscribes the slot's channels itself
        try:
            assert _next_while_publishing(rc, messages, channel) == (channel.encode(), b"again", None)
            assert messages.node == after.address
        finally:
            _move(redis_cluster, slot, before)


@pytest.mark.anyio
@pytest.mark.parametrize(("anyio_backend", "transport"), ASYNC_TRANSPORTS)
async def test_the_async_face_s_shard_subscription_follows_its_slot(
    redis_cluster: Cluster, transport: Any,
) -> None:
    channel, slot = _channel(redis_cluster)
    before = redis_cluster.owner(slot)
    after = next(s for s in redis_cluster.primaries() if s is not before)
    rc = AsyncRedisCluster(*redis_cluster.seed, timeout=10, transport=transport)
    async with rc, rc.ssubscribe(channel) as messages, rc.subscribe(channel) as plain:
        assert messages.node == before.address
        await anyio.to_thread.run_sync(_move, redis_cluster, slot, after)
        try:
            got = await received_while_publishing(messages.__anext__, lambda: rc.spublish(channel, "moved"))
            assert got == (channel.encode(), b"moved", None) and messages.node == after.address
            await rc.publish(channel, "plain")  # the plain channel of that name: its own subscription
            assert await plain.__anext__() == (channel.encode(), b"plain", None)
        finally:
            await anyio.to_thread.run_sync(_move, redis_cluster, slot, before)


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    yield from start()


def test_a_shard_subscription_follows_its_slot_to_the_replica_promoted(own_cluster: Cluster) -> None:
    channel, slot = _channel(own_cluster)
    victim = own_cluster.owner(slot)
    with RedisCluster(*own_cluster.seed, timeout=10) as rc, rc.ssubscribe(channel) as messages:
        victim.process.kill()
        victim.process.wait(10)
        assert _next_while_publishing(rc, messages, channel) == (channel.encode(), b"again", None)
        assert messages.node != victim.address
        assert messages.node in [server.address for server in own_cluster.primaries()]
