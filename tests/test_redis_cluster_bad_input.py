"""The cluster client against cluster nodes that misbehave (tests/test_redis_bad_input.py's
hostile RESP3 server, over real TCP): two nodes that redirect to each other, a node that
claims slots it does not serve, slot maps with gaps, overlaps and shapes no Redis sends,
CLUSTER SHARDS refused. Each ends in a typed error or a documented fallback within the
call's time, never a hang."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import anyio
import pytest

from dualio import ClosedError, ConnectError, DualioError, ProtocolError
from dualio.redis import MovedError
from dualio.redis import RedisCluster as AsyncRedisCluster
from dualio_sync.redis import RedisCluster
from dualio_transports.redis_protocol.slots import key_slot
from tests.test_redis_bad_input import HostileRedis, Peer

pytestmark = pytest.mark.timeout(60)

Address = tuple[str, int]
Range = tuple[int, int, Address]
REFUSED = b"-ERR unknown subcommand\r\n"


def cluster_slots(*ranges: Range) -> bytes:
    """CLUSTER SLOTS's reply for ``ranges``: first slot, last slot, the primary's host and port."""
    parts = [b"*3\r\n:%d\r\n:%d\r\n*2\r\n$%d\r\n%b\r\n:%d\r\n" % (first, last, len(host), host.encode(), port)
             for first, last, (host, port) in ranges]
    return b"*%d\r\n" % len(parts) + b"".join(parts)


class FakeNode:
    """A cluster node that refuses CLUSTER SHARDS (as before Redis 7), gives ``slots`` for
    CLUSTER SLOTS, and answers GET with ``get(its command)`` (None: honestly)."""

    def __init__(self) -> None:
        self.slots: Callable[[], bytes] = lambda: REFUSED
        self.get: Callable[[list[bytes]], bytes | None] = lambda command: None
        self.server = HostileRedis(self._script)
        self.address: Address = self.server.address

    def _script(self, peer: Peer, command: list[bytes]) -> bool:
        name = command[0].upper()
        if name == b"CLUSTER":
            peer.send(REFUSED if command[1].upper() == b"SHARDS" else self.slots())
            return True
        if name == b"GET":
            answer = self.get(command)
            if answer is not None:
                peer.send(answer)
                return True
        return False

    def gets(self) -> int:
        return sum(1 for command in self.server.sent() if command[0].upper() == b"GET")


@pytest.fixture
def nodes() -> Iterator[tuple[FakeNode, FakeNode]]:
    a, b = FakeNode(), FakeNode()
    yield a, b
    a.server.close()
    b.server.close()


def moved_to(node: FakeNode) -> Callable[[list[bytes]], bytes]:
    host, port = node.address
    return lambda command: b"-MOVED %d %s:%d\r\n" % (key_slot(command[1]), host.encode(), port)


def test_two_nodes_that_redirect_to_each_other_end_in_moved_after_the_bound(
    nodes: tuple[FakeNode, FakeNode],
) -> None:
    a, b = nodes
    a.slots = lambda: cluster_slots((0, 16383, a.address))  # CLUSTER SHARDS refused: CLUSTER SLOTS read
    a.get, b.get = moved_to(b), moved_to(a)
    with RedisCluster(*a.address, timeout=5, max_redirects=5) as rc:
        started = time.monotonic()
        with pytest.raises(MovedError):
            rc.get("k")
        assert time.monotonic() - started < 3
    assert a.gets() + b.gets() == 6  # the first try and five redirections
    assert [c[:2] for c in a.server.sent() if c[0] == b"CLUSTER"] == [
        [b"CLUSTER", b"SHARDS"], [b"CLUSTER", b"SLOTS"]]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_the_async_face_bounds_redirections_too(nodes: tuple[FakeNode, FakeNode]) -> None:
    a, b = nodes
    a.slots = lambda: cluster_slots((0, 16383, a.address))
    a.get, b.get = moved_to(b), moved_to(a)
    async with AsyncRedisCluster(*a.address, timeout=5, max_redirects=2) as rc:
        with anyio.fail_after(10), pytest.raises(MovedError):
            await rc.get("k")
    assert a.gets() + b.gets() == 3


def test_a_node_that_claims_slots_it_does_not_serve(nodes: tuple[FakeNode, FakeNode]) -> None:
    """It says it serves every slot, then redirects to itself, or answers CLUSTERDOWN: the
    redirections are bounded, the waits end with the call's time."""
    a, _ = nodes
    a.slots = lambda: cluster_slots((0, 16383, a.address))
    a.get = moved_to(a)
    with RedisCluster(*a.address, timeout=2) as rc:
        with pytest.raises(MovedError):
            rc.get("k")
        a.get = lambda command: b"-CLUSTERDOWN Hash slot not served\r\n"
        started = time.monotonic()
        with pytest.raises(DualioError) as ended:
            rc.get("k")
        assert time.monotonic() - started < 2 + 2  # its timeout, and a little
        assert "CLUSTERDOWN" in str(ended.value) or "timeout" in str(ended.value)


