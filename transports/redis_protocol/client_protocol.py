"""The Redis protocol (RESP3), client side, as the wire interface
(:class:`dualio_transports.wire.protocol.WireProtocol`) has it (no I/O).

Replies name no command: they come in the order the commands were written
(``Matching.IN_ORDER``), for commands, batches of them (one call answered by a reply per
command) and keepalive PINGs. A subscription (SUBSCRIBE, PSUBSCRIBE or SSUBSCRIBE, a
stream call) is answered in that order too: by an error reply, or by the server's
``subscribe`` confirmations of its names, the last of which is its first item (a
:data:`MessageKind.SUBSCRIBED`). From then on it is fed by the server's pushes, which
name its channel or pattern (:mod:`.subscriptions`): each ``message``, ``pmessage`` or
``smessage`` push is an item of the subscription that holds it (its payload is the whole
push, as :func:`~.resp.parse` reads it), and the ``unsubscribe`` confirmations of all its
names end it. A ``sunsubscribe`` nobody asked for (a cluster node whose slot moved away)
ends its shard subscription with :class:`~.errors.ShardMovedError`; a shard subscription
given up ends its connection (:meth:`RedisProtocol.cancel` says why). Other pushes
(client-tracking invalidations, a channel nobody here subscribes to) are dropped.

The handshake is ``AUTH`` (when a password is given), ``HELLO 3``, ``CLIENT SETNAME``
(when a name is given) and ``SELECT`` (for a database other than 0), written together;
the protocol reads their replies itself: HELLO's map must say protocol 3, the others
answer OK. A server that does not know HELLO (before Redis 6) speaks RESP2 from then on
(:attr:`RedisProtocol.resp`): the same replies, without maps, sets and pushes, so the
commands work and a subscription is refused (a RESP2 connection that subscribes takes no
other command).

Giving up a command sends nothing: its reply is read and dropped. A command the server
holds (:mod:`.commands`) cannot be given up without the connection. Giving up a
subscription unsubscribes its names; the confirmations end it.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, cast

from dualio_transports.redis_protocol import commands
from dualio_transports.redis_protocol.errors import (
    RedisError,
    ShardMovedError,
    handshake_error,
    redis_error,
    refuses_hello,
)
from dualio_transports.redis_protocol.resp import (
    BULK_LENGTHS,
    BULK_STRING,
    ERRORS,
    PUSH,
    ErrorReply,
    ReplyReader,
    Value,
    encode_command,
    parse,
)
from dualio_transports.redis_protocol.subscriptions import Kind, Subscriptions
from dualio_transports.redis_protocol.tracking import ClientCache
from dualio_transports.wire.errors import (
    DualioError,
    FrameTooLarge,
    ProtocolError,
    UsageError,
    VersionMismatch,
)
from dualio_transports.wire.protocol import (
    HANDSHAKE_DONE,
    HANDSHAKE_KEY,
    IN_ORDER,
    CallKind,
    HandshakeDone,
    Matching,
    Message,
)

if TYPE_CHECKING:
    from dualio_transports.wire.protocol import WireProtocol

log = logging.getLogger("dualio.client")

MAX_KEY = 1 << 20
"""Calls one connection may have in flight (a key is a call's while its reply is due)."""


class MessageKind(Enum):
    HANDSHAKE_REPLY = "handshake reply"
    REPLY = "reply"
    ERROR_REPLY = "error reply"
    SUBSCRIBED = "subscribe confirmation"
    PUSH_ITEM = "push item"
    PUSH_END = "push end"

    __hash__ = object.__hash__  # looked up per message


class State(Enum):
    HANDSHAKING = "handshaking"
    OPEN = "open"
    CLOSED = "closed"


_ITEM, _FINAL = False, True
ACCEPTS: dict[CallKind, dict[MessageKind, bool]] = {
    CallKind.UNARY: {MessageKind.REPLY: _FINAL, MessageKind.ERROR_REPLY: _FINAL},
    CallKind.PING: {MessageKind.REPLY: _FINAL, MessageKind.ERROR_REPLY: _FINAL},
    CallKind.STREAM: {
        MessageKind.SUBSCRIBED: _ITEM, MessageKind.PUSH_ITEM: _ITEM, MessageKind.PUSH_END: _FINAL,
        MessageKind.ERROR_REPLY: _FINAL,
    },
    CallKind.HANDSHAKE: {},
}
"""For each kind of call: which messages answer it, and whether each is final."""
SUBSCRIBING: dict[str, Kind] = {"SUBSCRIBE": "channel", "PSUBSCRIBE": "pattern", "SSUBSCRIBE": "shard"}
"""The commands that start a subscription, and what they name."""
UNSUBSCRIBE: dict[Kind, str] = {"channel": "UNSUBSCRIBE", "pattern": "PUNSUBSCRIBE", "shard": "SUNSUBSCRIBE"}
UNSUBSCRIBING = frozenset(UNSUBSCRIBE.values())
_SPECIAL = frozenset({*SUBSCRIBING, *UNSUBSCRIBING, *commands.HELD, *commands.HELD_WITH_BLOCK})
"""The commands :meth:`RedisProtocol.request` has more to do for than send them."""
_ORDINARY: set[str] = set()
"""Names of commands :meth:`RedisProtocol.request` found it has only to send, as called."""
_MAX_ORDINARY = 1024  # names are the program's: a few dozen, unless it makes them up
_REPLY, _ERROR_REPLY = MessageKind.REPLY, MessageKind.ERROR_REPLY
_PUSH_ITEMS: dict[bytes, tuple[Kind, int]] = {
    b"message": ("channel", 3), b"pmessage": ("pattern", 4), b"smessage": ("shard", 3),
}  # a push's kind of name; its length
_PUSH_ENDS: dict[bytes, Kind] = {
    b"unsubscribe": "channel", b"punsubscribe": "pattern", b"sunsubscribe": "shard",
}
_PUSH_STARTS: dict[bytes, Kind] = {b"subscribe": "channel", b"psubscribe": "pattern", b"ssubscribe": "shard"}
PING = encode_command("PING")

HandshakeCheck = Callable[[Value], DualioError | None]


def _check_hello(value: Value) -> DualioError | None:
    if not isinstance(value, dict):
        return ProtocolError(f"the server answered HELLO with a {type(value).__name__}, not a map")
    proto = value.get(b"proto")
    if proto != 3:
        return VersionMismatch(f"the server answered HELLO 3 with protocol {proto!r}")
    return None


def _check_ok(command: str) -> HandshakeCheck:
    def check(value: Value) -> DualioError | None:
        return None if value == b"OK" else ProtocolError(f"the server answered {command} with {value!r}")

    return check


class RedisDecoder:
    """A connection's bytes in, the protocol's messages out
    (a :class:`~dualio_transports.wire.protocol.Decoder`; no large-message buffer)."""

    __slots__ = ("_protocol", "reader")
    large = None

    def __init__(self, protocol: RedisProtocol, reader: ReplyReader) -> None:
        self._protocol = protocol
        self.reader = reader

    def feed(self, data: bytes) -> Sequence[Message]:
        reader = self.reader
        protocol = self._protocol
        messages: list[Message] = []
        if not (reader._buffer or protocol._handshake_replies or reader._broken) and data.__class__ is bytes:
            # Bulk strings of under 256 bytes, whole, read here as the reader reads them,
            # straight into messages: most replies (a GET's) are one.
            pos = 0
            size = len(data)
            lengths = BULK_LENGTHS
            append = messages.append
            max_line, max_bulk = reader.max_line, reader.max_bulk
            while pos < size and data[pos] == BULK_STRING:
                newline = data.find(b"\n", pos)
                end = newline + 1
                length = lengths.get(data[pos:end])
                if length is None or newline - pos - 2 > max_line:
                    break
                if length >= 0:
                    end += length + 2
                    if length > max_bulk or end > size or data[end - 1] != 10 or data[end - 2] != 13:
                        break
                append((_REPLY, IN_ORDER, data[pos:end]))
                pos = end
            if pos == size:
                return messages
            data = data[pos:]
        try:
            replies = reader.feed(data)
        except FrameTooLarge as exc:  # the replies ahead of the large one reach their calls first
            exc.before = messages + self._messages(exc.before)  # type: ignore[arg-type]
            raise
        messages.extend(self._messages(replies))
        return messages

    def _messages(self, replies: Sequence[tuple[int, bytes]]) -> list[Message]:
        protocol = self._protocol
        messages: list[Message] = []
        for kind, raw in replies:
            if kind == PUSH or protocol._handshake_replies:
                message = protocol.message(kind, raw)
                if message is not None:
                    messages.append(message)
            elif kind in ERRORS:
                messages.append((_ERROR_REPLY, IN_ORDER, raw))
            else:
                messages.append((_REPLY, IN_ORDER, raw))
        return messages

    def room(self) -> memoryview | None:
        return None

    def received(self, count: int) -> Sequence[Message]:
        raise ValueError("a Redis connection's decoder has no room to receive into")


class RedisProtocol:
    """One Redis connection's state: a :class:`~dualio_transports.wire.protocol.WireProtocol`.

    ``username`` is used with ``password`` only (``default`` when not given); ``db``,
    when not 0, is SELECTed in the handshake; ``readonly`` sends READONLY there (a
    cluster replica then answers reads of its slots). The reader's bounds are
    :class:`~.resp.ReplyReader`'s keyword arguments.
    """

    __slots__ = (
        "_cache", "_checks", "_client_name", "_db", "_handshake_replies", "_held", "_password", "_readonly",
        "_username", "decoder", "resp", "state", "subscriptions",
    )
    matching = Matching.IN_ORDER
    ordered_kinds = frozenset({CallKind.UNARY, CallKind.PING, CallKind.STREAM})
    max_key = MAX_KEY
    accepts = ACCEPTS
    error_kind = MessageKind.ERROR_REPLY

    def __init__(
        self,
        *,
        username: str | None = None,
        password: str | None = None,
        client_name: str | None = None,
        db: int = 0,
        cache: ClientCache | None = None,
        readonly: bool = False,
        **bounds: int,
    ) -> None:
        if username is not None and password is None:
            raise ValueError("a username is sent with a password only")
        if db < 0:
            raise ValueError(f"db must be 0 or more, not {db}")
        self.decoder = RedisDecoder(self, ReplyReader(**bounds))
        self.state = State.HANDSHAKING
        self.subscriptions = Subscriptions()
        self._username = username
        self._password = password
        self._client_name = client_name
        self._db = db
        self._readonly = readonly
        self._checks: deque[tuple[str, HandshakeCheck]] = deque()
        self._handshake_replies = 0  # handshake replies the decoder has still to see
        self.resp = 3
        """The protocol's version the server speaks: 2 when it refused HELLO (before Redis 6)."""
        self._held: set[int] = set()  # keys of commands the server holds
        self._cache = cache
        if cache is not None:
            cache.flush(active=False)  # a new connection: whatever changed meanwhile was missed

    @property
    def is_open(self) -> bool:
        return self.state is State.OPEN

    # -- the handshake -------------------------------------------------------------

    def hello(self) -> bytes:
        data = b""
        checks: list[tuple[str, HandshakeCheck]] = []
        if self._password is not None:  # before HELLO, which a server before Redis 6 refuses
            credentials = [self._password] if self._username is None else [self._username, self._password]
            data += encode_command("AUTH", *credentials)
            checks.append(("AUTH", _check_ok("AUTH")))
        data += encode_command("HELLO", 3)
        checks.append(("HELLO", _check_hello))
        if self._client_name is not None:
            data += encode_command("CLIENT", "SETNAME", self._client_name)
            checks.append(("CLIENT SETNAME", _check_ok("CLIENT SETNAME")))
        if self._db:
            data += encode_command("SELECT", self._db)
            checks.append(("SELECT", _check_ok("SELECT")))
        if self._readonly:
            data += encode_command("READONLY")
            checks.append(("READONLY", _check_ok("READONLY")))
        if self._cache is not None:
            data += encode_command("CLIENT", "TRACKING", "ON")
            checks.append(("CLIENT TRACKING", self._tracking))
        self._checks = deque(checks)
        self._handshake_replies = len(checks)
        return data

    def unrouted(self, kind: MessageKind, key: int, payload: bytes) -> DualioError | HandshakeDone | None:
        """A handshake reply (checked in turn; the last one's ``HANDSHAKE_DONE``), a push
        for a subscription no longer live (dropped), or a reply nobody asked for (a
        ProtocolError)."""
        if kind is MessageKind.HANDSHAKE_REPLY:
            return self._handshake_reply(payload)
        if kind is MessageKind.PUSH_ITEM or kind is MessageKind.PUSH_END:
            return None
        return ProtocolError(f"the server sent a {kind.value} nobody asked for: {payload[:60]!r}")

    def _tracking(self, value: Value) -> DualioError | None:
        """CLIENT TRACKING's answer: the cache is used from now on, on RESP3 only (a RESP2
        connection gets no pushes)."""
        if self._cache is not None:
            self._cache.flush(active=value == b"OK" and self.resp == 3)
        return None

    def _handshake_reply(self, payload: bytes) -> DualioError | HandshakeDone | None:
        if not self._checks:
            return ProtocolError("a handshake reply after the handshake")
        command, check = self._checks.popleft()
        try:
            value = parse(payload)
        except ProtocolError as exc:
            return exc
        if isinstance(value, ErrorReply):
            if command == "HELLO" and refuses_hello(value):
                self.resp = 2  # RESP2's replies are RESP3's without maps, sets, pushes and the rest
            elif command == "CLIENT TRACKING":
                self._tracking(value)  # refused: the client goes on, without its cache
            else:
                return handshake_error(command, value)
        else:
            failure = check(value)
            if failure is not None:
                return failure
        if self._checks:
            return None
        self.state = State.OPEN
        log.debug("handshake done: RESP%d, database %d", self.resp, self._db)
        return HANDSHAKE_DONE

    # -- messages ------------------------------------------------------------------

    def message(self, kind: int, raw: bytes) -> Message | None:
        """The message a whole reply is (its RESP3 type byte and its bytes), or None
        when it is dropped."""
        if kind != PUSH and not self._handshake_replies:
            return (_ERROR_REPLY if kind in ERRORS else _REPLY, IN_ORDER, raw)
        if kind == PUSH:
            return self._push(raw)
        self._handshake_replies -= 1
        return (MessageKind.HANDSHAKE_REPLY, HANDSHAKE_KEY, raw)

    def _push(self, raw: bytes) -> Message | None:
        push = parse(raw)
        if not push or not isinstance(push[0], bytes):
            return None
        name = push[0].lower()
        if name == b"invalidate":
            if self._cache is not None:
                self._cache.invalidated(push[1] if len(push) > 1 else None)
            return None
        channel = push[1] if len(push) > 1 else None
        if not isinstance(channel, bytes):
            return None
        item = _PUSH_ITEMS.get(name)
        if item is not None:
            kind, length = item
            key = self.subscriptions.owner(kind, channel) if len(push) == length else None
            return None if key is None else (MessageKind.PUSH_ITEM, key, raw)
        ended = _PUSH_ENDS.get(name)
        if ended is not None:
            key = self.subscriptions.unsubscribed(ended, channel)
            if key is not None:
                return (MessageKind.PUSH_END, key, raw)
            key = self.subscriptions.dropped(ended, channel) if ended == "shard" else None
            return None if key is None else (_ERROR_REPLY, key, raw)  # decode_error tells it apart
        started = _PUSH_STARTS.get(name)
        if started is not None and self.subscriptions.confirmed(started, channel) is not None:
            return (MessageKind.SUBSCRIBED, IN_ORDER, raw)
        return None

    # -- calls ---------------------------------------------------------------------

    def request(self, key: int, method: str, args: bytes) -> bytes:
        """``args``, the whole command (:func:`~.resp.encode_command`), named ``method``.
        UNSUBSCRIBE and PUNSUBSCRIBE are not sent as commands: giving up a
        subscription sends them (their confirmations are pushes, and no reply in order)."""
        if self._held:
            self._held.discard(key)
        if method in _ORDINARY:
            return args
        name = method.upper()
        if name not in _SPECIAL:
            if len(_ORDINARY) < _MAX_ORDINARY:
                _ORDINARY.add(method)
            return args
        if name in SUBSCRIBING:
            if self.resp == 2:
                raise UsageError(f"{name} needs RESP3 (Redis 6 or newer): on RESP2 a subscribed "
                                 "connection takes no other command")
            self.subscriptions.add(key, SUBSCRIBING[name], parse(args)[1:])
        elif name in UNSUBSCRIBING:
            raise UsageError(f"{name} is not a command here: give up the subscription instead")
        elif commands.held(name, args):
            self._held.add(key)
        return args

    def probe(self, key: int) -> bytes:
        self._held.discard(key)
        return PING

    def cancel(self, key: int) -> bytes | None:
        """Nothing for a command (its reply is dropped); None for one the server holds, and
        for a shard subscription (a cluster node that no longer serves its slot answers
        SUNSUBSCRIBE with a MOVED error in the order of replies, which would be taken for
        a later command's: it is given up with its connection); the UNSUBSCRIBE of a
        subscription's channels (PUNSUBSCRIBE of its patterns)."""
        if key in self._held:
            return None
        names = self.subscriptions.leave(key)
        if not names:
            return b""
        kind = names[0][0]  # one command names one kind
        if kind == "shard":
            return None
        return encode_command(UNSUBSCRIBE[kind], *(name for _, name in names))

    def unsent(self, key: int) -> None:
        """A subscription whose SUBSCRIBE never left is confirmed by nobody; a held
        command that never left is not held."""
        self._held.discard(key)
        self.subscriptions.refused(key)

    def decode_error(self, key: int, payload: bytes) -> RedisError:
        if payload[:1] == b">":  # a shard subscription the server ended (:meth:`_push`)
            channel = cast("list[bytes]", parse(payload))[1].decode(errors="replace")
            return ShardMovedError(f"the server unsubscribed shard channel {channel}: its slot is another "
                                   "node's now")
        self.subscriptions.refused(key)
        error = parse(payload)
        text = error.text if isinstance(error, ErrorReply) else repr(error)
        return redis_error(text)

    @staticmethod
    def describe_kind(kind: Any) -> str:
        return str(kind.value) if isinstance(kind, MessageKind) else repr(kind)

    def goodbye(self) -> bytes:
        """Nothing: closing the connection is the goodbye (QUIT is deprecated since Redis 7.2)."""
        self.state = State.CLOSED
        return b""


if TYPE_CHECKING:
    def _is_a_wire_protocol(protocol: RedisProtocol) -> WireProtocol:
        return protocol  # mypy checks RedisProtocol against the wire interface here
