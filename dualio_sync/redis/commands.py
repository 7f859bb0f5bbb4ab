"""The Redis commands of the blocking face, and ``redis://`` URLs.

GENERATED from dualio/redis/commands.py by dualio/devtools/unasync.py: do not edit.
Edit the source, then run ``python -m dualio.devtools.unasync``.
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import logging
import ssl
from collections.abc import Callable, Generator, Iterable, Sequence
from datetime import timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Literal, Self, cast, overload
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from dualio_sync.redis.lock import Lock
    from dualio_sync.redis.watch import Watch
from dualio_sync.redis.method_support import (
    _UNARY,
    Arg,
    S,
    T,
    Timeout,
    _milliseconds,
    _one_of,
    _request,
    _seconds,
    _text,
    _wrong,
)
from dualio_sync.redis.methods import Methods
from dualio_sync.toolkit import (
    UNSET,
    Conventions,
    DualioError,
    ProtocolError,
    Request,
    Series,
    StreamRequest,
    UsageError,
    may_retry,
    pick_timeout,
    query_items,
    seconds,
    split_url,
)
from dualio_transports.redis_protocol import commands
from dualio_transports.redis_protocol.client_protocol import SUBSCRIBING, UNSUBSCRIBING, RedisProtocol
from dualio_transports.redis_protocol.command_spec import RETRIED
from dualio_transports.redis_protocol.errors import (
    ExecAbortError,
    NoScriptError,
    RedisError,
    WatchError,
    redis_error,
)
from dualio_transports.redis_protocol.message import Message
from dualio_transports.redis_protocol.resp import (
    MAX_REPLY,
    ErrorReply,
    Value,
    encode_command,
    parse,
    parse_all,
)
from dualio_transports.redis_protocol.subscriptions import Kind, Name
from dualio_transports.redis_protocol.tracking import ClientCache

log = logging.getLogger("dualio.client")

DEFAULT_PORT = 6379
NOT_A_COMMAND = {
    **{name: "use subscribe(), psubscribe() or RedisCluster.ssubscribe()" for name in SUBSCRIBING},
    **{name: "leave the subscription instead" for name in UNSUBSCRIBING},
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
    "CLIENT REPLY": "every call waits for its reply: a connection that sends none would time every call out",
    "CLIENT SETNAME": "use client_name=, which every new connection sends",
    "CLIENT SETINFO": "a new connection would not have it",
    "CLIENT TRACKING": "invalidations would arrive on a connection that calls share",
    "CLIENT CACHING": "it belongs to CLIENT TRACKING, which is refused",
    "CLIENT NO-EVICT": "a new connection would not have it",
    "CLIENT NO-TOUCH": "a new connection would not have it",
    "READONLY": "a cluster replica's connection state, which a new connection would not have",
    "READWRITE": "a cluster replica's connection state, which a new connection would not have",
}
"""Commands that change the connection's state, which a new connection would not have."""
_SECONDS = ("timeout", "connect_timeout", "keepalive")
_REDIS_PY_NAMES = {"socket_timeout": "timeout", "socket_connect_timeout": "connect_timeout",
                   "health_check_interval": "keepalive"}
"""redis-py's names of URL keys, read as the options they are here."""
_URL_KEYS = frozenset({*_SECONDS, *_REDIS_PY_NAMES, "client_name", "decode_responses", "db", "username",
                       "password", "protocol"})


