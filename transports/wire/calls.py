"""What happens to every call on one client connection, as a state machine (no I/O).

Every transport (blocking, anyio, asyncio, and the emulation adapter over the
blocking one) makes the same decisions about a call; they are made here, once:

- ids: each call gets an id no other live call has, with the *kind* of the call
  (unary, stream, ping); an id is not handed out again until the server's final
  frame for it has arrived, even after its caller gave up;
- routing: each incoming frame goes to the call it belongs to; a frame of the
  wrong kind for its call (a PONG for ``echo``, an item for a unary call, a
  RESPONSE for a stream) is a :class:`ProtocolError` that fails the connection;
- give-up: a call whose request never left is *released*; one that may have
  left is *abandoned* (the CANCEL bytes to send are returned, its late frames are
  dropped until the final one frees the id);
- failure: a broken connection fails every live call with one error;
- closing: whether a goodbye is due, and what a call on a closed connection raises;
- streams: items, end and error in one state, read with :meth:`CallState.next_item`;
- the texts of the errors, and how connect and handshake failures map to
  :class:`ConnectError`.

A transport only moves bytes, waits and times out. It registers a *wake*
function; the table calls it whenever a call has something new (an item, its
end, its error), and the transport wakes whoever waits on that call in its own
way (a condition, an event, a future). The transport keeps its waiter for a
call in :attr:`CallState.waiter`; the table never looks at it.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Callable
from enum import Enum
from typing import Generic, TypeVar

from dualio_transports.wire.client_protocol import (
    ClientProtocol,
    State,
    connection_ending,
    decode_error,
)
from dualio_transports.wire.errors import (
    CallCancelled,
    ClosedError,
    ConnectError,
    ConnectionLost,
    ConnectTimeout,
    DualioError,
    DualioTimeout,
    ProtocolError,
    UsageError,
)
from dualio_transports.wire.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    MAX_REQUEST_ID,
    Frame,
    FrameKind,
    encode_frame,
)

W = TypeVar("W")
log = logging.getLogger("dualio.client")

STREAM_BACKLOG = 256 * 1024
"""Bytes of stream items a connection buffers for one slow consumer before the
transport should stop reading (each item counts at least ``ITEM_COST``)."""
ITEM_COST = 64
WRITE_STALL_LIMIT = 10.0
"""Seconds a write may make no progress (the peer does not read) before the connection is
failed, on every transport, whatever the call's own timeout: a call without a timeout
is not held for ever by a peer that stopped reading."""
IDLE_CHECK_AFTER = 0.001
"""A connection that heard from the server this recently is not checked before a call
(a caller calling again at once pays no system call): a server that closed it within
that time is no different from one that closes it just after the request leaves."""


class CallKind(Enum):
    UNARY = "unary"
    STREAM = "stream"
    PING = "ping"
    HANDSHAKE = "handshake"

    __hash__ = object.__hash__  # looked up per frame; Enum's own hashes the name, in Python


class Next(Enum):
    """What :meth:`CallState.next_item` says when it has no item to give."""

    WAIT = "wait"  # nothing yet: wait for a wake, then ask again
    END = "end"  # the stream ended normally


# For each kind of call: which frames it accepts, and whether each is final.
_ITEM, _FINAL = False, True
_ACCEPTS: dict[CallKind, dict[FrameKind, bool]] = {
    CallKind.UNARY: {FrameKind.RESPONSE: _FINAL, FrameKind.ERROR: _FINAL},
    CallKind.STREAM: {
        FrameKind.STREAM_ITEM: _ITEM, FrameKind.STREAM_END: _FINAL, FrameKind.ERROR: _FINAL,
    },
    CallKind.PING: {FrameKind.PONG: _FINAL, FrameKind.ERROR: _FINAL},
    CallKind.HANDSHAKE: {},
}
_STREAM, _PING = CallKind.STREAM, CallKind.PING  # hot paths: an Enum class attribute costs a __getattr__ hook
_ERROR_FRAME = FrameKind.ERROR
_SERVER_KINDS = frozenset({
    FrameKind.WELCOME, FrameKind.RESPONSE, FrameKind.ERROR, FrameKind.STREAM_ITEM,
    FrameKind.STREAM_END, FrameKind.PONG, FrameKind.CLOSE,
})


# -- the error texts, written once --------------------------------------------------

def call_timeout() -> DualioTimeout:
    return DualioTimeout("the call timed out")


def item_timeout(timeout: float | None) -> DualioTimeout:
    return DualioTimeout(f"no stream item within {timeout}s")


def deadline_passed(request_left: bool) -> DualioTimeout:
    """What a call's deadline means: the call's timeout once its request left, else the
    write's (the request was taken back, or never began to leave)."""
    return call_timeout() if request_left else write_timeout()


