"""The cluster faces against a real six-node Redis Cluster (tests/redis_cluster.py): every
command routed to its keys' slot, hash tags, keys across slots refused before anything is
sent, MOVED after a slot moves, ASK while one moves, a primary killed (its replica
promoted), a node added, pipelines split by node with their parts at once, on the
blocking face and the async face's transports."""

from __future__ import annotations

import contextlib
import random
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from dualio import DualioError, UsageError
from dualio.lab.common.redis_server import start_cluster_node
from dualio.redis import RedisCluster as AsyncRedisCluster  # the async face's
from dualio.redis import RedisError, WatchError
from dualio_sync.redis import Redis, RedisCluster
from dualio_transports.redis_protocol.slots import key_slot
from tests.redis_cluster import Cluster, redis_cluster, start
from tests.redis_server import ASYNC_TRANSPORTS

__all__ = ["redis_cluster"]  # a fixture, used by name

pytestmark = pytest.mark.timeout(120)
ASYNC = ASYNC_TRANSPORTS


def keys_of_every_primary(count: int = 60) -> list[str]:
    return [f"key:{n}" for n in range(count)]


def test_every_command_reaches_the_node_of_its_slot(redis_cluster: Cluster) -> None:
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        names = keys_of_every_primary()
        for name in names:
            assert rc.set(name, name)
        assert [rc.get(name) for name in names] == [name.encode() for name in names]
        assert len(rc.nodes) == 3
        assert len({key_slot(n.encode()) for n in names}) > 30
        assert rc.incr("counter:{a}") >= 1
        assert rc.mset({"{user1}:a": "1", "{user1}:b": "2"})  # one hash tag: one slot
        assert rc.mget("{user1}:a", "{user1}:b") == [b"1", b"2"]
        assert rc.ping() > 0
        odd = [b"", b"{}", b"{", b"}{x}", b"a{b}c{d}", b"crlf\r\n{in}key", "été".encode(), b"\0" * 40]
        for name in odd:  # each found in place, as the server finds it
            assert rc.set(name, name) and rc.get(name) == name
            with Redis(*redis_cluster.owner(key_slot(name)).address, timeout=5) as node:
                assert node.execute("EXISTS", name) == 1
            assert rc.delete(name) == 1
    for server in redis_cluster.primaries():  # each key is on the primary of its slot, and only there
        with Redis(*server.address, timeout=5) as node:
            here = int(node.execute("CLUSTER", "COUNTKEYSINSLOT", key_slot(b"key:0")))
            assert here == (1 if server is redis_cluster.owner(key_slot(b"key:0")) else 0)


def test_keys_in_different_slots_are_refused_before_anything_is_sent(redis_cluster: Cluster) -> None:
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        with pytest.raises(UsageError, match="different slots"):
            rc.mset({"a": "1", "b": "2"})
        with pytest.raises(UsageError, match="one slot"):
            rc.transaction(("SET", "a", 1), ("SET", "b", 2))
        with pytest.raises(UsageError, match="one slot"):
            rc.ssubscribe("a", "b")
        assert rc.get("a:untouched:{x}") is None


@pytest.mark.anyio
@pytest.mark.parametrize(("anyio_backend", "transport"), ASYNC)
async def test_the_async_face_routes_concurrent_calls(redis_cluster: Cluster, transport: str) -> None:
    async with AsyncRedisCluster(*redis_cluster.seed, timeout=10, transport=transport) as rc:
        names = keys_of_every_primary(100)
        for name in names:
            await rc.set(name, f"v-{name}")
        got: dict[str, Any] = {}

        async def get(name: str) -> None:
            got[name] = await rc.get(name)

        async with anyio.create_task_group() as tasks:
            for name in names * 3:
                tasks.start_soon(get, name)
        assert got == {name: f"v-{name}".encode() for name in names}
        assert await rc.mget(*names) == [f"v-{name}".encode() for name in names]  # a part per slot, at once
        assert await rc.exists(*names) == 100 and await rc.dbsize() >= 100  # every primary's, at once
        assert await rc.pipeline(*(("GET", name) for name in names[:9])) == [
            f"v-{name}".encode() for name in names[:9]]