def parse_url(url: str) -> dict[str, Any]:
    """The keyword arguments a URL stands for, read as redis-py reads it:
    ``redis://[[username]:password@]host[:port][/db][?key=value]``, ``rediss://`` (the
    same with TLS, the system's trusted certificates) and ``unix://[[username]:password@]/path
    [?db=N]`` (a Unix socket). Keys: ``timeout``, ``connect_timeout`` and ``keepalive``
    (seconds, or ``none``; redis-py's ``socket_timeout``, ``socket_connect_timeout`` and
    ``health_check_interval`` too), ``client_name``, ``decode_responses`` (``1``/``0``,
    ``true``/``false``), ``db``, ``username``, ``password``, ``protocol`` (3). A password
    goes after a colon (``redis://:secret@host``); a user name alone
    (``redis://name@host``), which Redis cannot authenticate, is a ValueError, as is
    any other key or a part that is not what it should be, named."""
    if not isinstance(url, str):
        raise TypeError(f"url must be a str, not {type(url).__name__}")
    if url.startswith("unix://"):
        parts = urlsplit(url)
        if not parts.path or parts.path == "/":
            raise ValueError(f"no socket path in {url!r}: unix:///path/to/redis.sock")
        options: dict[str, Any] = {"unix_socket_path": unquote(parts.path)}
    else:
        parts, options = split_url(url, ("redis", "rediss"), "redis://, rediss:// or unix://", DEFAULT_PORT)
        path = parts.path.strip("/")
        if path:
            if not path.isdigit():
                raise ValueError(f"the path of a redis URL is the database's number, not {parts.path!r}")
            options["db"] = int(path)
        if parts.scheme == "rediss":
            options["tls"] = ssl.create_default_context()
    if parts.password is not None:
        options["password"] = unquote(parts.password)
        if parts.username:
            options["username"] = unquote(parts.username)
    elif parts.username:
        raise ValueError(
            "a redis URL's user name alone cannot authenticate: write redis://:password@host for a "
            "password, or redis://user:password@host"
        )
    for key, value in query_items(parts, url, _URL_KEYS):
        key = _REDIS_PY_NAMES.get(key, key)
        if key in _SECONDS:
            options[key] = seconds(key, value)
        elif key == "decode_responses":
            if value.lower() not in ("0", "1", "true", "false"):
                raise ValueError(f"decode_responses must be 0, 1, true or false, got {value!r}")
            options[key] = value.lower() in ("1", "true")
        elif key == "db":
            if not value.isdigit():
                raise ValueError(f"db must be a number, got {value!r}")
            options[key] = int(value)
        elif key == "protocol":
            if value != "3":
                raise ValueError(f"protocol must be 3 (RESP2 is spoken by itself to a server before "
                                 f"Redis 6), got {value!r}")
        else:
            options[key] = unquote(value)
    return options


TELEMETRY = Conventions(
    (("db.system.name", "redis"),), "", "db.operation.name", "db.client.operation.duration", "s", 1.0,
    "Duration of database client operations.", "db.namespace",
)
"""OpenTelemetry's conventions for Redis clients, which this face's telemetry follows."""