def write_timeout() -> DualioTimeout:
    """The request did not leave by the call's deadline (it waited for the socket, for
    another writer, or for a worker): it was never sent."""
    return DualioTimeout("timed out writing the request")


def torn_write(why: str = "timed out") -> ConnectionLost:
    """The failure of a connection left with half a frame on the wire (``why``: what ended
    the write). The connection cannot carry another frame, but the client can: the next
    call connects anew, as after any lost connection."""
    return ConnectionLost(f"{why} in the middle of writing a frame: the connection cannot be used again")


def write_stalled() -> ConnectionLost:
    """The failure of a connection whose write made no progress for ``WRITE_STALL_LIMIT``:
    the peer is not reading."""
    return ConnectionLost(f"a write made no progress for {WRITE_STALL_LIMIT:g}s: the server is not reading")


def peer_closed() -> ConnectionLost:
    return ConnectionLost("the server closed the connection")


def broken(exc: BaseException) -> ConnectionLost:
    return ConnectionLost(f"the connection broke: {exc}")


def closed_by_user() -> ClosedError:
    return ClosedError("the connection was closed")


def cancelled() -> CallCancelled:
    return CallCancelled("the call was cancelled")


def cancelled_before_sent() -> CallCancelled:
    return CallCancelled("the call was cancelled before it was sent")


def cancelled_while_sent() -> CallCancelled:
    return CallCancelled("the call was cancelled while its request was written")


def connect_failed(host: str, port: int, exc: BaseException) -> ConnectError:
    """A failure to open the socket (TCP or TLS) as the one error every transport raises."""
    if isinstance(exc, ConnectError):
        return exc
    if isinstance(exc, TimeoutError):
        return ConnectTimeout(f"connecting to {host}:{port} timed out")
    return ConnectError(f"cannot connect to {host}:{port}: {exc}")


def handshake_failed(exc: BaseException) -> ConnectError:
    """A failed HELLO/WELCOME exchange as the one error every transport raises."""
    if isinstance(exc, ConnectError):
        return exc
    if isinstance(exc, TimeoutError):
        return ConnectTimeout("the server did not answer the handshake in time")
    if isinstance(exc, ClosedError):
        return ConnectError(f"the server closed the connection during the handshake: {exc}")
    return ConnectError(f"handshake failed: {exc}")


# -- deadlines ---------------------------------------------------------------------

def deadline(timeout: float | None, now: float | None = None) -> float:
    """The ``time.monotonic()`` by which to give up, ``timeout`` from ``now`` (default:
    now); ``math.inf`` for no timeout."""
    if timeout is None:
        return math.inf
    return (time.monotonic() if now is None else now) + timeout


def remaining(until: float) -> float | None:
    """Seconds left before ``until`` (may be <= 0); None when there is no deadline."""
    return None if until == math.inf else until - time.monotonic()


def timeout_left(until: float) -> float | None:
    """The timeout of a try that must end by ``until``; raises :func:`call_timeout` when
    no time is left."""
    if until == math.inf:
        return None
    left = until - time.monotonic()
    if left <= 0:
        raise call_timeout()
    return left


