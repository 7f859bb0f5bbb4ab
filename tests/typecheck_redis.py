"""Not a test: mypy --strict reads it (``make test``) to check the types of a sample of the
generated Redis methods on both faces, with ``decode_responses`` off and on."""

from __future__ import annotations

from datetime import timedelta
from typing import assert_type

from dualio.redis import Redis as AsyncRedis
from dualio_sync.redis import Redis


def blocking(raw: Redis[bytes], text: Redis[str]) -> None:
    assert_type(raw.get("k"), bytes | None)
    assert_type(text.get("k"), str | None)
    assert_type(raw.set("k", "v", ex=timedelta(seconds=5), nx=True), bool)
    assert_type(text.set("k", "v", get=True), str | None)
    assert_type(raw.mget("a", "b"), list[bytes | None])
    assert_type(text.mget(["a", "b"]), list[str | None])
    assert_type(raw.incrbyfloat("n", 1.5), float)
    assert_type(raw.expire("k", timedelta(minutes=1), nx=True), bool)
    assert_type(raw.hset("h", "f", "v"), int)
    assert_type(text.hgetall("h"), dict[str, str])
    assert_type(raw.smembers("s"), set[bytes])
    assert_type(raw.zadd("z", {"m": 1.5}, gt=True, ch=True), int | float | None)
    assert_type(raw.zscore("z", "m"), float | None)
    assert_type(raw.lpop("l"), bytes | list[bytes] | None)  # a count= gives a list
    assert_type(text.blpop(["a", "b"], 1.0), tuple[str, str] | None)
    assert_type(text.xrange("s", "-", "+"), list[tuple[str, dict[str, str]]])
    assert_type(raw.delete("a", "b"), int)
    assert_type(raw.client_list(type="normal"), bytes)
    for key in text.scan_iter(match="user:*"):
        assert_type(key, str)


async def asynchronous(raw: AsyncRedis[bytes], text: AsyncRedis[str]) -> None:
    assert_type(await raw.get("k"), bytes | None)
    assert_type(await text.get("k"), str | None)
    assert_type(await text.set("k", "v"), bool)
    assert_type(await raw.getdel("k"), bytes | None)
    assert_type(await text.hgetall("h"), dict[str, str])
    assert_type(await text.xreadgroup("g", "c", {"s": ">"}, block=100),
                dict[str, list[tuple[str, dict[str, str]]]] | None)
    assert_type(await raw.ttl("k"), int)
    async for field, value in text.hscan_iter("h"):
        assert_type(field, str)
        assert_type(value, str)