def redis_protocol(
    username: str | None, password: str | None, client_name: str | None, db: int,
    max_reply_size: int = MAX_REPLY, cache: ClientCache | None = None, readonly: bool = False,
) -> functools.partial[RedisProtocol]:
    """What makes each connection's protocol state (``ConnectOptions.protocol``), its
    arguments checked once, here."""
    for name, value in (("username", username), ("password", password), ("client_name", client_name)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")
    for name, number in (("db", db), ("max_reply_size", max_reply_size)):
        if isinstance(number, bool) or not isinstance(number, int):
            raise TypeError(f"{name} must be an int, not {type(number).__name__}")
    if max_reply_size < 16:
        raise ValueError(f"max_reply_size must be 16 bytes or more, not {max_reply_size}")
    if cache is not None and not isinstance(cache, ClientCache):
        raise TypeError(f"cache must be a ClientCache or None, not {type(cache).__name__}")
    if not isinstance(readonly, bool):
        raise TypeError(f"readonly must be a bool, not {type(readonly).__name__}")
    make = functools.partial(
        RedisProtocol, username=username, password=password, client_name=client_name, db=db,
        max_reply=max_reply_size, cache=cache, readonly=readonly,
    )
    make(cache=None)  # a ValueError now for a username without a password, or a negative db
    return make


def _raise_first(values: list[Any], raise_on_error: bool) -> list[Any]:
    if raise_on_error:
        for value in values:
            if isinstance(value, RedisError):
                raise value
    return values



def _set_reply(raw: bytes) -> bool:
    """SET's reply without GET: OK when it set the key, a null when NX or XX kept it from doing so."""
    value = parse(raw)
    if value is not None and value != b"OK":
        raise ProtocolError(f"expected OK or a null, got {value!r}")
    return value is not None


def _refused(name: str, command: Sequence[Arg] = ()) -> str | None:
    """Why ``execute`` and batches refuse the command ``name`` (``command``, whole: a
    container's subcommand is its second word), or None."""
    if name in NOT_A_COMMAND:
        return f"{name} is not a command here: {NOT_A_COMMAND[name]}"
    if name in CONNECTION_STATE:
        return f"{name} is refused here: {CONNECTION_STATE[name]}"
    if name == "CLIENT" and len(command) > 1 and command[1].__class__ in (str, bytes):
        full = f"CLIENT {_name(command[1])}"
        if full in CONNECTION_STATE:
            return f"{full} is refused here: {CONNECTION_STATE[full]}"
    return None


_PLAIN: builtins.set[object] = builtins.set()
"""Command names, as a program spells them, found neither refused nor held (batches check
each name once)."""
_MAX_PLAIN = 1024  # names are the program's: a few dozen, unless it makes them up


def _name(arg: Arg) -> str:
    if isinstance(arg, bytes):
        return arg.decode(errors="replace").upper()
    if isinstance(arg, str):
        return arg.upper()
    raise TypeError(f"a command's name is a str or bytes, not {type(arg).__name__}")


class RedisCommands(Methods[S]):
    """The Redis commands; every one takes ``timeout=`` (seconds, ``None``: no limit; by
    default the client's), which bounds the whole call, reconnecting and retrying
    included. A timed-out or cancelled command's reply is read and dropped when it
    comes, and the connection is kept. Each command of Redis's spec is a generated method
    (:class:`~dualio.redis.methods.Methods`); what no spec can say is here."""

    telemetry_conventions: Conventions = TELEMETRY
    _live_names: builtins.set[Name]  # the names of this client's live subscriptions

    def _setup_commands(self, decode_responses: bool) -> None:
        self.decode_responses = bool(decode_responses)
        self._live_names = builtins.set()

    # -- any command ----------------------------------------------------------------

    def execute(self, *args: Arg, timeout: Timeout = UNSET) -> Any:
        """Any command, ``execute("SET", "k", 1)``; its reply as RESP3 reads it (bytes,
        or str with ``decode_responses``; int; float; list; dict; set; None; bool). Sent
        again after a lost connection only when Redis's command spec shows it is safe to
        (read-only, or its keys overwritten or removed whole: GET, MGET, DEL, MSET, as the
        methods are); anything else, a command the spec does not know included, is not:
        its effects are unknown. A command the server
        holds (BLPOP, XREAD BLOCK, WAIT) runs on a connection of its own, as
        :meth:`blpop` does; give it a ``timeout`` longer than its own. Refused with a
        UsageError: subscribing (use :meth:`subscribe`), MULTI, EXEC, DISCARD and WATCH
        (use :meth:`transaction`), MONITOR, CLIENT REPLY (every call waits for a reply),
        and what changes a connection the next one would not copy: HELLO, AUTH, SELECT,
        RESET, QUIT, CLIENT SETNAME (use ``client_name=``), CLIENT TRACKING, CACHING,
        NO-EVICT, NO-TOUCH and SETINFO, READONLY, READWRITE."""
        if not args:
            raise ValueError("execute() needs a command")
        name = _name(args[0])
        refused = _refused(name, args)
        if refused is not None:
            raise UsageError(refused)
        request = Request(name, encode_command(*args), self._value, name in RETRIED)
        return self.request(request, timeout, held=commands.held(name, request.args))

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
        return [] if request is None else self.request(request, timeout)

    @overload
    def transaction(
        self, *commands: Sequence[Arg], raise_on_error: bool = True, timeout: Timeout = UNSET,
    ) -> list[Any]: ...

    @overload
    def transaction(
        self, func: Callable[[Watch[S]], T], /, *names: Arg, attempts: int = 16,
        timeout: Timeout = UNSET,
    ) -> T: ...

    def transaction(self, *commands: Any, raise_on_error: bool = True, attempts: int = 16,
                          timeout: Timeout = UNSET) -> Any:
        """Run ``commands`` as one transaction: MULTI, the commands and EXEC in one write,
        so no other call's command runs between them. A list of their values; a command
        the server refused to queue aborts the whole transaction (a RedisError naming
        it); one that failed as it ran raises after the others ran (or, with
        ``raise_on_error=False``, takes its place in the list). A command the server
        would hold runs without waiting inside a transaction. A connection lost before
        EXEC's reply leaves unknown whether the transaction ran: ConnectionLost, never
        sent again.

        ``transaction(func, *names)``, as redis-py's: an optimistic transaction, tried
        up to ``attempts`` times. Each try watches ``names`` (:meth:`watch`) and calls
        ``func(tx)``, which reads through ``tx`` and ends with ``tx.transaction(...)``;
        a WatchError (a watched key changed) tries again, the last one is raised.
        ``func``'s value is returned."""
        if commands and callable(commands[0]):
            func, names = commands[0], commands[1:]
            if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
                raise ValueError(f"attempts must be 1 or more, not {attempts!r}")
            for attempt in range(attempts):
                try:
                    with self.watch(*names, timeout=timeout) as tx:
                        return func(tx)
                except WatchError:
                    if attempt == attempts - 1:
                        raise
        request = self._batch("transaction", commands, self._transaction_reply, raise_on_error, held=True)
        return [] if request is None else self.request(request, timeout)

    def lock(
        self, name: Arg, lease: float | timedelta = 30.0, *, wait: float | None = None, sleep: float = 0.1,
        timeout: Timeout = UNSET,
    ) -> Lock[S]:
        """A lock named ``name`` (:mod:`dualio.redis.lock`): ``with r.lock("job", lease=10)``.
        A holder keeps it ``lease`` (seconds or a timedelta) unless it extends it;
        taking it waits up to ``wait`` seconds (None: as long as it takes), trying every
        ``sleep``; ``timeout`` bounds each call it makes. Its release never frees a
        lock another holder took after this one's lease ran out."""
        from dualio_sync.redis.lock import Lock

        return Lock(self, name, lease, wait, sleep, timeout)

    def watch(self, *names: Arg, timeout: Timeout = UNSET) -> Watch[S]:
        """WATCH ``names`` on a connection of the client's own for the duration:
        ``with r.watch("k") as tx``. ``tx`` has every command method, run on that
        connection; ``tx.transaction(...)`` runs MULTI ... EXEC there and raises
        WatchError when a watched key changed since WATCH. The connection is one of the
        ``held_connections``; ``timeout`` is each call's in the block (the client's by
        default). See :mod:`dualio.redis.watch`."""
        from dualio_sync.redis.watch import Watch

        return Watch(self, names, timeout)

    def _batch(
        self, method: str, batch: Iterable[Sequence[Arg]],
        reply: Callable[[bool, bytes], list[Any]], raise_on_error: bool, held: bool,
    ) -> Request[list[Any]] | None:
        parts: list[bytes] = []
        append = parts.append
        plain = _PLAIN  # names already found to be neither refused nor held: checked once
        for command in batch:
            cls = command.__class__
            if ((cls is not tuple and cls is not list) or not command) and (
                isinstance(command, str | bytes) or not isinstance(command, Sequence) or not command
            ):
                raise TypeError(f"each command of a {method} is a non-empty sequence such as "
                                f"('GET', 'k'), not {command!r}")
            first = command[0]
            if first.__class__ is str and first in plain:
                append(encode_command(*command))
                continue
            name = _name(first)
            refused = _refused(name, command)
            encoded = encode_command(*command)
            if refused is None and not held and commands.held(name, encoded):
                refused = f"{name} is a command the server holds: it would hold up every call in a pipeline"
            if refused is not None:
                raise UsageError(refused)
            if first.__class__ is str and name not in commands.HELD and name not in commands.HELD_WITH_BLOCK \
                    and name != "CLIENT" and len(plain) < _MAX_PLAIN:
                plain.add(first)
            append(encoded)
        if not parts:
            return None
        if method == "transaction":
            parts = [encode_command("MULTI"), *parts, encode_command("EXEC")]
        return Request(method, b"".join(parts), functools.partial(reply, raise_on_error), False, len(parts))

    def _reply_value(self, value: Value) -> Any:
        if isinstance(value, ErrorReply):
            return redis_error(value.text)
        return _text(value) if self.decode_responses else value

    def _pipeline_reply(self, raise_on_error: bool, raw: bytes) -> list[Any]:
        values = parse_all(raw)
        if not self.decode_responses and ErrorReply not in builtins.set(map(type, values)):
            return values  # every value as it came: nothing to decode, no error to make
        return _raise_first(builtins.list(map(self._reply_value, values)), raise_on_error)

    def _transaction_reply(self, raise_on_error: bool, raw: bytes) -> list[Any]:
        multi, *queued, executed = parse_all(raw)
        refusals = [value for value in (multi, *queued) if isinstance(value, ErrorReply)]
        if refusals:
            reasons = "; ".join(value.text for value in refusals)
            raise ExecAbortError(f"EXECABORT the transaction did not run: {reasons}")
        if isinstance(executed, ErrorReply):
            raise redis_error(executed.text)
        if executed is None:
            raise WatchError("a watched key changed: the transaction did not run")
        if not isinstance(executed, builtins.list):
            raise ProtocolError(f"expected EXEC's array of replies, got {executed!r}")
        return _raise_first(builtins.list(map(self._reply_value, executed)), raise_on_error)

    # -- what the spec cannot type -----------------------------------------------------

    @overload
    def set(
        self, name: Arg, value: Arg, *, ex: int | timedelta | None = None,
        px: int | timedelta | None = None, exat: int | None = None, pxat: int | None = None,
        keepttl: bool = False, nx: bool = False, xx: bool = False,
        get: Literal[False] = False, timeout: Timeout = UNSET,
    ) -> bool: ...

    @overload
    def set(
        self, name: Arg, value: Arg, *, ex: int | timedelta | None = None,
        px: int | timedelta | None = None, exat: int | None = None, pxat: int | None = None,
        keepttl: bool = False, nx: bool = False, xx: bool = False,
        get: Literal[True], timeout: Timeout = UNSET,
    ) -> S | None: ...

    def set(
        self, name: Arg, value: Arg, *, ex: int | timedelta | None = None,
        px: int | timedelta | None = None, exat: int | None = None, pxat: int | None = None,
        keepttl: bool = False, nx: bool = False, xx: bool = False,
        get: bool = False, timeout: Timeout = UNSET,
    ) -> bool | S | None:
        """SET ``name`` to ``value``, expiring in ``ex`` seconds or ``px`` milliseconds, at
        ``exat`` or ``pxat`` (Unix time), or keeping its time to live (``keepttl``); only
        if it does not exist (``nx``) or only if it does (``xx``). Whether it was set; with
        ``get``, the value it had instead (None for none). Options that exclude each other
        are a ValueError before anything is sent."""
        _one_of("set", ("ex", ex), ("px", px), ("exat", exat), ("pxat", pxat), ("keepttl", keepttl))
        _one_of("set", ("nx", nx), ("xx", xx))
        args: list[Arg] = ["SET", name, value]
        seconds = None if ex is None else _seconds(ex)
        milliseconds = None if px is None else _milliseconds(px)
        for token, given in (("EX", seconds), ("PX", milliseconds), ("EXAT", exat), ("PXAT", pxat)):
            if given is not None:
                args += (token, given)
        for token, flag in (("KEEPTTL", keepttl), ("NX", nx), ("XX", xx), ("GET", get)):
            if flag:
                args.append(token)
        try:
            command = encode_command(*args)
        except TypeError:
            raise _wrong("set", ("name", name, "arg"), ("value", value, "arg"), ("ex", ex, "duration"),
                         ("px", px, "duration"), ("exat", exat, "arg"), ("pxat", pxat, "arg")) from None
        decode: Callable[[bytes], Any] = self._string if get else _set_reply
        retry = not (nx or get)
        request: Request[bool | S | None] = _request(Request, ("SET", command, decode, retry, 1, _UNARY))
        return self.request(request, timeout)

    # -- pub/sub ----------------------------------------------------------------------

    def subscribe(self, *channels: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        """The messages of ``channels``, on the client's connection (commands go on
        meanwhile): ``with r.subscribe("news") as messages: for message in
        messages``. See :class:`Subscription`; ``timeout`` bounds the server's
        confirmation, not the wait for a message."""
        return Subscription(self, "channel", channels, timeout)

    def psubscribe(self, *patterns: Arg, timeout: Timeout = UNSET) -> Subscription[S]:
        """The messages of every channel matching ``patterns`` (``news.*``), as :meth:`subscribe`."""
        return Subscription(self, "pattern", patterns, timeout)

    # -- iterators and scripts --------------------------------------------------------

    def scan_iter(
        self, match: Arg | None = None, count: int | None = None, _type: Arg | None = None, *,
        timeout: Timeout = UNSET,
    ) -> Generator[S, None, None]:
        """Every key (matching the glob ``match``, of the type ``_type``), SCAN after
        SCAN until the server's cursor comes back to 0; a key may come twice, as SCAN
        gives it. ``count`` is SCAN's hint of how many per call; ``timeout`` bounds each call."""
        for keys in self._pages("SCAN", (), _scan_options(match, count, _type), timeout):
            for key in keys:
                yield key

    def hscan_iter(
        self, name: Arg, match: Arg | None = None, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> Generator[tuple[S, S], None, None]:
        """Every ``(field, value)`` of the hash ``name`` (fields matching ``match``), as :meth:`scan_iter`."""
        for items in self._pages("HSCAN", (name,), _scan_options(match, count), timeout):
            for field, value in zip(items[::2], items[1::2], strict=True):
                yield field, value

    def sscan_iter(
        self, name: Arg, match: Arg | None = None, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> Generator[S, None, None]:
        """Every member of the set ``name`` (matching ``match``), as :meth:`scan_iter`."""
        for members in self._pages("SSCAN", (name,), _scan_options(match, count), timeout):
            for member in members:
                yield member

    def zscan_iter(
        self, name: Arg, match: Arg | None = None, count: int | None = None, *, timeout: Timeout = UNSET,
    ) -> Generator[tuple[S, float], None, None]:
        """Every ``(member, score)`` of the sorted set ``name`` (members matching ``match``),
        as :meth:`scan_iter`."""
        for items in self._pages("ZSCAN", (name,), _scan_options(match, count), timeout):
            for member, score in zip(items[::2], items[1::2], strict=True):
                yield member, float(score)

    def _pages(
        self, command: str, head: tuple[Arg, ...], options: list[Arg], timeout: Timeout,
    ) -> Generator[list[Any], None, None]:
        """The items of each reply of a SCAN-like ``command``, cursor after cursor."""
        cursor: Any = b"0"
        while True:
            request = Request(command, encode_command(command, *head, cursor, *options), self._value, True)
            reply = self.request(request, timeout)
            if not isinstance(reply, builtins.list) or len(reply) != 2:
                raise ProtocolError(f"expected {command}'s cursor and items, got {reply!r:.200}")
            cursor, items = reply
            yield items
            if cursor in (b"0", "0"):
                return

    def register_script(self, script: Arg) -> Script[S]:
        """A Lua script, called as ``script(keys=[...], args=[...])``: EVALSHA by its
        SHA1, and EVAL, which loads it, when the server does not have it (NOSCRIPT)."""
        return Script(self, script)

    # -- made from a URL --------------------------------------------------------------

    @classmethod
    def from_url(cls, url: str, **options: Any) -> Self:
        """A client for ``redis://[[username]:password@]host[:port][/db]`` (``rediss://``:
        TLS); keyword arguments override what the URL says (docs/redis.md lists the keys)."""
        return cls(**{**parse_url(url), **options})


SUBSCRIBE: dict[Kind, str] = {kind: name for name, kind in SUBSCRIBING.items()}
_CONFIRMATIONS = frozenset({b"subscribe", b"psubscribe", b"ssubscribe"})


def _scan_options(match: Arg | None, count: int | None, kind: Arg | None = None) -> list[Arg]:
    options: list[Arg] = []
    for token, value in (("MATCH", match), ("COUNT", count), ("TYPE", kind)):
        if value is not None:
            options += (token, value)
    return options


class Script(Generic[S]):
    """A Lua script of a client (:meth:`RedisCommands.register_script`), run by its
    SHA1; ``sha`` is that SHA1."""

    def __init__(self, client: RedisCommands[S], script: Arg):
        if not isinstance(script, str | bytes):
            raise TypeError(f"a script is str or bytes, not {type(script).__name__}")
        self._client: RedisCommands[S] = client
        self.script = script
        self.sha = hashlib.sha1(script.encode() if isinstance(script, str) else script).hexdigest()

    def __call__(
        self, keys: Sequence[Arg] = (), args: Sequence[Arg] = (), *, timeout: Timeout = UNSET,
    ) -> Any:
        """The script's reply for ``keys`` and ``args``."""
        try:
            return self._client.evalsha(self.sha, keys, *args, timeout=timeout)
        except NoScriptError:
            pass
        return self._client.eval(self.script, keys, *args, timeout=timeout)


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

    def __init__(self, client: RedisCommands[S], kind: Kind, names: Sequence[Arg], timeout: Timeout):
        if not names:
            raise ValueError("a subscription needs at least one channel or pattern")
        self._client: RedisCommands[S] = client
        command = SUBSCRIBE[kind]
        args = encode_command(command, *names)
        self._names = {(kind, cast(bytes, name)) for name in cast("list[Value]", parse(args))[1:]}
        self._request: StreamRequest[Message[S] | None] = StreamRequest(command, args, self._message)
        self._timeout = pick_timeout(timeout, client.timeout)
        self._messages: Generator[Message[S] | None, None, None] | None = None
        self._closed = False

    def _message(self, raw: bytes) -> Message[S] | None:
        """A push as the message it carries, as it came (bytes: ``__next__`` decodes
        it, so a message that is not text fails alone); None for the server's
        confirmation."""
        push = cast("list[Any]", parse(raw))
        kind = push[0]
        if kind in _CONFIRMATIONS:
            return None
        if kind == b"pmessage":
            return Message(push[2], push[3], push[1])
        return Message(push[1], push[2])

    def _resubscribing(self) -> Generator[Message[S] | None, None, None]:
        """:meth:`_following`'s items; the subscription's names are free for another once
        it ends, however it ends (left, failed, or collected unclosed)."""
        following = self._following()
        try:
            for item in following:
                yield item
        finally:
            try:
                following.close()  # unsubscribes now, not when collected
            finally:
                self._client._live_names -= self._names

    def _following(self) -> Generator[Message[S] | None, None, None]:
        """The stream's items (None for each confirmation), subscribing again after a lost
        connection."""
        client = self._client
        series: Series | None = None
        while True:
            items = client.stream(self._request, self._timeout, None)
            try:
                for item in items:
                    if item is None:
                        series = None
                    yield item
                return
            except DualioError as exc:
                if client.retry is None or client.closed or not may_retry(exc, True):
                    raise
                series = series or client.retry.series()
                wait = series.next_delay(exc)
                log.info("a subscription lost its connection (%s): subscribing again in %.3fs", exc, wait)
                client.pause(wait)
            finally:
                items.close()

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
        """The next message. With ``decode_responses``, one that is not UTF-8 raises a
        ProtocolError for itself, and the subscription goes on: the next call gives the
        next message."""
        messages = self._started()
        while True:
            message = messages.__next__()
            if message is not None:
                if self._client.decode_responses:
                    return Message(*cast("list[Any]", _text(builtins.list(message))))
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

