"""The Redis commands of the blocking face, and ``redis://`` URLs.

GENERATED from dualio/redis/commands.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import builtins
import functools
import ssl
from collections.abc import Callable, Mapping
from typing import Any, Generic, Literal, Self, TypeVar, cast, overload
from urllib.parse import unquote

from dualio_sync.face_calls import Calls
from dualio_transports.policy.timeouts import UNSET, Unset
from dualio_transports.policy.url import query_items, seconds, split_url
from dualio_transports.redis_protocol import commands
from dualio_transports.redis_protocol.client_protocol import SUBSCRIBING, UNSUBSCRIBING, RedisProtocol
from dualio_transports.redis_protocol.resp import Value, encode_command, parse
from dualio_transports.wire.errors import ProtocolError, UsageError
from dualio_transports.wire.request import Request

S = TypeVar("S", bytes, str)
"""What a string reply is: ``bytes``, or ``str`` with ``decode_responses=True``."""
T = TypeVar("T")
Arg = bytes | str | int | float
"""A key, a value or any argument of a command (``str`` is sent as UTF-8)."""
Timeout = float | Unset | None

DEFAULT_PORT = 6379
NOT_HERE = frozenset({*SUBSCRIBING, *UNSUBSCRIBING, "SSUBSCRIBE", "SUNSUBSCRIBE", "MONITOR"})
"""Commands whose replies are not one reply in order: a subscription is a stream, which
these faces do not offer yet (docs/redis.md)."""
CONNECTION_STATE = {
    "HELLO": "the handshake speaks RESP3 and authenticates: use password= and username=",
    "AUTH": "use password= and username=, which every new connection sends",
    "SELECT": "use db=, which every new connection selects",
    "RESET": "it would undo the handshake on a connection that calls share",
    "QUIT": "close the client instead",
}
"""Commands that change the connection's state, which a new connection would not have."""
_SECONDS = ("timeout", "connect_timeout", "keepalive")
_URL_KEYS = frozenset({*_SECONDS, "client_name", "decode_responses"})


def parse_url(url: str) -> dict[str, Any]:
    """The keyword arguments ``redis://[[username]:password@]host[:port][/db][?key=value]``
    stands for; ``rediss://`` is the same with TLS (the system's trusted certificates).
    Keys: ``timeout``, ``connect_timeout`` and ``keepalive`` (seconds, or ``none``),
    ``client_name``, ``decode_responses`` (``1``/``0``). Anything else is a ValueError."""
    parts, options = split_url(url, ("redis", "rediss"), "redis:// or rediss://", DEFAULT_PORT)
    if parts.password is not None:
        options["password"] = unquote(parts.password)
        if parts.username:
            options["username"] = unquote(parts.username)
    elif parts.username:  # redis://secret@host: the password alone, as redis-py reads it
        options["password"] = unquote(parts.username)
    path = parts.path.strip("/")
    if path:
        if not path.isdigit():
            raise ValueError(f"the path of a redis URL is the database's number, not {parts.path!r}")
        options["db"] = int(path)
    for key, value in query_items(parts, url, _URL_KEYS):
        if key in _SECONDS:
            options[key] = seconds(key, value)
        elif key == "decode_responses":
            if value not in ("0", "1"):
                raise ValueError(f"decode_responses must be 0 or 1, got {value!r}")
            options[key] = value == "1"
        else:
            options[key] = value
    if parts.scheme == "rediss":
        options["tls"] = ssl.create_default_context()
    return options


