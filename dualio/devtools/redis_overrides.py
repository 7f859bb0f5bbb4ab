"""What the Redis command spec cannot say, for :mod:`dualio.devtools.redis_methods`:
names Python or redis-py users spell otherwise, the commands written by hand, and the few
places the pinned spec is wrong. Everything else about a method comes from the spec."""

from __future__ import annotations

METHOD_NAMES = {"DEL": "delete"}
"""A method named otherwise than the command (``del`` is a Python keyword)."""

RENAMED = {
    # a spec argument's Python name, per command (``*``: every command)
    "*": {"timeout": "server_timeout"},  # timeout= is every method's own time limit
    "ZRANGE": {"count": "num", "rev": "desc"},
    "ZRANGESTORE": {"count": "num", "rev": "desc"},
    "XADD": {"field_value": "fields", "id_or_auto": "id", "count": "limit"},
    "XTRIM": {"count": "limit"},
    "HSET": {"field_value": "mapping"},
    "MSET": {"key_value": "mapping"},
    "MSETNX": {"key_value": "mapping"},
    "HMSET": {"field_value": "mapping"},
    "ZADD": {"score_member": "mapping"},
    "SCAN": {"type": "_type"},
    "EXPIRE": {"seconds": "time"},
    "PEXPIRE": {"milliseconds": "time"},
    "SETEX": {"seconds": "time"},
    "PSETEX": {"milliseconds": "time_ms"},
}

DEFAULTS = {"XADD": {"id": '"*"'}}
"""Defaults the spec has no word for (its ``*`` is an alternative, not a default)."""

ORDER = {"XADD": ["name", "fields", "id"]}
"""Positional parameters redis-py puts in another order than the command's."""

PAIR_ALSO = {"HSET": ("key", "value")}
"""Commands that take one pair as two parameters besides the mapping (redis-py's
``hset(name, key, value, mapping=)``); the mapping is then a keyword."""

SCORED = ("ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE", "ZUNION", "ZINTER", "ZDIFF")
"""Commands whose reply, with ``withscores=True``, is ``(member, score)`` tuples (as redis-py's)."""

DECODERS = {
    # the reply read into what redis-py returns where the schema's shape is awkward in Python
    "BLPOP": ("tuple[S, S] | None", "self._pair"),
    "BRPOP": ("tuple[S, S] | None", "self._pair"),
    "BZPOPMIN": ("tuple[S, S, float] | None", "self._triple"),
    "BZPOPMAX": ("tuple[S, S, float] | None", "self._triple"),
    **{name: ("builtins.list[Any]", "self._scored if withscores else self._value") for name in SCORED},
    "ZPOPMIN": ("builtins.list[tuple[S, float]]", "self._scored"),
    "ZPOPMAX": ("builtins.list[tuple[S, float]]", "self._scored"),
    "INFO": ("builtins.dict[str, Any]", "self._info"),  # text of "key:value" lines, read as redis-py reads it
    "INCRBYFLOAT": ("float", "self._number"),  # a double sent as a bulk string
    "HINCRBYFLOAT": ("float", "self._number"),
    "XRANGE": ("builtins.list[tuple[S, builtins.dict[S, S]]]", "self._entries"),
    "XREVRANGE": ("builtins.list[tuple[S, builtins.dict[S, S]]]", "self._entries"),
    "XREAD": ("builtins.dict[S, builtins.list[tuple[S, builtins.dict[S, S]]]] | None", "self._streams"),
    "XREADGROUP": ("builtins.dict[S, builtins.list[tuple[S, builtins.dict[S, S]]]] | None", "self._streams"),
}

CACHEABLE = frozenset({
    "GET", "GETRANGE", "STRLEN", "HGET", "HGETALL", "HMGET", "HEXISTS", "HLEN", "HKEYS", "HVALS", "LRANGE",
    "LLEN", "LINDEX", "SMEMBERS", "SISMEMBER", "SCARD", "ZSCORE", "ZCARD", "ZRANGE",
})
"""Reads of one key a client-side cache keeps (``Redis(cache=...)``): their reply depends
on that key alone, so the key's invalidation is enough to drop it."""

VALUE_FIRST = frozenset({"ZADD"})
"""Pairs given as a mapping of member to score, sent score first (as redis-py's ``zadd``)."""

HELD = frozenset({"WAIT", "WAITAOF"})
"""Commands the server holds that Redis 7.0's spec does not flag ``BLOCKING`` (7.2's does),
or does not know (WAITAOF, Redis 7.2: ``execute`` sends it to a newer server)."""

HAND_WRITTEN = {
    "SET": "dualio/redis/commands.py: its reply is a flag, or the old value with get=True",
    "PING": "dualio/redis/commands.py: the round trip's time, as every face's ping()",
    "SUBSCRIBE": "subscribe(), which gives a subscription",
    "PSUBSCRIBE": "psubscribe(), which gives a subscription",
    "SSUBSCRIBE": "not offered: sharded subscriptions belong to Redis Cluster",
    "UNSUBSCRIBE": "leaving the subscription unsubscribes",
    "PUNSUBSCRIBE": "leaving the subscription unsubscribes",
    "SUNSUBSCRIBE": "not offered: sharded subscriptions belong to Redis Cluster",
    "MULTI": "transaction(), which sends MULTI, the commands and EXEC in one write",
    "EXEC": "transaction()",
    "DISCARD": "transaction()",
    "WATCH": "not offered on a connection that concurrent calls share",
    "UNWATCH": "not offered on a connection that concurrent calls share",
    "MONITOR": "not offered: its replies never end",
    "HELLO": "the constructor: every connection says HELLO 3 with password= and username=",
    "AUTH": "the constructor's password= and username=",
    "SELECT": "the constructor's db=",
    "RESET": "not offered: it would undo the handshake on a connection that calls share",
    "QUIT": "close()",
    "CLIENT REPLY": "refused: every call waits for its reply",
    "CLIENT SETNAME": "the constructor's client_name=, which every new connection sends",
    "CLIENT TRACKING": "refused: invalidations would come on a connection that calls share",
    "CLIENT CACHING": "refused, as CLIENT TRACKING",
    "CLIENT NO-EVICT": "refused: a new connection would not have it",
    "READONLY": "refused: a cluster replica's connection state, which a new connection would not have",
    "READWRITE": "refused, as READONLY",
    "SYNC": "not offered: it makes the connection a replica's",
    "PSYNC": "not offered: it makes the connection a replica's",
    "REPLCONF": "not offered: a replica's own command",
}
"""Commands that are not a generated method, and what a user has instead."""

GROUPS_LEFT_OUT = {"sentinel": "Sentinel's own commands run on a Sentinel, not on a Redis server"}