# -- calls ---------------------------------------------------------------------------

class CallState(Generic[W]):
    """One call: its id and kind, and what has arrived for it.

    ``done`` is set once: by the final frame (``result`` or ``error``), by the
    connection's failure (``error``), or by the caller giving up.
    """

    __slots__ = (
        "abandoned", "backlog", "done", "error", "id", "items", "kind", "method", "result", "waiter",
    )

    def __init__(self, rid: int, kind: CallKind, method: str) -> None:
        self.id = rid
        self.kind = kind
        self.method = method
        self.done = False
        self.abandoned = False
        self.result: bytes = b""
        self.error: DualioError | None = None
        self.items: deque[bytes] | None = deque() if kind is _STREAM else None
        self.backlog = 0  # bytes of items not taken yet (see STREAM_BACKLOG)
        self.waiter: W | None = None

    def outcome(self) -> bytes:
        """The answer of a finished call, or its error raised."""
        if self.error is not None:
            raise self.error
        return self.result

    def next_item(self) -> bytes | Next:
        """A stream's next item; ``Next.WAIT`` when none has arrived yet; ``Next.END``
        at its end. Raises the stream's error once the items before it are taken."""
        items = self.items
        if items:
            return items.popleft()
        if not self.done:
            return Next.WAIT
        if items:  # arrived together with the end, from another thread
            return items.popleft()
        if self.error is not None:
            raise self.error
        return Next.END

    def __repr__(self) -> str:
        return f"<{self.kind.value} call {self.id} {self.method}>"


def _describe(state: CallState[W]) -> str:
    if state.kind is CallKind.PING:
        return f"ping {state.id}"
    return f"{state.kind.value} call {state.id} ({state.method})"


def _nothing(state: CallState[W]) -> None:
    pass