def _move(cluster: Cluster, slot: int, to: Any) -> None:
    """Point ``slot`` at the primary ``to`` on every primary (the slot holds no key): ``to``
    first, as Redis's resharding does, so no two nodes point the slot at each other."""
    target = cluster.node_id(to)
    for server in sorted(cluster.primaries(), key=lambda server: server is not to):
        with Redis(*server.address, timeout=5) as node:
            node.execute("CLUSTER", "SETSLOT", slot, "NODE", target)


def _empty_slot_key(cluster: Cluster) -> tuple[str, int]:
    rng = random.Random()
    while True:
        name = f"moving:{rng.randrange(10**9)}"
        slot = key_slot(name.encode())
        owner = cluster.owner(slot)
        with Redis(*owner.address, timeout=5) as node:
            if int(node.execute("CLUSTER", "COUNTKEYSINSLOT", slot)) == 0:
                return name, slot


@contextlib.contextmanager
def slot_moved(cluster: Cluster) -> Iterator[tuple[RedisCluster[bytes], str, int, Any]]:
    """A client that read the map, then a key's empty slot moved to another primary; the
    slot moved back and the key deleted at the end."""
    name, slot = _empty_slot_key(cluster)
    with RedisCluster(*cluster.seed, timeout=10) as rc:
        assert rc.get(name) is None  # the map is read
        before = cluster.owner(slot)
        after = next(s for s in cluster.primaries() if s is not before)
        _move(cluster, slot, after)
        try:
            yield rc, name, slot, after
        finally:
            rc.delete(name)
            _move(cluster, slot, before)


def test_moved_points_the_slot_at_its_new_node(redis_cluster: Cluster) -> None:
    with slot_moved(redis_cluster) as (rc, name, slot, after):
        assert rc.set(name, "here")  # MOVED, then sent to the new node
        with Redis(*after.address, timeout=5) as node:
            assert node.get(name) == b"here"
        assert rc.nodes and rc._slots[slot] == after.address


