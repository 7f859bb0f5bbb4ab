"""Which keys a Redis command names, from Redis's key specs, and which hash slot a key is
in, each checked against a real redis-server's own answer: ``COMMAND GETKEYS`` for the
request of every generated method (and commands whose keys hide behind a keyword or a
count), ``CLUSTER KEYSLOT`` on a server in cluster mode for keys with and without hash tags."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest

from dualio.lab.common.redis_server import RedisServer
from dualio.redis.methods import AsyncMethods
from dualio_sync.redis import Redis
from dualio_transports.redis_protocol.resp import encode_command, parse
from dualio_transports.redis_protocol.slots import SLOTS, command_keys, key_slot
from tests.redis_server import NOT_INSTALLED, REDIS_SERVER, redis_server, start_redis
from tests.test_redis_commands import RUN, _call

__all__ = ["redis_server"]  # a fixture, used by name


class Requests(AsyncMethods[bytes]):
    """The request each method makes, not sent."""

    decode_responses = False
    timeout = 10.0

    def __init__(self) -> None:  # no connection: the requests are only made
        pass

    async def request(self, request: Any, timeout: object = None, held: bool = False) -> Any:
        return request


def argv_of(args: bytes) -> list[bytes]:
    value = parse(args)
    assert isinstance(value, list)
    return [part if isinstance(part, bytes) else str(part).encode() for part in value]


def server_keys(r: Redis[bytes], argv: list[bytes]) -> list[bytes] | str:
    """The server's own answer: the keys, or its error's text (no keys, bad arguments)."""
    try:
        return list(r.execute("COMMAND", "GETKEYS", *argv))
    except Exception as exc:  # an error reply: judged by the caller
        return str(exc)


SHARD_CHANNELS = {b"SPUBLISH", b"SSUBSCRIBE", b"SUNSUBSCRIBE"}
"""Commands that name a shard channel, which has a slot but is no key to COMMAND GETKEYS."""
EXTRA = [
    [b"MSET", b"a", b"1", b"b", b"2", b"c", b"3"],
    [b"EVAL", b"return 1", b"3", b"x", b"y", b"z", b"arg"],
    [b"EVALSHA", b"0" * 40, b"0", b"arg"],
    [b"XREAD", b"COUNT", b"2", b"STREAMS", b"s1", b"s2", b"0", b"0"],
    [b"XREADGROUP", b"GROUP", b"g", b"c", b"STREAMS", b"s1", b">"],
    [b"ZUNIONSTORE", b"dest", b"2", b"z1", b"z2", b"WEIGHTS", b"1", b"2"],
    [b"GEORADIUS", b"geo", b"0", b"0", b"1", b"km", b"STORE", b"out"],
    [b"MIGRATE", b"127.0.0.1", b"1", b"", b"0", b"5", b"KEYS", b"a", b"b"],
    [b"OBJECT", b"ENCODING", b"k"],
    [b"sort", b"list", b"BY", b"w_*", b"STORE", b"dst"],
    [b"SORT", b"list", b"store", b"first", b"STORE", b"second"],
    [b"SORT_RO", b"list", b"BY", b"w_*"],
    [b"MIGRATE", b"127.0.0.1", b"1", b"key", b"0", b"5"],
    [b"GET", b""],
    [b"BLMPOP", b"0", b"2", b"l1", b"l2", b"LEFT"],
    [b"LCS", b"a", b"b"],
    [b"PING"],
]


def test_every_method_s_keys_are_the_server_s(redis_server: RedisServer) -> None:
    requests = Requests()
    checked = with_keys = 0
    differences = {}
    with Redis(*redis_server.address, timeout=10) as r:
        cases = [argv_of(asyncio.run(getattr(requests, name)(*args, **keywords)).args)
                 for name, args, keywords in map(_call, RUN)]
        for argv in cases + EXTRA:
            expected = server_keys(r, argv)
            ours = command_keys(argv)
            if isinstance(expected, str):  # the server found no keys, or refused the arguments
                refused = "Invalid number of arguments" in expected
                if ours and not refused and argv[0] not in SHARD_CHANNELS:
                    differences[b" ".join(argv)] = (ours, expected)
            elif ours != expected:
                differences[b" ".join(argv)] = (ours, expected)
            checked += 1
            with_keys += bool(ours)
    assert differences == {}
    assert checked > 300 and with_keys > 150, (checked, with_keys)


@pytest.fixture(scope="module")
def cluster_mode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        pytest.skip(NOT_INSTALLED)
    folder = tmp_path_factory.mktemp("cluster")
    options = ["--cluster-enabled", "yes", "--cluster-config-file", str(folder / "nodes.conf")]
    server = start_redis(options=options)
    try:
        yield server
    finally:
        server.stop()


def test_every_key_is_in_the_slot_the_server_says(cluster_mode: RedisServer) -> None:
    rng = random.Random(5)
    keys = [b"foo", b"", b"{user1000}.following", b"{user1000}.followers", b"foo{}{bar}", b"foo{{bar}}zap",
            b"foo{bar}{zap}", b"{}", b"}{", b"{a", b"\xff\x00{\x01}"]
    keys += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) for _ in range(300)]
    with Redis(*cluster_mode.address, timeout=10) as r:
        answers = r.pipeline(*(("CLUSTER", "KEYSLOT", key) for key in keys))
    assert [key_slot(key) for key in keys] == answers
    assert key_slot(b"foo") == 12182 and all(0 <= slot < SLOTS for slot in answers)


def test_keys_of_a_command_without_enough_arguments_are_none() -> None:
    assert command_keys([]) == []
    assert command_keys([b"EVAL", b"s", b"5", b"x"]) == [b"x"]  # the server refuses it: arity
    assert command_keys([b"EVAL", b"s", b"many", b"x"]) == []
    assert command_keys([b"XREAD", b"COUNT", b"1"]) == []
    assert command_keys(encode_command("GET", "k").split(b"\r\n")[2:3]) == []