class CallTable(Generic[W]):
    """Every live call of one connection, and every decision about them.

    Not thread-safe by itself: the blocking transport holds its lock around every
    use of the table and of its calls' state; the async transports use it from
    their loop only.
    """

    __slots__ = (
        "_decoder", "_next_id", "_probe", "_probe_sent", "_wake", "backlogged", "closing",
        "dropped", "failure", "handshake", "keepalive", "last_heard", "live", "protocol",
    )

    def __init__(
        self,
        *,
        token: str | None = None,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
        wake: Callable[[CallState[W]], None] = _nothing,
        keepalive: float | None = None,
    ) -> None:
        self.protocol = ClientProtocol(token=token, max_frame_size=max_frame_size)
        self.keepalive = keepalive
        self.last_heard = time.monotonic()  # when bytes last arrived
        self._probe: CallState[W] | None = None  # the keepalive PING in flight
        self._probe_sent = 0.0
        self._decoder = self.protocol.decoder
        self._wake = wake
        self._next_id = 1
        self.handshake: CallState[W] = CallState(0, CallKind.HANDSHAKE, "handshake")
        self.live: dict[int, CallState[W]] = {0: self.handshake}
        """Every live call by id (the handshake's 0 until WELCOME); read-only outside the table."""
        self.failure: DualioError | None = None
        self.closing = False
        self.backlogged: dict[CallState[W], None] = {}  # streams over STREAM_BACKLOG: stop reading
        self.dropped = 0  # frames that arrived for calls whose callers had given up

    # -- state -------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self.closing or self.failure is not None

    @property
    def in_flight(self) -> int:
        """Ids in use, abandoned ones included (the handshake is not a call)."""
        return len(self.live) - (0 in self.live)

    @property
    def idle(self) -> bool:
        """No call is in flight, so no caller reads, and the server has been silent for
        ``IDLE_CHECK_AFTER``: whatever it sent meanwhile (a goodbye, its end of the
        stream) waits unread. A transport without a reader of its own reads it before
        it starts a call."""
        return not self.live and time.monotonic() - self.last_heard >= IDLE_CHECK_AFTER

    def check_usable(self) -> None:
        """ClosedError unless a new call may start. Nothing was sent, so the error is as
        retryable as what ended the connection: a connection that failed (and was then
        closed by the client replacing it) may be tried again elsewhere, one its user
        closed may not."""
        if self.failure is not None:
            error = ClosedError(f"the connection is closed: {self.failure}")
            error.retryable = self.failure.retryable
            raise error from self.failure
        if self.closing:
            raise ClosedError("the connection is closed")

    def handshake_outcome(self) -> None:
        """After the handshake call is done: nothing, or the ConnectError to raise."""
        error = self.handshake.error
        if error is not None:
            failure = handshake_failed(error)
            if failure is error:
                raise failure
            raise failure from error

    # -- starting and giving up ----------------------------------------------------

    def hello(self) -> bytes:
        return self.protocol.hello()

    def start(self, kind: CallKind, method: str, args: bytes) -> tuple[CallState[W], bytes]:
        """A new call and the bytes of its request (a PING for ``CallKind.PING``)."""
        if self.closing or self.failure is not None:
            self.check_usable()
        calls = self.live
        rid = self._next_id
        if rid < MAX_REQUEST_ID and rid not in calls:
            self._next_id = rid + 1
        else:
            rid = self._new_id()
        if kind is _PING:
            data = encode_frame(FrameKind.PING, rid)
        else:
            data = self.protocol.request(rid, method, args)
        state: CallState[W] = CallState(rid, kind, method)
        calls[rid] = state
        return state, data

    def _new_id(self) -> int:
        calls = self.live
        if len(calls) >= MAX_REQUEST_ID:
            raise UsageError(f"{MAX_REQUEST_ID} calls are in flight on one connection: no id is free")
        rid = self._next_id
        while rid in calls or rid == 0:
            rid = rid + 1 if rid < MAX_REQUEST_ID else 1
        self._next_id = rid + 1 if rid < MAX_REQUEST_ID else 1
        return rid

    def release(self, state: CallState[W]) -> None:
        """Forget a call whose request bytes were never written: its id is free at once."""
        if self.live.get(state.id) is state:
            del self.live[state.id]
        state.done = True

    def unsent(self, state: CallState[W], maybe_on_wire: bool) -> bytes:
        """The write of ``state``'s request failed, timed out or was cancelled. If the
        request certainly never left whole, or the connection has failed (no answer can
        come), the call is released; if it may be on the wire, it is given up: the
        CANCEL bytes to send are returned, and its id stays taken until its answer."""
        if not maybe_on_wire or self.failure is not None:
            self.release(state)
            return b""
        return self.give_up(state)

    def give_up(self, state: CallState[W], error: DualioError | None = None) -> bytes:
        """The caller no longer waits for ``state`` (cancelled, timed out, left a stream).

        A call still live ends with ``error`` (CallCancelled by default) and its
        waiter is woken. Returns the CANCEL bytes to send, or ``b""`` when there is
        nothing to tell the server (the call had ended, or the connection has).
        """
        if state.items is not None:
            state.items.clear()
            state.backlog = 0
            self.backlogged.pop(state, None)
        if state.done:
            return b""
        state.error = error or cancelled()
        state.done = True  # after the error: a reader in another thread sees both
        self._wake(state)
        if self.failure is not None:
            self.live.pop(state.id, None)
            return b""
        state.abandoned = True  # also while closing: its answer may still arrive
        if self.closing:
            return b""
        log.debug("%s given up: CANCEL sent, its late frames will be dropped", _describe(state))
        return encode_frame(FrameKind.CANCEL, state.id)

    # -- incoming bytes ------------------------------------------------------------

    def receive(self, data: bytes) -> DualioError | None:
        """Route the frames in ``data`` to their calls and wake them.

        Returns the connection's failure if these bytes ended it (a protocol
        error, a CLOSE or an ERROR about the whole connection), else None; every
        live call has then been failed with it.
        """
        if self.failure is not None:
            return self.failure
        self.last_heard = time.monotonic()
        try:
            frames = self._decoder.feed(data)
        except ProtocolError as exc:
            return self.fail(exc)
        return self._route(frames)

    def room(self) -> memoryview | None:
        """While a large frame is arriving, where the rest of its payload goes: a
        transport may receive into it and then call :meth:`received`."""
        if self.failure is not None:
            return None
        return self._decoder.room()

    def received(self, count: int) -> DualioError | None:
        """``count`` bytes were received into :meth:`room`; as :meth:`receive`."""
        if self.failure is not None:
            return self.failure
        self.last_heard = time.monotonic()
        return self._route(self._decoder.received(count))

    def _route(self, frames: list[Frame]) -> DualioError | None:
        calls = self.live
        wake = self._wake
        for kind, rid, payload in frames:
            state = calls.get(rid)
            if state is None or rid == 0:
                ending = self._unrouted(kind, rid, payload)
                if ending is not None:
                    return self.fail(ending)
                continue
            final = _ACCEPTS[state.kind].get(kind)
            if final is None:
                return self.fail(self._wrong_kind(kind, state))
            if not final:
                if state.abandoned:
                    self.dropped += 1
                    continue
                state.items.append(payload)  # type: ignore[union-attr]
                state.backlog += len(payload) + ITEM_COST
                if state.backlog > STREAM_BACKLOG:
                    self.backlogged[state] = None
                wake(state)
                continue
            del calls[rid]
            if state.abandoned:
                self.dropped += 1
                continue
            if kind is _ERROR_FRAME:
                state.error = decode_error(payload)
            else:
                state.result = payload
            state.done = True
            wake(state)
        return None

    def _unrouted(self, kind: FrameKind, rid: int, payload: bytes) -> DualioError | None:
        """A frame with id 0, or for no live call: the failure it means, or None."""
        if kind not in _SERVER_KINDS:
            return ProtocolError(f"server sent a {kind.name} frame")
        if rid != 0:
            if self.protocol.state is State.HANDSHAKING:
                return ProtocolError(f"{kind.name} frame before the handshake completed")
            return ProtocolError(f"{kind.name} frame for request {rid}, which is not open")
        if kind is FrameKind.WELCOME:
            try:
                self.protocol.welcome(payload)
            except ProtocolError as exc:
                return exc
            handshake = self.live.pop(0, None)
            log.debug("handshake done: server's maximum frame %d bytes", self.protocol.server_max_frame_size)
            if handshake is not None:
                handshake.done = True
                self._wake(handshake)
            return None
        if kind in (FrameKind.ERROR, FrameKind.CLOSE):
            return connection_ending(kind, payload)
        return ProtocolError(f"{kind.name} frame with id 0")

    @staticmethod
    def _wrong_kind(kind: FrameKind, state: CallState[W]) -> ProtocolError:
        return ProtocolError(f"server answered {_describe(state)} with a {kind.name} frame")

    # -- the end -------------------------------------------------------------------

    # -- keepalive -----------------------------------------------------------------

    def keepalive_due(self) -> bytes:
        """A keepalive PING to send now, or ``b""``.

        A PING goes out when a call is in flight (one whose caller gave up
        included) and nothing has arrived for ``keepalive`` seconds; when that
        PING has had no answer for another ``keepalive`` seconds the peer is
        taken for dead and the connection fails (``ConnectionLost``). So a dead
        peer is found within two ``keepalive`` intervals of its last word, even
        by a call without a timeout. An idle connection is never PINGed, on any
        transport: it is checked before the next call instead (:attr:`idle`), so
        whether a transport has a reader while idle changes nothing. Transports
        ask whenever they wake up, and at least every :meth:`keepalive_wait`
        seconds while anyone waits.
        """
        if self.keepalive is None or self.closing or self.failure is not None:
            return b""
        now = time.monotonic()
        probe = self._probe
        if probe is not None:
            if not probe.done:
                if now - self._probe_sent >= self.keepalive:
                    self.fail(ConnectionLost(
                        f"the server did not answer a keepalive PING within {self.keepalive:g}s"
                    ))
                return b""
            self._probe = None
        if (now - self.last_heard < self.keepalive or self.protocol.state is not State.OPEN
                or not self.live):
            return b""
        probe, data = self.start(CallKind.PING, "keepalive", b"")
        self._probe, self._probe_sent = probe, now
        return data

    def keepalive_wait(self) -> float | None:
        """Seconds until :meth:`keepalive_due` may have something to do; None: never."""
        check = self.next_keepalive_check()
        return None if check is None else max(check - time.monotonic(), 0.0)

    def wait_until(self, until: float) -> float:
        """How long a wait for news may last: until ``until``, or the next keepalive
        check (:meth:`keepalive_wait`) if that comes first."""
        check = self.next_keepalive_check()
        if check is None or until <= check:
            return until
        now = time.monotonic()
        return check if check > now else min(now, until)

    def next_keepalive_check(self) -> float | None:
        """The ``time.monotonic()`` of the next keepalive check; None: never."""
        keepalive = self.keepalive
        if keepalive is None:
            return None
        probe = self._probe
        if probe is not None and not probe.done:
            return self._probe_sent + keepalive
        if not self.live:
            return time.monotonic() + keepalive  # idle: nothing to check, look again later
        return self.last_heard + keepalive

    def holds_reading(self, state: CallState[W]) -> bool:
        """Whether a caller waiting for ``state`` must not read now: another stream's
        consumer is behind (see STREAM_BACKLOG), and reading would only grow its
        backlog. The caller waits until that consumer catches up, or its own deadline."""
        return bool(self.backlogged) and state not in self.backlogged

    def next_item(self, state: CallState[W]) -> bytes | Next:
        """:meth:`CallState.next_item`, keeping count of the stream's backlog: once it
        is back under half of ``STREAM_BACKLOG`` the stream no longer holds reading."""
        item = state.next_item()
        if item.__class__ is bytes:
            state.backlog -= len(item) + ITEM_COST
            if state.backlog <= STREAM_BACKLOG // 2 and self.backlogged:
                self.backlogged.pop(state, None)
        return item

    def fail(self, error: DualioError) -> DualioError:
        """The connection is unusable: every live call ends with its first failure."""
        self.backlogged.clear()
        if self.failure is None:
            self.failure = error
            log.debug("connection failed, %d calls live: %s: %s", self.in_flight, type(error).__name__, error)
        error = self.failure
        live = list(self.live.values())
        self.live.clear()
        for state in live:
            if not state.done:
                state.error = error
                state.done = True
                self._wake(state)
        return error

    def close(self) -> bytes:
        """No call may start from now on. The goodbye (CLOSE) bytes to send, or ``b""``
        when none is due (closed already, or the connection has failed)."""
        if self.closing:
            return b""
        self.closing = True
        return b"" if self.failure is not None else self.protocol.close()


class OnCallTable(Generic[W]):
    """What every transport reports straight from its call table."""

    __slots__ = ()
    _table: CallTable[W]

    @property
    def closed(self) -> bool:
        table = self._table
        return table.closing or table.failure is not None

    @property
    def failure(self) -> DualioError | None:
        """What ended the connection, if it has failed."""
        return self._table.failure

    @property
    def in_flight(self) -> int:
        """Request ids in use, those of calls that gave up included."""
        return self._table.in_flight

    @property
    def dropped(self) -> int:
        """Frames that arrived for calls that had already given up."""
        return self._table.dropped

    def check_usable(self) -> None:
        """:meth:`CallTable.check_usable`: ClosedError unless a new call may start."""
        self._table.check_usable()