def test_ask_sends_the_command_once_to_the_importing_node(redis_cluster: Cluster) -> None:
    name, slot = _empty_slot_key(redis_cluster)
    source = redis_cluster.owner(slot)
    target = next(s for s in redis_cluster.primaries() if s is not source)
    source_id, target_id = redis_cluster.node_id(source), redis_cluster.node_id(target)
    with Redis(*target.address, timeout=5) as t, Redis(*source.address, timeout=5) as s:
        t.execute("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        s.execute("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
    try:
        with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
            assert rc.set(name, "asked")  # not on the source: ASK, then ASKING + SET on the target
            assert rc.get(name) == b"asked"
            assert rc._slots[slot] == source.address  # the map unchanged
        with Redis(*target.address, timeout=5) as t:
            t.execute("ASKING")
            assert t.get(name) == b"asked"
    finally:
        _move(redis_cluster, slot, target)
        with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
            rc.delete(name)
        _move(redis_cluster, slot, source)


def _replicated(primary: Any) -> None:
    """Until ``primary``'s replica has all it wrote (replication is asynchronous: a primary
    killed before would take its last writes with it, as Redis Cluster does)."""
    until = time.monotonic() + 20
    with Redis(*primary.address, timeout=5, decode_responses=True) as node:
        while True:
            info = dict(
                line.split(":", 1) for line in node.execute("INFO", "replication").splitlines() if ":" in line
            )
            offset = info.get("slave0", "").partition("offset=")[2].split(",")[0]
            if offset and int(offset) >= int(info["master_repl_offset"]):
                return
            assert time.monotonic() < until, f"the replica did not catch up: {info}"
            time.sleep(0.05)


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    yield from start()


def test_a_killed_primary_s_slots_are_served_again_by_its_replica(own_cluster: Cluster) -> None:
    with RedisCluster(*own_cluster.seed, timeout=10) as rc:
        names = keys_of_every_primary()
        for name in names:
            rc.set(name, name)
        victim = own_cluster.owner(key_slot(names[0].encode()))
        _replicated(victim)
        victim.process.kill()
        victim.process.wait(10)
        started = time.monotonic()
        assert rc.get(names[0]) == names[0].encode()  # waits out the promotion, within its timeout
        waited = time.monotonic() - started
        assert [rc.get(name) for name in names] == [name.encode() for name in names]
        assert victim.address not in rc.nodes and waited < 10


def test_a_node_added_and_given_a_slot_is_found_through_moved(own_cluster: Cluster) -> None:
    name, slot = _empty_slot_key(own_cluster)
    with RedisCluster(*own_cluster.seed, timeout=10) as rc:
        assert rc.get(name) is None and len(rc.nodes) == 3  # the map is read
        new = start_cluster_node(["--cluster-node-timeout", "1000"])
        own_cluster.servers.append(new)  # stopped with the others
        subprocess.run(["redis-cli", "--cluster", "add-node", f"127.0.0.1:{new.port}",
                        f"127.0.0.1:{own_cluster.seed[1]}"], check=True, capture_output=True, timeout=60)
        new_id = own_cluster.node_id(new)
        until = time.monotonic() + 30
        for server in own_cluster.primaries():  # until every primary knows it
            with Redis(*server.address, timeout=5, decode_responses=True) as node:
                while new_id not in node.execute("CLUSTER", "NODES"):
                    assert time.monotonic() < until, "the new node did not join"
                    time.sleep(0.05)
        _move(own_cluster, slot, new)
        assert rc.set(name, "on the new node")  # MOVED to the node the client did not know
        assert rc.get(name) == b"on the new node" and new.address in rc.nodes
        with Redis(*new.address, timeout=5) as node:
            assert node.get(name) == b"on the new node"


def test_unreachable_seeds_are_a_typed_error_naming_them() -> None:
    with pytest.raises(DualioError, match=r"127\.0\.0\.1:1\b") as failed:
        RedisCluster("127.0.0.1", 1, startup_nodes=[("127.0.0.1", 2)], timeout=3, connect_timeout=1).open()
    assert "127.0.0.1:2" in str(failed.value)


def test_locks_scripts_and_key_scans_run_on_their_key_s_node(redis_cluster: Cluster) -> None:
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        with rc.lock("lock:{report}", lease=5):
            assert rc.exists("lock:{report}") == 1
        double = rc.register_script("return tonumber(ARGV[1]) * 2")
        assert double(keys=["script:{k}"], args=[21]) == 42
        rc.hset("scanned:{h}", mapping={f"f{n}": n for n in range(30)})
        fields = sorted(field for field, _ in rc.hscan_iter("scanned:{h}"))
        assert fields == sorted(f"f{n}".encode() for n in range(30))
        with pytest.raises(UsageError, match="use scan_iter"):
            rc.execute("SCAN", 0)
        with pytest.raises(UsageError, match="every primary"):
            rc.pipeline(("DBSIZE",))
        names = {f"scan:{n}".encode() for n in range(200)}  # in every primary's slots
        for name in names:
            rc.set(name, 1)
        found = set(rc.scan_iter(match="scan:*", count=50))
        assert found == names
        assert len({redis_cluster.owner(key_slot(n)).port for n in names}) == 3


def test_a_command_answered_by_every_primary_goes_to_each(redis_cluster: Cluster) -> None:
    names = [f"every:{n}" for n in range(30)]
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        for name in names:
            rc.set(name, 1)
        per_node = 0
        for server in redis_cluster.primaries():
            with Redis(*server.address, timeout=5) as node:
                per_node += node.dbsize()
        assert rc.dbsize() == per_node  # summed
        assert sorted(rc.keys("every:*")) == sorted(name.encode() for name in names)  # joined
        sha = rc.script_load("return 7")
        assert rc.script_exists(sha, "0" * 40) == [True, False]  # loaded on every primary
        for server in redis_cluster.primaries():
            with Redis(*server.address, timeout=5) as node:
                assert node.script_exists(sha) == [True]
        assert rc.randomkey() is not None
        assert rc.wait(1, 5000) == 1  # the least of every primary's count of replicas that acknowledged
        assert rc.slowlog_len() >= 0 and isinstance(rc.slowlog_get(), list)  # summed; joined
        assert isinstance(rc.info(), dict)  # Redis leaves INFO's answers to merge: one primary's
        with pytest.raises(RedisError, match="NOTBUSY"):
            rc.script_kill()  # no script runs on any primary: every one refused it


def test_keys_in_several_slots_are_split_where_each_part_stands_alone(redis_cluster: Cluster) -> None:
    names = [f"split:{n}" for n in range(30)]  # in every primary's slots
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        for name in names[:20]:
            rc.set(name, f"v-{name}")
        assert rc.mget(*names) == [f"v-{name}".encode() for name in names[:20]] + [None] * 10
        assert rc.exists(*names, names[0]) == 21  # a key named twice counts twice, as on one node
        assert rc.touch(*names) == 20
        assert rc.delete(*names[:10]) == 10 and rc.unlink(*names[10:]) == 10
        assert rc.mget(*names) == [None] * 30
        with pytest.raises(UsageError, match="different slots"):  # all or none: not split
            rc.mset({names[0]: 1, names[1]: 2})
        with pytest.raises(UsageError, match="different slots"):
            rc.msetnx({names[0]: 1, names[1]: 2})
        assert rc.mget("{t}:a", "{t}:b") == [None, None]  # one slot: one command


def test_a_pipeline_is_split_by_node_and_answered_in_order(redis_cluster: Cluster) -> None:
    names = keys_of_every_primary(40)
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        assert rc.pipeline(*(("SET", name, f"p-{name}") for name in names)) == [b"OK"] * len(names)
        got = rc.pipeline(*(("GET", name) for name in names), ("INCR", names[0]), raise_on_error=False)
        assert got[:-1] == [f"p-{name}".encode() for name in names]
        assert type(got[-1]).__name__ == "RedisError" and "not an integer" in str(got[-1])
        assert rc.transaction(("SET", "{t}:a", 1), ("INCR", "{t}:a"), ("GET", "{t}:a")) == [b"OK", 2, b"2"]


def _run_pipeline(face: str, seed: tuple[str, int], *commands: tuple[str, ...]) -> list[Any]:
    if face == "blocking":
        with RedisCluster(*seed, timeout=10) as rc:
            return rc.pipeline(*commands)

    async def run() -> list[Any]:
        async with AsyncRedisCluster(*seed, timeout=10) as rc:
            return await rc.pipeline(*commands)

    return anyio.run(run, backend=face)


@pytest.mark.parametrize("face", ["blocking", "asyncio", "trio"])
def test_a_pipeline_s_node_parts_go_at_once(redis_cluster: Cluster, face: str) -> None:
    """One node holds its part (CLIENT PAUSE WRITE): the other node's part runs meanwhile."""
    held, free = "together:{a}", next(f"together:{{{n}}}" for n in range(1000)
                                       if redis_cluster.owner(key_slot(str(n).encode()))
                                       is not redis_cluster.owner(key_slot(b"a")))
    holder = redis_cluster.owner(key_slot(b"a"))
    other = redis_cluster.owner(key_slot(free.encode()))
    outcome: list[Any] = []
    with Redis(*holder.address, timeout=5) as pauser, Redis(*other.address, timeout=5) as watcher:
        watcher.delete(free)
        pauser.execute("CLIENT", "PAUSE", 5000, "WRITE")
        run = threading.Thread(target=lambda: outcome.append(
            _run_pipeline(face, redis_cluster.seed, ("SET", held, "1"), ("SET", free, "1"))))
        try:
            run.start()
            until = time.monotonic() + 4
            while watcher.get(free) is None and time.monotonic() < until:
                time.sleep(0.01)
            ran_meanwhile = watcher.get(free) == b"1"
        finally:
            pauser.execute("CLIENT", "UNPAUSE")
            run.join(20)
        assert ran_meanwhile and outcome == [[b"OK", b"OK"]]
        watcher.delete(free)
    with Redis(*holder.address, timeout=5) as node:
        node.delete(held)


def test_a_pipeline_s_command_whose_slot_moved_is_sent_again_where_it_went(redis_cluster: Cluster) -> None:
    with slot_moved(redis_cluster) as (rc, name, _, after):
        rc.set("known:{z}", "z")
        assert rc.pipeline(("SET", name, "moved"), ("GET", "known:{z}")) == [b"OK", b"z"]
        with Redis(*after.address, timeout=5) as node:
            assert node.get(name) == b"moved"


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_a_cluster_get_is_counted_beside_a_single_node_get(capsys: pytest.CaptureFixture[str]) -> None:
    from dualio.lab.instructions import real_cluster

    assert real_cluster.main(["--figures", "cluster-sync,redis-sync", "--calls", "100"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: float(line.split()[1].replace(",", "")) for line in out.splitlines()
            if line.split()[:1] and line.split()[0] in ("cluster-sync", "redis-sync", "raw")}
    assert rows["raw"] < rows["redis-sync"] < rows["cluster-sync"] < 3 * rows["redis-sync"], out


def test_watch_runs_on_the_node_of_its_keys_slot(redis_cluster: Cluster) -> None:
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        rc.set("{acct}:balance", 100)
        with rc.watch("{acct}:balance") as tx:
            balance = int(tx.get("{acct}:balance"))
            assert tx.transaction(("SET", "{acct}:balance", balance - 30)) == [b"OK"]
        assert rc.get("{acct}:balance") == b"70"
        with rc.watch("{acct}:balance") as tx:  # changed by another client after WATCH: not applied
            tx.get("{acct}:balance")
            rc.set("{acct}:balance", 5)
            with pytest.raises(WatchError):
                tx.transaction(("SET", "{acct}:balance", 0))
        assert rc.get("{acct}:balance") == b"5"

        def withdraw(tx: Any) -> int:
            left = int(tx.get("{acct}:balance")) - 1
            tx.transaction(("SET", "{acct}:balance", left))
            return left

        assert rc.transaction(withdraw, "{acct}:balance") == 4
        with pytest.raises(UsageError, match="one slot"):
            rc.watch("a", "b")
        with pytest.raises(UsageError, match="one slot"):
            rc.transaction(withdraw, "a", "b")


@pytest.mark.anyio
@pytest.mark.parametrize(("anyio_backend", "transport"), ASYNC[:1])
async def test_watch_on_the_async_face(redis_cluster: Cluster, transport: str) -> None:
    async with AsyncRedisCluster(*redis_cluster.seed, timeout=10, transport=transport) as rc:
        await rc.set("{stock}:n", 3)
        async with rc.watch("{stock}:n") as tx:
            n = int(await tx.get("{stock}:n"))
            assert await tx.transaction(("SET", "{stock}:n", n + 1)) == [b"OK"]
        assert await rc.get("{stock}:n") == b"4"


def _gets_served(server: Any) -> int:
    with Redis(*server.address, timeout=5, decode_responses=True) as node:
        stats = node.execute("INFO", "commandstats")
    for line in stats.splitlines():
        if line.startswith("cmdstat_get:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0


def test_reads_go_to_replicas_with_read_from_replica(redis_cluster: Cluster) -> None:
    names = keys_of_every_primary(30)
    primaries = redis_cluster.primaries()
    replicas = [s for s in redis_cluster.servers if s not in primaries and s.alive]
    with RedisCluster(*redis_cluster.seed, timeout=10, read_from="replica") as rc:
        for name in names:
            assert rc.set(name, f"r-{name}")  # writes go to the primaries
        for server in primaries:
            with Redis(*server.address, timeout=10) as primary:
                primary.execute("WAIT", 1, 5000)  # the replicas have them
        before = {s.port: _gets_served(s) for s in redis_cluster.servers if s.alive}
        assert [rc.get(name) for name in names] == [f"r-{name}".encode() for name in names]
        assert rc.mget("{t}a", "{t}b") == [None, None]
        after = {s.port: _gets_served(s) for s in redis_cluster.servers if s.alive}
    assert sum(after[s.port] - before[s.port] for s in replicas) == len(names)
    assert sum(after[s.port] - before[s.port] for s in primaries) == 0
    with pytest.raises(ValueError, match="read_from"):
        RedisCluster(*redis_cluster.seed, read_from="nearest")  # type: ignore[arg-type]


def test_a_node_whose_connection_broke_is_asked_again_when_it_serves_on(redis_cluster: Cluster) -> None:
    """No failover: the node's clients are killed, so the call's connection breaks and it
    asks another node, whose MOVED names the same node, which it then tries again and
    which answers (it does not wait for a promotion that never comes)."""
    with RedisCluster(*redis_cluster.seed, timeout=10) as rc:
        assert rc.set("kept:{k}", "v")
        owner = redis_cluster.owner(key_slot(b"kept:{k}"))
        with Redis(*owner.address, timeout=5) as admin:
            assert admin.execute("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes") >= 1
        started = time.monotonic()
        assert rc.get("kept:{k}") == b"v"
        assert time.monotonic() - started < 3.0  # about 0.1 s; the call's timeout is 10 s