def redis_protocol(
    username: str | None, password: str | None, client_name: str | None, db: int
) -> functools.partial[RedisProtocol]:
    """What makes each connection's protocol state (``ConnectOptions.protocol``), its
    arguments checked once, here."""
    for name, value in (("username", username), ("password", password), ("client_name", client_name)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")
    if isinstance(db, bool) or not isinstance(db, int):
        raise TypeError(f"db must be an int, not {type(db).__name__}")
    make = functools.partial(
        RedisProtocol, username=username, password=password, client_name=client_name, db=db
    )
    make()  # a ValueError now for a username without a password, or a negative db
    return make


def _text(value: Value) -> Value:
    """``value`` with every bytes in it decoded from UTF-8 (``decode_responses=True``)."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [_text(item) for item in value]
    if isinstance(value, dict):
        return {_text(key): _text(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return type(value)(_text(item) for item in value)
    if isinstance(value, tuple):
        return tuple(_text(item) for item in value)
    return value


def _int(raw: bytes) -> int:
    value = parse(raw)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"expected an integer reply, got {value!r}")
    return value


def _flag(raw: bytes) -> bool:
    """A reply of 1 (yes) or 0 (no)."""
    return _int(raw) == 1


def _ok(raw: bytes) -> None:
    value = parse(raw)
    if value != b"OK":
        raise ProtocolError(f"expected OK, got {value!r}")


def _set_reply(raw: bytes) -> bool:
    """SET's reply: OK when it set the key, a null when NX or XX kept it from doing so."""
    value = parse(raw)
    if value is not None and value != b"OK":
        raise ProtocolError(f"expected OK or a null, got {value!r}")
    return value is not None


def _name(arg: Arg) -> str:
    if isinstance(arg, bytes):
        return arg.decode(errors="replace").upper()
    if isinstance(arg, str):
        return arg.upper()
    raise TypeError(f"a command's name is a str or bytes, not {type(arg).__name__}")


class RedisCommands(Calls, Generic[S]):
    """The Redis commands; every one takes ``timeout=`` (seconds, ``None``: no limit; by
    default the client's), which bounds the whole call, reconnecting and retrying
    included. A timed-out or cancelled command's reply is read and dropped when it
    comes, and the connection is kept."""

    decode_responses: bool

    def _value(self, raw: bytes) -> Any:
        value = parse(raw)
        return _text(value) if self.decode_responses else value

    def _string(self, raw: bytes) -> S | None:
        return cast("S | None", self._value(raw))

    def _list(self, raw: bytes) -> list[Any]:
        value = self._value(raw)
        if not isinstance(value, list):
            raise ProtocolError(f"expected an array reply, got {value!r}")
        return value

    def _scored(self, raw: bytes) -> list[tuple[S, float]]:
        return [(member, float(score)) for member, score in self._list(raw)]

    def _command(
        self, decode: Callable[[bytes], T], *args: Arg, idempotent: bool
    ) -> Request[T]:
        return Request(cast(str, args[0]), encode_command(*args), decode, idempotent)

    # -- any command ----------------------------------------------------------------

    def execute(self, *args: Arg, timeout: Timeout = UNSET) -> Any:
        """Any command, ``execute("SET", "k", 1)``; its reply as RESP3 reads it (bytes,
        or str with ``decode_responses``; int; float; list; dict; set; None; bool). Never
        sent again after a lost connection: its effects are unknown. Refused with a
        UsageError: subscribing commands and commands the server holds (BLPOP and
        friends), which are not offered yet (docs/redis.md), and HELLO, AUTH, SELECT,
        RESET and QUIT, which change a connection the next one would not copy."""
        if not args:
            raise ValueError("execute() needs a command")
        name = _name(args[0])
        if name in NOT_HERE:
            raise UsageError(f"{name} is not offered yet: subscriptions are not in this step (docs/redis.md)")
        if name in CONNECTION_STATE:
            raise UsageError(f"{name} is refused here: {CONNECTION_STATE[name]}")
        command = encode_command(*args)
        if commands.held(name, command):
            raise UsageError(f"{name} is a command the server holds, not offered yet (docs/redis.md)")
        return self._call(Request(name, command, self._value, False), timeout)

    def ping(self, *, timeout: Timeout = UNSET) -> float:
        """Round-trip time of a PING, in seconds."""
        return self._ping(timeout)

    # -- strings ----------------------------------------------------------------------

    def get(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """The value of ``name``; None when there is none."""
        return self._call(self._command(self._string, "GET", name, idempotent=True), timeout)

    def set(
        self, name: Arg, value: Arg, *, ex: int | None = None, px: int | None = None,
        nx: bool = False, xx: bool = False, timeout: Timeout = UNSET,
    ) -> bool:
        """Set ``name`` to ``value``, expiring in ``ex`` seconds or ``px`` milliseconds, only
        if it does not exist (``nx``) or only if it does (``xx``); whether it was set."""
        args: list[Arg] = ["SET", name, value]
        if ex is not None:
            args += ["EX", ex]
        if px is not None:
            args += ["PX", px]
        if nx:
            args.append("NX")
        if xx:
            args.append("XX")
        return self._call(self._command(_set_reply, *args, idempotent=not nx), timeout)

    def mget(self, *names: Arg, timeout: Timeout = UNSET) -> list[S | None]:
        """The values of ``names``, in order; None for each that has none."""
        return self._call(self._command(self._list, "MGET", *names, idempotent=True), timeout)

    def mset(self, mapping: Mapping[Arg, Arg], *, timeout: Timeout = UNSET) -> None:
        """Set every key of ``mapping`` to its value, at once."""
        pairs = [item for pair in mapping.items() for item in pair]
        return self._call(self._command(_ok, "MSET", *pairs, idempotent=True), timeout)

    def incr(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """Add 1 to the integer at ``name`` (0 when there is none); the new value."""
        return self._call(self._command(_int, "INCR", name, idempotent=False), timeout)

    def incrby(self, name: Arg, amount: int, *, timeout: Timeout = UNSET) -> int:
        """Add ``amount`` to the integer at ``name``; the new value."""
        return self._call(self._command(_int, "INCRBY", name, amount, idempotent=False), timeout)

    def delete(self, *names: Arg, timeout: Timeout = UNSET) -> int:
        """Remove ``names`` (DEL); how many existed."""
        return self._call(self._command(_int, "DEL", *names, idempotent=True), timeout)

    def exists(self, *names: Arg, timeout: Timeout = UNSET) -> int:
        """How many of ``names`` exist (a name given twice counts twice)."""
        return self._call(self._command(_int, "EXISTS", *names, idempotent=True), timeout)

    def expire(self, name: Arg, seconds: int, *, timeout: Timeout = UNSET) -> bool:
        """Make ``name`` expire in ``seconds``; False when it does not exist."""
        return self._call(self._command(_flag, "EXPIRE", name, seconds, idempotent=True), timeout)

    def ttl(self, name: Arg, *, timeout: Timeout = UNSET) -> int:
        """Seconds until ``name`` expires; -1 when it never does, -2 when it does not exist."""
        return self._call(self._command(_int, "TTL", name, idempotent=True), timeout)

    # -- hashes -----------------------------------------------------------------------

    def hget(self, name: Arg, key: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """The value of ``key`` in the hash ``name``; None when there is none."""
        return self._call(self._command(self._string, "HGET", name, key, idempotent=True), timeout)

    def hset(self, name: Arg, mapping: Mapping[Arg, Arg], *, timeout: Timeout = UNSET) -> int:
        """Set the fields of ``mapping`` in the hash ``name``; how many were new."""
        if not mapping:
            raise ValueError("hset needs at least one field")
        pairs = [item for pair in mapping.items() for item in pair]
        return self._call(self._command(_int, "HSET", name, *pairs, idempotent=False), timeout)

    def hgetall(self, name: Arg, *, timeout: Timeout = UNSET) -> dict[S, S]:
        """Every field of the hash ``name`` and its value (empty when there is none)."""
        return self._call(self._command(self._value, "HGETALL", name, idempotent=True), timeout)

    def hdel(self, name: Arg, *keys: Arg, timeout: Timeout = UNSET) -> int:
        """Remove ``keys`` from the hash ``name``; how many existed."""
        return self._call(self._command(_int, "HDEL", name, *keys, idempotent=False), timeout)

    # -- lists ------------------------------------------------------------------------

    def lpush(self, name: Arg, *values: Arg, timeout: Timeout = UNSET) -> int:
        """Push ``values`` at the head of the list ``name``, one after another; its length."""
        return self._call(self._command(_int, "LPUSH", name, *values, idempotent=False), timeout)

    def rpush(self, name: Arg, *values: Arg, timeout: Timeout = UNSET) -> int:
        """Push ``values`` at the tail of the list ``name``; its length."""
        return self._call(self._command(_int, "RPUSH", name, *values, idempotent=False), timeout)

    def lpop(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """Take the head of the list ``name``; None when it is empty."""
        return self._call(self._command(self._string, "LPOP", name, idempotent=False), timeout)

    def rpop(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """Take the tail of the list ``name``; None when it is empty."""
        return self._call(self._command(self._string, "RPOP", name, idempotent=False), timeout)

    def lrange(self, name: Arg, start: int, end: int, *, timeout: Timeout = UNSET) -> list[S]:
        """The items of the list ``name`` from ``start`` to ``end``, both included (-1: the last)."""
        request = self._command(self._list, "LRANGE", name, start, end, idempotent=True)
        return self._call(request, timeout)

    # -- sets -------------------------------------------------------------------------

    def sadd(self, name: Arg, *members: Arg, timeout: Timeout = UNSET) -> int:
        """Add ``members`` to the set ``name``; how many were new."""
        return self._call(self._command(_int, "SADD", name, *members, idempotent=False), timeout)

    def srem(self, name: Arg, *members: Arg, timeout: Timeout = UNSET) -> int:
        """Remove ``members`` from the set ``name``; how many were in it."""
        return self._call(self._command(_int, "SREM", name, *members, idempotent=False), timeout)

    def smembers(self, name: Arg, *, timeout: Timeout = UNSET) -> builtins.set[S]:
        """The members of the set ``name`` (empty when there is none)."""
        return self._call(self._command(self._value, "SMEMBERS", name, idempotent=True), timeout)

    # -- sorted sets ------------------------------------------------------------------

    def zadd(self, name: Arg, mapping: Mapping[Arg, float], *, timeout: Timeout = UNSET) -> int:
        """Add each member of ``mapping`` with its score to the sorted set ``name`` (a
        member already there gets the new score); how many were new."""
        if not mapping:
            raise ValueError("zadd needs at least one member")
        pairs = [item for member, score in mapping.items() for item in (score, member)]
        return self._call(self._command(_int, "ZADD", name, *pairs, idempotent=False), timeout)

    @overload
    def zrange(
        self, name: Arg, start: int, end: int, *, withscores: Literal[False] = False,
        timeout: Timeout = UNSET,
    ) -> list[S]: ...

    @overload
    def zrange(
        self, name: Arg, start: int, end: int, *, withscores: Literal[True], timeout: Timeout = UNSET,
    ) -> list[tuple[S, float]]: ...

    def zrange(
        self, name: Arg, start: int, end: int, *, withscores: bool = False, timeout: Timeout = UNSET,
    ) -> list[S] | list[tuple[S, float]]:
        """The members of the sorted set ``name`` from rank ``start`` to ``end`` (both
        included, -1: the last), lowest score first; with ``withscores``, each as
        ``(member, score)``."""
        if withscores:
            request = self._command(self._scored, "ZRANGE", name, start, end, "WITHSCORES", idempotent=True)
            return self._call(request, timeout)
        request_members = self._command(self._list, "ZRANGE", name, start, end, idempotent=True)
        return self._call(request_members, timeout)

    # -- pub/sub ----------------------------------------------------------------------

    def publish(self, channel: Arg, message: Arg, *, timeout: Timeout = UNSET) -> int:
        """Send ``message`` on ``channel``; how many subscribers received it."""
        return self._call(self._command(_int, "PUBLISH", channel, message, idempotent=False), timeout)

    # -- made from a URL --------------------------------------------------------------

    @classmethod
    def from_url(cls, url: str, **options: Any) -> Self:
        """A client for ``redis://[[username]:password@]host[:port][/db]`` (``rediss://``:
        TLS); keyword arguments override what the URL says (docs/redis.md lists the keys)."""
        return cls(**{**parse_url(url), **options})
