"""The Redis commands of the blocking face, and ``redis://`` URLs.

GENERATED from dualio/redis/commands.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import builtins
import functools
import logging
import ssl
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Generic, Literal, NamedTuple, Self, TypeVar, cast, overload
from urllib.parse import unquote

from dualio_sync.face_calls import Calls
from dualio_transports.policy.retry import Series, may_retry
from dualio_transports.policy.telemetry import REDIS, Conventions
from dualio_transports.policy.timeouts import UNSET, Unset, check_timeout, pick_timeout
from dualio_transports.policy.url import query_items, seconds, split_url
from dualio_transports.redis_protocol import commands
from dualio_transports.redis_protocol.client_protocol import SUBSCRIBING, UNSUBSCRIBING, RedisProtocol
from dualio_transports.redis_protocol.errors import RedisError
from dualio_transports.redis_protocol.resp import ErrorReply, Value, encode_command, parse, parse_all
from dualio_transports.wire.deadline import deadline
from dualio_transports.wire.errors import DualioError, ProtocolError, UsageError
from dualio_transports.wire.protocol import CallKind
from dualio_transports.wire.request import Request, StreamRequest

S = TypeVar("S", bytes, str)
"""What a string reply is: ``bytes``, or ``str`` with ``decode_responses=True``."""
T = TypeVar("T")
Arg = bytes | str | int | float
"""A key, a value or any argument of a command (``str`` is sent as UTF-8)."""
Timeout = float | Unset | None

log = logging.getLogger("dualio.client")

DEFAULT_PORT = 6379
NOT_A_COMMAND = {
    **{name: "use subscribe() or psubscribe(), which give a subscription" for name in SUBSCRIBING},
    **{name: "leave the subscription instead" for name in UNSUBSCRIBING},
    "SSUBSCRIBE": "sharded subscriptions are not offered",
    "SUNSUBSCRIBE": "sharded subscriptions are not offered",
    "MONITOR": "its replies never end",
    "MULTI": "use transaction(), which sends MULTI, the commands and EXEC in one write",
    "EXEC": "use transaction()",
    "DISCARD": "use transaction()",
    "WATCH": "a WATCH on a connection that concurrent calls share guards nothing",
    "UNWATCH": "a WATCH on a connection that concurrent calls share guards nothing",
}
"""Commands that are not one command answered by one reply here, and what to use instead."""
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


_UNARY = CallKind.UNARY
_request = tuple.__new__  # a Request without NamedTuple's Python-level __new__ (one is made per call)


def _text(value: Value) -> Value:
    """``value`` with every bytes in it decoded from UTF-8 (``decode_responses=True``); a
    ProtocolError, for this call only, where one is not UTF-8."""
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError as exc:
            raise ProtocolError(
                f"a reply is not UTF-8 text ({exc.reason} at byte {exc.start}): "
                "read it with decode_responses=False"
            ) from None
    if isinstance(value, list):
        return [_text(item) for item in value]
    if isinstance(value, dict):
        return {_text(key): _text(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return type(value)(_text(item) for item in value)
    if isinstance(value, tuple):
        return tuple(_text(item) for item in value)
    return value


def _raise_first(values: list[Any], raise_on_error: bool) -> list[Any]:
    if raise_on_error:
        for value in values:
            if isinstance(value, RedisError):
                raise value
    return values



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


def _refused(name: str) -> str | None:
    """Why ``execute`` and batches refuse the command ``name``, or None."""
    if name in NOT_A_COMMAND:
        return f"{name} is not a command here: {NOT_A_COMMAND[name]}"
    if name in CONNECTION_STATE:
        return f"{name} is refused here: {CONNECTION_STATE[name]}"
    return None


def _name(arg: Arg) -> str:
    if isinstance(arg, bytes):
        return arg.decode(errors="replace").upper()
    if isinstance(arg, str):
        return arg.upper()
    raise TypeError(f"a command's name is a str or bytes, not {type(arg).__name__}")


class Message(NamedTuple, Generic[S]):
    """A message a subscription received: its channel, its data, and the pattern that
    matched the channel (None for a channel subscribed by name)."""

    channel: S
    data: S
    pattern: S | None = None


class RedisCommands(Calls, Generic[S]):
    """The Redis commands; every one takes ``timeout=`` (seconds, ``None``: no limit; by
    default the client's), which bounds the whole call, reconnecting and retrying
    included. A timed-out or cancelled command's reply is read and dropped when it
    comes, and the connection is kept."""

    telemetry_conventions: Conventions = REDIS
    decode_responses: bool
    _live_names: builtins.set[tuple[bool, bytes]]  # the names of this client's live subscriptions

    def _setup_commands(self, decode_responses: bool) -> None:
        self.decode_responses = bool(decode_responses)
        self._live_names = builtins.set()

    def _value(self, raw: bytes) -> Any:
        if self.decode_responses:
            return _text(parse(raw))
        return parse(raw)

    def _string(self, raw: bytes) -> S | None:
        if raw[0] == 0x24:  # b"$": a bulk string the reader found whole, or $-1
            if raw[3] == 0x0A:  # its header's LF: a length of one digit
                value = raw[4:-2]
            elif raw[4] == 0x0A:  # two digits, or $-1
                value = raw[5:-2]
                if not value and raw[1] == 0x2D:
                    return None
            else:
                value = raw[raw.index(b"\n") + 1 : -2]
        elif raw[0] == 0x5F:  # b"_": a null
            return None
        else:
            value = parse(raw)
        if self.decode_responses:
            return _text(value)  # type: ignore[no-any-return]
        return value  # type: ignore[return-value]

    def _list(self, raw: bytes) -> list[Any]:
        value = self._value(raw)
        if not isinstance(value, list):
            raise ProtocolError(f"expected an array reply, got {value!r}")
        return value

    def _scored(self, raw: bytes) -> list[tuple[S, float]]:
        pairs = self._list(raw)
        if len(pairs) % 2 == 0 and all(isinstance(item, bytes | str) for item in pairs):
            pairs = [[member, score] for member, score in zip(pairs[::2], pairs[1::2], strict=True)]  # RESP2
        try:
            return [(member, float(score)) for member, score in pairs]
        except (TypeError, ValueError):
            raise ProtocolError(f"expected (member, score) pairs, got {pairs!r:.200}") from None

    def _mapping(self, raw: bytes) -> dict[Any, Any]:
        """A map; from RESP2, which has none, a flat list of keys and values."""
        value = self._value(raw)
        if isinstance(value, builtins.list) and len(value) % 2 == 0:
            return dict(zip(value[::2], value[1::2], strict=True))
        if not isinstance(value, dict):
            raise ProtocolError(f"expected a map reply, got {value!r:.200}")
        return value

    def _members(self, raw: bytes) -> builtins.set[Any]:
        """A set; from RESP2, which has none, a list."""
        value = self._value(raw)
        if isinstance(value, builtins.list):
            return builtins.set(value)
        if not isinstance(value, builtins.set):
            raise ProtocolError(f"expected a set reply, got {value!r:.200}")
        return value

    def _command(
        self, decode: Callable[[bytes], T], *args: Arg, idempotent: bool
    ) -> Request[T]:
        return _request(Request, (args[0], encode_command(*args), decode, idempotent, 1, _UNARY))

    # -- any command ----------------------------------------------------------------

    def execute(self, *args: Arg, timeout: Timeout = UNSET) -> Any:
        """Any command, ``execute("SET", "k", 1)``; its reply as RESP3 reads it (bytes,
        or str with ``decode_responses``; int; float; list; dict; set; None; bool). Never
        sent again after a lost connection: its effects are unknown. A command the server
        holds (BLPOP, XREAD BLOCK, WAIT) runs on a connection of its own, as
        :meth:`blpop` does; give it a ``timeout`` longer than its own. Refused with a
        UsageError: subscribing (use :meth:`subscribe`), MULTI, EXEC, DISCARD and WATCH
        (use :meth:`transaction`), MONITOR, and HELLO, AUTH, SELECT, RESET and QUIT,
        which change a connection the next one would not copy."""
        if not args:
            raise ValueError("execute() needs a command")
        name = _name(args[0])
        refused = _refused(name)
        if refused is not None:
            raise UsageError(refused)
        request = Request(name, encode_command(*args), self._value, False)
        if commands.held(name, request.args):
            return self._held_call(request, deadline(pick_timeout(timeout, self.timeout)))
        return self._call(request, timeout)

    # -- batches ------------------------------------------------------------------------

    def pipeline(
        self, *commands: Sequence[Arg], raise_on_error: bool = True, timeout: Timeout = UNSET,
    ) -> list[Any]:
        """Send ``commands`` (each a sequence, ``("SET", "k", 1)``) in one write and read
        their replies, in one round trip: a list of their values, as :meth:`execute`
        reads them. Other calls' commands may run between them (use :meth:`transaction`
        when they must not). An error reply raises the first such RedisError after all
        are read, or, with ``raise_on_error=False``, takes its command's place in the
        list. Never sent again after a lost connection. Refused as :meth:`execute`
        refuses, and commands the server holds (they would hold up every call)."""
        request = self._batch("pipeline", commands, self._pipeline_reply, raise_on_error, held=False)
        return [] if request is None else self._call(request, timeout)

    def transaction(
        self, *commands: Sequence[Arg], raise_on_error: bool = True, timeout: Timeout = UNSET,
    ) -> list[Any]:
        """Run ``commands`` as one transaction: MULTI, the commands and EXEC in one write,
        so no other call's command runs between them. A list of their values; a command
        the server refused to queue aborts the whole transaction (a RedisError naming
        it); one that failed as it ran raises after the others ran (or, with
        ``raise_on_error=False``, takes its place in the list). A command the server
        would hold runs without waiting inside a transaction. A connection lost before
        EXEC's reply leaves unknown whether the transaction ran: ConnectionLost, never
        sent again."""
        request = self._batch("transaction", commands, self._transaction_reply, raise_on_error, held=True)
        return [] if request is None else self._call(request, timeout)

    def _batch(
        self, method: str, batch: Iterable[Sequence[Arg]],
        reply: Callable[[bool, bytes], list[Any]], raise_on_error: bool, held: bool,
    ) -> Request[list[Any]] | None:
        parts: list[bytes] = []
        for command in batch:
            if isinstance(command, str | bytes) or not isinstance(command, Sequence) or not command:
                raise TypeError(f"each command of a {method} is a non-empty sequence such as "
                                f"('GET', 'k'), not {command!r}")
            name = _name(command[0])
            refused = _refused(name)
            encoded = encode_command(*command)
            if refused is None and not held and commands.held(name, encoded):
                refused = f"{name} is a command the server holds: it would hold up every call in a pipeline"
            if refused is not None:
                raise UsageError(refused)
            parts.append(encoded)
        if not parts:
            return None
        if method == "transaction":
            parts = [encode_command("MULTI"), *parts, encode_command("EXEC")]
        return Request(method, b"".join(parts), functools.partial(reply, raise_on_error), False, len(parts))

    def _reply_value(self, value: Value) -> Any:
        if isinstance(value, ErrorReply):
            return RedisError(value.text)
        return _text(value) if self.decode_responses else value

    def _pipeline_reply(self, raise_on_error: bool, raw: bytes) -> list[Any]:
        return _raise_first(builtins.list(map(self._reply_value, parse_all(raw))), raise_on_error)

    def _transaction_reply(self, raise_on_error: bool, raw: bytes) -> list[Any]:
        multi, *queued, executed = parse_all(raw)
        refusals = [value for value in (multi, *queued) if isinstance(value, ErrorReply)]
        if refusals:
            reasons = "; ".join(value.text for value in refusals)
            raise RedisError(f"EXECABORT the transaction did not run: {reasons}")
        if isinstance(executed, ErrorReply):
            raise RedisError(executed.text)
        if not isinstance(executed, builtins.list):
            raise ProtocolError(f"expected EXEC's array of replies, got {executed!r}")
        return _raise_first(builtins.list(map(self._reply_value, executed)), raise_on_error)

    def ping(self, *, timeout: Timeout = UNSET) -> float:
        """Round-trip time of a PING, in seconds."""
        return self._ping(timeout)

    # -- strings ----------------------------------------------------------------------

    def get(self, name: Arg, *, timeout: Timeout = UNSET) -> S | None:
        """The value of ``name``; None when there is none."""
        args = encode_command("GET", name)
        request: Request[S | None] = _request(Request, ("GET", args, self._string, True, 1, _UNARY))
        return self._call(request, timeout)

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
        return self._call(self._command(self._mapping, "HGETALL", name, idempotent=True), timeout)

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

    def blpop(self, *names: Arg, wait: float, timeout: Timeout = UNSET) -> tuple[S, S] | None:
        """Take the head of the first of the lists ``names`` that has one, waiting up to
        ``wait`` seconds (0: for ever) for one to have one: ``(list, item)``, or None when
        the wait ended with none. The server holds the command, so it runs on a
        connection of its own (``held_connections``) and holds up no other call. The
        call's ``timeout`` defaults to ``wait`` plus the client's timeout (none with
        ``wait=0``). Given up (timeout, cancel) it closes its connection, so the server
        hands no item to a caller that left; an item the server handed out as the call
        was given up is lost (docs/redis.md)."""
        return self._held_pop("BLPOP", names, wait, timeout)

    def brpop(self, *names: Arg, wait: float, timeout: Timeout = UNSET) -> tuple[S, S] | None:
        """:meth:`blpop`, taking the tail."""
        return self._held_pop("BRPOP", names, wait, timeout)

    def _held_pop(
        self, command: str, names: tuple[Arg, ...], wait: float, timeout: Timeout
    ) -> tuple[S, S] | None:
        if not names:
            raise ValueError(f"{command.lower()} needs at least one list")
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait < float("inf"):
            raise ValueError(f"wait must be a number of seconds, 0 or more (0: for ever), not {wait!r}")
        if timeout is UNSET:
            client = self.timeout
            timeout = None if client is None or wait == 0 else wait + client
        request = self._command(self._popped, command, *names, wait, idempotent=False)
        return self._held_call(request, deadline(check_timeout("timeout", timeout)))

    def _popped(self, raw: bytes) -> tuple[S, S] | None:
        value = self._value(raw)
        if value is None:
            return None
        if not isinstance(value, builtins.list) or len(value) != 2:
            raise ProtocolError(f"expected a list's name and an item, got {value!r}")
        name: S = value[0]
        item: S = value[1]
        return name, item

    # -- sets -------------------------------------------------------------------------

    def sadd(self, name: Arg, *members: Arg, timeout: Timeout = UNSET) -> int:
        """Add ``members`` to the set ``name``; how many were new."""
        return self._call(self._command(_int, "SADD", name, *members, idempotent=False), timeout)

    def srem(self, name: Arg, *members: Arg, timeout: Timeout = UNSET) -> int:
        """Remove ``members`` from the set ``name``; how many were in it."""
        return self._call(self._command(_int, "SREM", name, *members, idempotent=False), timeout)

    def smembers(self, name: Arg, *, timeout: Timeout = UNSET) -> builtins.set[S]:
        """The members of the set ``name`` (empty when there is none)."""
        return self._call(self._command(self._members, "SMEMBERS", name, idempotent=True), timeout)

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

    def subscribe(self, *channels: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        """The messages of ``channels``, on the client's connection (commands go on
        meanwhile): ``with r.subscribe("news") as messages: for message in
        messages``. See :class:`Subscription`; ``timeout`` bounds the server's
        confirmation, not the wait for a message."""
        return Subscription(self, False, channels, timeout)

    def psubscribe(self, *patterns: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        """The messages of every channel matching ``patterns`` (``news.*``), as :meth:`subscribe`."""
        return Subscription(self, True, patterns, timeout)

    # -- made from a URL --------------------------------------------------------------

    @classmethod
    def from_url(cls, url: str, **options: Any) -> Self:
        """A client for ``redis://[[username]:password@]host[:port][/db]`` (``rediss://``:
        TLS); keyword arguments override what the URL says (docs/redis.md lists the keys)."""
        return cls(**{**parse_url(url), **options})


class Subscription(Generic[S]):
    """A subscription's messages (:class:`Message`), on the client's shared connection.

    ``with client.subscribe(...) as messages:`` subscribes and waits for the
    server to confirm, so a message published after the block is entered reaches it;
    leaving the block unsubscribes. Iterated without ``with``, it subscribes when
    the first message is asked for, and unsubscribes when closed (``close()``, or when
    the iterator is collected). There is no time limit on waiting for a message: a
    server that went silent is found by the client's keepalive.

    A lost connection does not end it: it subscribes again on a new connection (as the
    client's ``retry`` allows, which a confirmed subscription renews); messages
    published meanwhile are not delivered (Redis keeps none for a subscriber that is
    away). A channel or pattern is one live subscription's at a time per client: asking
    for it twice is a UsageError.
    """

    def __init__(self, client: RedisCommands[S], patterns: bool, names: Sequence[Arg], timeout: Timeout):
        if not names:
            raise ValueError("a subscription needs at least one channel or pattern")
        self._client: RedisCommands[S] = client
        command = "PSUBSCRIBE" if patterns else "SUBSCRIBE"
        args = encode_command(command, *names)
        self._names = {(patterns, cast(bytes, name)) for name in cast("list[Value]", parse(args))[1:]}
        self._request: StreamRequest[Message[S] | None] = StreamRequest(command, args, self._message)
        self._timeout = pick_timeout(timeout, client.timeout)
        self._messages: Generator[Message[S] | None, None, None] | None = None
        self._closed = False

    def _message(self, raw: bytes) -> Message[S] | None:
        """A push as the message it carries; None for the server's confirmation."""
        push = cast("list[Any]", parse(raw))
        kind = push[0]
        if kind in (b"subscribe", b"psubscribe"):
            return None
        if self._client.decode_responses:
            push = cast("list[Any]", _text(push))
        if kind == b"pmessage":
            return Message(push[2], push[3], push[1])
        return Message(push[1], push[2])

    def _resubscribing(self) -> Generator[Message[S] | None, None, None]:
        """The stream's items, subscribing again after a lost connection; its names are
        free for another subscription once it ends, however it ends (left, failed, or
        collected unclosed)."""
        client = self._client
        series: Series | None = None
        try:
            while True:
                items = client._stream(self._request, self._timeout, None)
                try:
                    for item in items:
                        if item is None:
                            series = None
                        yield item
                    return
                except DualioError as exc:
                    if client.retry is None or client._life.closed_by_user or not may_retry(exc, True):
                        raise
                    series = series or client.retry.series()
                    wait = series.next_delay(exc)
                    log.info("a subscription lost its connection (%s): subscribing again in %.3fs", exc, wait)
                    client._pause(wait)
                finally:
                    items.close()
        finally:
            client._live_names -= self._names

    def _started(self) -> Generator[Message[S] | None, None, None]:
        if self._closed:
            raise UsageError("this subscription was left: subscribe again")
        messages = self._messages
        if messages is None:
            taken = self._client._live_names & self._names
            if taken:
                names = ", ".join(sorted(name.decode(errors="replace") for _, name in taken))
                raise UsageError(f"{names}: already subscribed by this client; leave that subscription first")
            self._client._live_names |= self._names
            messages = self._messages = self._resubscribing()
        return messages

    def __enter__(self) -> Self:
        messages = self._started()
        try:
            confirmation = messages.__next__()
            if confirmation is not None:
                raise ProtocolError(f"a message before the subscription was confirmed: {confirmation!r}")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> Message[S]:
        messages = self._started()
        while True:
            message = messages.__next__()
            if message is not None:
                return message

    def close(self) -> None:
        """Unsubscribe (idempotent)."""
        if self._closed:
            return
        self._closed = True
        messages, self._messages = self._messages, None
        try:
            if messages is not None:
                messages.close()
        finally:
            self._client._live_names -= self._names  # the same, for one never started or cut short