def test_overlapping_ranges_go_to_the_later_and_a_gap_goes_through_any_primary(
    nodes: tuple[FakeNode, FakeNode],
) -> None:
    a, b = nodes
    a.slots = lambda: cluster_slots((0, 10000, a.address), (5000, 15000, b.address))
    overlap = next(f"o{n}" for n in range(10000) if 5000 <= key_slot(f"o{n}".encode()) <= 10000)
    gap = next(f"g{n}" for n in range(10000) if key_slot(f"g{n}".encode()) > 15000)
    with RedisCluster(*a.address, timeout=5) as rc:
        assert rc.get(overlap) == b"value of " + overlap.encode()
        assert b.gets() == 1 and a.gets() == 0
        assert rc.get(gap) == b"value of " + gap.encode()  # a primary answered it
        assert rc.nodes == sorted([a.address, b.address])


@pytest.mark.parametrize(("reply", "said"), [
    (REFUSED, "unknown subcommand"),
    (b"+OK\r\n", "CLUSTER SLOTS of unexpected shape"),
    (b"*1\r\n*3\r\n:0\r\n:20000\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n", "not within 0-16383"),
    (b"*1\r\n*3\r\n:9\r\n:3\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n", "not within 0-16383"),
    (b"*1\r\n*3\r\n:0\r\n:9\r\n*2\r\n$9\r\n127.0.0.1\r\n:0\r\n", "not within 1-65535"),
    (b"*1\r\n*3\r\n:0\r\n:9\r\n*1\r\n$9\r\n127.0.0.1\r\n", "CLUSTER SLOTS of unexpected shape"),
    (b"*1\r\n*3\r\n$1\r\nx\r\n:9\r\n*2\r\n$9\r\n127.0.0.1\r\n:1\r\n", "CLUSTER SLOTS of unexpected shape"),
])
def test_a_map_no_node_gives_is_a_connect_error_naming_what_each_said(
    nodes: tuple[FakeNode, FakeNode], reply: bytes, said: str,
) -> None:
    a, _ = nodes
    a.slots = lambda: reply
    started = time.monotonic()
    with pytest.raises(ConnectError, match="no node of the cluster gave its slot map") as failed:
        RedisCluster(*a.address, timeout=5).open()
    assert said in str(failed.value) and f"{a.address[0]}:{a.address[1]}" in str(failed.value)
    assert time.monotonic() - started < 5


def test_a_seed_whose_map_is_bad_is_passed_over_for_the_next(nodes: tuple[FakeNode, FakeNode]) -> None:
    a, b = nodes
    a.slots = lambda: b"+OK\r\n"
    b.slots = lambda: cluster_slots((0, 16383, b.address))
    with RedisCluster(*a.address, startup_nodes=[b.address], timeout=5) as rc:
        assert rc.get("k") == b"value of k" and rc.nodes == [b.address]


@pytest.mark.parametrize("moved", [
    b"-MOVED 99999 127.0.0.1:7000\r\n", b"-MOVED 12 127.0.0.1:notaport\r\n", b"-MOVED -1 127.0.0.1:7000\r\n",
    b"-MOVED x\r\n", b"-ASK 12 127.0.0.1:0\r\n",
])
def test_a_redirection_that_names_no_slot_or_node_is_a_protocol_error(
    nodes: tuple[FakeNode, FakeNode], moved: bytes,
) -> None:
    a, _ = nodes
    a.slots = lambda: cluster_slots((0, 16383, a.address))
    a.get = lambda command: moved
    with RedisCluster(*a.address, timeout=5) as rc:
        with pytest.raises(ProtocolError, match="a redirection that names no"):
            rc.get("k")
        with pytest.raises(ProtocolError, match="a redirection that names no"):
            rc.pipeline(("GET", "k"))
        assert rc.pipeline() == []


def test_a_call_waiting_out_a_down_slot_ends_when_the_client_is_closed(
    nodes: tuple[FakeNode, FakeNode],
) -> None:
    """It raises ClosedError, makes no node's client again, and the client stays closed."""
    a, _ = nodes
    a.slots = lambda: cluster_slots((0, 16383, a.address))
    a.get = lambda command: b"-CLUSTERDOWN The cluster is down\r\n"
    rc = RedisCluster(*a.address, timeout=20)
    rc.open()
    ended: list[BaseException] = []

    def waiting() -> None:
        try:
            rc.get("k")
        except BaseException as exc:
            ended.append(exc)

    waiter = threading.Thread(target=waiting)
    waiter.start()
    time.sleep(0.3)  # it polls the down slot
    rc.close()
    waiter.join(10)
    assert not waiter.is_alive() and [type(exc) for exc in ended] == [ClosedError]
    with pytest.raises(ClosedError):
        rc.get("k")
    assert rc.nodes == [] or all(node.closed for node in rc._nodes.values())
