"""What happens to every call on one client connection, as a state machine (no I/O).

Every transport (blocking, anyio, asyncio, and the emulation adapter over the
blocking one) makes the same decisions about a call, whatever the protocol
(:mod:`dualio_transports.wire.protocol`); they are made here, once:

- keys: each call gets a key no other live call has, with the *kind* of the call
  (unary, stream, ping); a key is not handed out again until the final answer for it
  has arrived, even after its caller gave up;
- routing: each incoming message goes to the call it belongs to (by the key it names,
  or, for a protocol answered in order, to the oldest call waiting); a message of the
  wrong kind for its call (a PONG for ``echo``, an item for a unary call) is a
  :class:`ProtocolError` that fails the connection;
- give-up: a call whose request never left is *released*; one that may have left is
  *abandoned* (what the protocol sends for it is returned, and its late answers are
  dropped until the final one frees the key);
- failure: a broken connection fails every live call with one error;
- closing: whether a goodbye is due, and what a call on a closed connection raises;
- streams: items, end and error in one state, read with :meth:`CallState.next_item`;
- keepalive: when a silent connection is probed, and when the probe's silence fails it.

The table never reads a clock: whoever tells it of bytes or asks it about time passes
the time (``now``, a ``time.monotonic()`` instant), so its tests choose the time.

A transport only moves bytes, waits and times out. It registers a *wake*
function; the table calls it whenever a call has something new (an item, its
end, its error), and the transport wakes whoever waits on that call in its own
way (a condition, an event, a future). The transport keeps its waiter for a
call in :attr:`CallState.waiter`; the table never looks at it.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, Generic, TypeVar

from dualio_transports.wire import failures
from dualio_transports.wire.deadline import NO_DEADLINE
from dualio_transports.wire.errors import (
    ClosedError,
    ConnectionLost,
    DualioError,
    FrameTooLarge,
    ProtocolError,
    UsageError,
)
from dualio_transports.wire.protocol import (
    HANDSHAKE_DONE,
    HANDSHAKE_KEY,
    IN_ORDER,
    CallKind,
    Matching,
    Message,
    WireProtocol,
)

W = TypeVar("W")
log = logging.getLogger("dualio.client")

STREAM_BACKLOG = 256 * 1024
"""Bytes of stream items a connection buffers for one slow consumer before the
transport should stop reading (each item counts at least ``ITEM_COST``)."""
ITEM_COST = 64
OWED_LIMIT = 64 * 1024
"""Bytes of CANCELs owed by procedures closed half-way that a connection keeps for a
driver to send (beyond it they are dropped: a CANCEL is only advice)."""
IDLE_CHECK_AFTER = 0.001
"""A connection that heard from the server this recently is not checked before a call
(a caller calling again at once pays no system call): a server that closed it within
that time is no different from one that closes it just after the request leaves."""


class Next(Enum):
    """What :meth:`CallState.next_item` says when it has no item to give."""

    WAIT = "wait"  # nothing yet: wait for a wake, then ask again
    END = "end"  # the stream ended normally


# hot paths: an Enum class attribute costs a __getattr__ hook
_STREAM, _PING, _UNARY = CallKind.STREAM, CallKind.PING, CallKind.UNARY


# -- calls ---------------------------------------------------------------------------

class CallState(Generic[W]):
    """One call: its id and kind, its deadline, and what has arrived for it.

    ``done`` is set once: by the final frame (``result`` or ``error``), by the
    connection's failure (``error``), or by the caller giving up.
    """

    __slots__ = (
        "abandoned", "backlog", "done", "due", "error", "id", "items", "kind", "method", "parts", "result",
        "until", "waiter",
    )

    def __init__(self, rid: int, kind: CallKind, method: str, until: float = NO_DEADLINE) -> None:
        self.id = rid
        self.kind = kind
        self.method = method
        self.until = until  # its deadline, made once by the face (a stream's: its next item's)
        self.done = False
        self.abandoned = False
        self.result: bytes = b""
        self.error: DualioError | None = None
        self.items: deque[bytes] | None = deque() if kind is _STREAM else None
        self.backlog = 0  # bytes of items not taken yet (see STREAM_BACKLOG)
        self.waiter: W | None = None
        self.due = 1  # answers in order it still waits for (see CallTable.start); 0: it left the order
        self.parts: list[bytes] | None = None  # those that came, while more are due

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
        "_accepts",
        "_collected",
        "_decoder",
        "_error_kind",
        "_max_key",
        "_next_id",
        "_order",
        "_order_at_start",
        "_ordered",
        "_owed",
        "_probe",
        "_probe_behind",
        "_probe_sent",
        "_told",
        "_unusual",
        "_wake",
        "backlogged",
        "closing",
        "dropped",
        "failure",
        "handshake",
        "keepalive",
        "last_heard",
        "live",
        "on_end",
        "protocol",
    )

    def __init__(
        self,
        protocol: WireProtocol,
        *,
        now: float,
        wake: Callable[[CallState[W]], None] = _nothing,
        keepalive: float | None = None,
        order_at_start: bool = True,
    ) -> None:
        self.protocol = protocol
        self._accepts = protocol.accepts
        self._error_kind = protocol.error_kind
        self._max_key = protocol.max_key
        self._order: deque[int] | None = deque() if protocol.matching is Matching.IN_ORDER else None
        """With answers in order: the keys of the calls answered in order that wait for their
        final answer, oldest first."""
        self._ordered = protocol.ordered_kinds
        self._told: Callable[[int], None] | None = getattr(protocol, "expect", None)
        """A protocol's ``expect(key)``, if it has one (:class:`WireProtocol`), told of each
        request that takes its place in the order of answers, in the order written."""
        self._order_at_start = order_at_start
        """With answers in order, a call takes its place in the order as it starts: right
        for a transport that writes (or queues) a request in the step that starts it; one
        that writes later, under a lock of its own, passes False and calls
        :meth:`enter_order` just before the write."""
        self._owed = b""  # what procedures closed half-way could not send (see _owe)
        self._collected: deque[CallState[W]] = deque()  # calls of procedures the collector closed (collect)
        self._unusual = False  # owed or collected, closing or failed: what a call's start looks at, once
        self.keepalive = keepalive
        self.last_heard = now  # when bytes last arrived (the connection's start, before any)
        self._probe: CallState[W] | None = None  # the keepalive PING in flight
        self._probe_sent = 0.0
        self._probe_behind = False  # the probe was last seen behind earlier calls in the order
        self._decoder = self.protocol.decoder
        self._wake = wake
        self._next_id = 1
        self.handshake: CallState[W] = CallState(HANDSHAKE_KEY, CallKind.HANDSHAKE, "handshake")
        self.live: dict[int, CallState[W]] = {HANDSHAKE_KEY: self.handshake}
        """Every live call by key (the handshake's until it is done); read-only outside the table."""
        self.failure: DualioError | None = None
        self.closing = False
        self.on_end: Callable[[], object] | None = None
        """Told when the connection ends (closing, or failed), for a transport that keeps
        its own ``closed`` flag: a face reads that on every call."""
        self.backlogged: dict[CallState[W], None] = {}  # streams over STREAM_BACKLOG: stop reading
        self.dropped = 0  # frames that arrived for calls whose callers had given up

    # -- state -------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self.closing or self.failure is not None

    @property
    def in_flight(self) -> int:
        """Keys in use, abandoned ones included (the handshake is not a call)."""
        return len(self.live) - (HANDSHAKE_KEY in self.live)

    def idle(self, now: float) -> bool:
        """No call is in flight, so no caller reads, and the server has been silent for
        ``IDLE_CHECK_AFTER`` at ``now``: whatever it sent meanwhile (a goodbye, its end of
        the stream) waits unread. A transport without a reader of its own reads it before
        it starts a call."""
        return not self.live and now - self.last_heard >= IDLE_CHECK_AFTER

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
            failure = failures.handshake_failed(error)
            if failure is error:
                raise failure
            raise failure from error

    # -- starting and giving up ----------------------------------------------------

    def hello(self) -> bytes:
        """What opens the handshake; ``b""`` for a protocol that has none: the handshake
        is done now."""
        hello = self.protocol.hello()
        if not hello:
            self.live.pop(HANDSHAKE_KEY, None)
            self.handshake.done = True
        return hello

    def start(
        self, kind: CallKind, method: str, args: bytes, answers: int = 1, until: float = NO_DEADLINE,
    ) -> tuple[CallState[W], bytes]:
        """A new call, due by ``until`` (kept on it), and the bytes of its request (a PING
        for ``CallKind.PING``). A request of several commands, on a protocol answered in
        order, is answered by ``answers`` messages in order: its result is their payloads
        joined, whatever their kinds, for its decoder to read one by one."""
        owed = b""
        if self._unusual:
            if self.closing or self.failure is not None:
                self.check_usable()
            owed = self._pay()
        if answers != 1:
            return self._start_unusual(kind, method, args, answers, until, owed)
        calls = self.live
        rid = self._next_id
        if rid < self._max_key and rid not in calls:
            self._next_id = rid + 1
        else:
            rid = self._new_id()
        data = self.protocol.probe(rid) if kind is _PING else self.protocol.request(rid, method, args)
        state: CallState[W] = CallState(rid, kind, method, until)
        calls[rid] = state
        if self._order is not None and self._order_at_start and kind in self._ordered:
            self._order.append(rid)
            if self._told is not None:
                self._told(rid)
        if owed:
            data = owed + data  # no answer comes for what is owed: the order is unchanged
        return state, data

    def _start_unusual(
        self, kind: CallKind, method: str, args: bytes, answers: int, until: float, owed: bytes,
    ) -> tuple[CallState[W], bytes]:
        """:meth:`start` of a request answered by several messages in order, or by none:
        one that expects no answer is done as it starts (its result ``b""``), takes no
        place in the order and holds no key; its key is not handed out again before the
        keys wrap around, so an answer a server sends it anyway finds no call."""
        if answers == 0 and kind is _UNARY:
            rid = self._next_id
            if rid < self._max_key and rid not in self.live:
                self._next_id = rid + 1
            else:
                rid = self._new_id()
            state: CallState[W] = CallState(rid, kind, method, until)
            state.due = 0
            state.done = True
            data = self.protocol.request(rid, method, args)
            return state, owed + data if owed else data
        if self._order is None or kind is not _UNARY or answers < 0:
            raise UsageError(f"{answers} answers to one request: only a unary call on a protocol "
                             "answered in order may have several, and one may have none")
        state, data = self.start(kind, method, args, 1, until)
        state.due = answers
        return state, owed + data if owed else data

    @property
    def ordered(self) -> bool:
        """Answers come in the order requests were written (``Matching.IN_ORDER``)."""
        return self._order is not None

    @property
    def probe(self) -> CallState[W] | None:
        """The keepalive probe in flight, if any."""
        return self._probe

    def enter_order(self, state: CallState[W]) -> None:
        """``state``'s request is about to be written, after every request written before
        it (the caller holds what orders the writes): it takes its place in the order."""
        if self._order is not None and not self._order_at_start and state.kind in self._ordered and state.due:
            self._order.append(state.id)
            if self._told is not None:
                self._told(state.id)

    def _new_id(self) -> int:
        calls = self.live
        most = self._max_key
        if len(calls) >= most:
            raise UsageError(f"{most} calls are in flight on one connection: no id is free")
        rid = self._next_id
        while rid in calls or rid == HANDSHAKE_KEY:
            rid = rid + 1 if rid < most else 1
        self._next_id = rid + 1 if rid < most else 1
        return rid

    def _owe(self, data: bytes) -> None:
        """Keep what giving up a call would have sent (a CANCEL, an UNSUBSCRIBE) for the
        next request, which carries it (:meth:`start`); bounded by ``OWED_LIMIT``."""
        if data and self.failure is None and not self.closing and len(self._owed) < OWED_LIMIT:
            self._owed += data
            self._unusual = True

    def collect(self, state: CallState[W]) -> None:
        """The procedure of ``state`` was closed half-way with no driver to perform its
        effects: the garbage collector finalised it, at a moment nobody chose, on any
        thread, maybe while this table is in use. So nothing changes now (a deque's
        append is atomic): the call is given up at the table's next :meth:`start` or
        :meth:`receive`, by whoever owns the table then, and what that sends goes out
        ahead of the next request. Its request may be on its way (queued for a writer),
        so the call keeps its place until its answer comes and is dropped."""
        self._collected.append(state)
        self._unusual = True

    def settle(self) -> None:
        """Give up the calls :meth:`collect` was told of; what that sends is owed."""
        collected = self._collected
        while collected:
            self._owe(self.give_up(collected.popleft()))

    def _pay(self) -> bytes:
        """What is owed, the calls collected given up first; nothing is owed after."""
        self._unusual = self.closing or self.failure is not None
        self.settle()
        owed, self._owed = self._owed, b""
        return owed

    def release(self, state: CallState[W]) -> None:
        """Forget a call whose request bytes were never written: its key is free at once."""
        if self.live.get(state.id) is state:
            del self.live[state.id]
            if self._order is not None and state.id in self._order:
                self._order.remove(state.id)
            self.protocol.unsent(state.id)
        state.done = True

    def unsent(self, state: CallState[W], may_have_left: bool) -> bytes:
        """The write of ``state``'s request failed, timed out or was cancelled. If the
        request certainly never left whole, or the connection has failed (no answer can
        come), the call is released; if it may be on the wire, it is given up: the
        CANCEL bytes to send are returned, and its id stays taken until its answer."""
        if not may_have_left or self.failure is not None:
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
        state.error = error or failures.cancelled()
        state.done = True  # after the error: a reader in another thread sees both
        self._wake(state)
        if self.failure is not None:
            self.live.pop(state.id, None)
            return b""
        state.abandoned = True  # also while closing: its answer may still arrive
        if self.closing:
            return b""
        cancel = self.protocol.cancel(state.id)
        if cancel is None:
            self.fail(failures.given_up_while_held(_describe(state)))
            return b""
        log.debug("%s given up: its late answers will be dropped", _describe(state))
        return cancel

    # -- incoming bytes ------------------------------------------------------------

    def receive(self, data: bytes | int, now: float) -> DualioError | None:
        """Route what arrived (by ``now``) to its calls and wake them: ``data`` read, or (a
        count) that many bytes received into :meth:`room`.

        Returns the connection's failure if these bytes ended it (a protocol
        error, a CLOSE or an ERROR about the whole connection), else None; every
        live call has then been failed with it.
        """
        if self.failure is not None:
            return self.failure
        if self._unusual:
            self.settle()
        self.last_heard = now
        try:
            messages = self._decoder.received(data) if isinstance(data, int) else self._decoder.feed(data)
            return self._route(messages)
        except FrameTooLarge as exc:
            failure = self._route(exc.before) if exc.before else None
            return failure or self._too_large(exc)
        except ProtocolError as exc:
            return self.fail(exc)
        except Exception as exc:  # a protocol's bug, or a message not shaped (kind, key, payload)
            broken = ProtocolError(f"the protocol failed on the server's bytes: {type(exc).__name__}: {exc}")
            broken.__cause__ = exc
            lost = ConnectionLost(f"{broken}: the connection was given up for another")
            lost.__cause__ = broken  # a new connection starts clean: the client opens one
            return self.fail(lost)

    def _too_large(self, exc: FrameTooLarge) -> DualioError:
        """A message over the client's bound. Where answers come in order, the call it
        answers (the oldest) fails with ``exc``, and the connection, whose bytes can no
        longer be followed, ends as lost, so the client opens another; the other calls
        on it end as on any lost connection. Where answers come by key, the message's
        call cannot be known: the connection fails with ``exc``, as on any protocol error."""
        if not self._order:  # answers by key: whose message it is cannot be known
            return self.fail(exc)
        victim = self.live.get(self._order[0])
        if victim is not None and not victim.done:
            victim.error = exc
            victim.done = True
            self._wake(victim)
        lost = ConnectionLost(f"{exc}: the connection was given up for another")
        lost.__cause__ = exc
        return self.fail(lost)

    def room(self) -> memoryview | None:
        """While a large frame is arriving, where the rest of its payload goes: a
        transport may receive into it and then call :meth:`receive` with the count."""
        if self.failure is not None:
            return None
        return self._decoder.room()

    def _route(self, messages: Sequence[Message]) -> DualioError | None:
        calls = self.live
        wake = self._wake
        accepts = self._accepts
        order = self._order  # None: answers come by key, and none of what follows about order applies
        for kind, rid, payload in messages:
            ordered = rid == IN_ORDER
            if ordered and order:
                rid = order[0]
            state = calls.get(rid)
            if state is None or rid == HANDSHAKE_KEY:
                ending = self._unrouted(kind, rid, payload)
                if ending is not None:
                    return self.fail(ending)
                continue
            final = accepts[state.kind].get(kind)
            if final is None:
                return self.fail(self._wrong_kind(kind, state))
            if ordered and state.due > 1:  # one of several answers to one request
                state.due -= 1
                if state.parts is None:
                    state.parts = []
                state.parts.append(payload)
                continue
            if not final:
                if ordered:  # a stream answered in order once (its start): later items come by key
                    order.popleft()  # type: ignore[union-attr]
                    state.due = 0
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
            if order is not None:
                if ordered:
                    order.popleft()  # it named the oldest
                elif state.kind in self._ordered and state.due:
                    order.remove(rid)  # answered by key though in the order: it leaves it too
            if state.abandoned:
                self.dropped += 1
                continue
            if ordered and state.parts is not None:
                state.parts.append(payload)
                state.result = b"".join(state.parts)
            elif kind is self._error_kind:
                state.error = self.protocol.decode_error(rid, payload)
            else:
                state.result = payload
            state.done = True
            wake(state)
        return None

    def _unrouted(self, kind: Any, key: int, payload: bytes) -> DualioError | None:
        """A message for the handshake, or for no live call: the failure it means, or None."""
        outcome = self.protocol.unrouted(kind, key, payload)
        if outcome is not HANDSHAKE_DONE:
            return outcome
        handshake = self.live.pop(HANDSHAKE_KEY, None)
        if handshake is not None:
            handshake.done = True
            self._wake(handshake)
        return None

    def _wrong_kind(self, kind: Any, state: CallState[W]) -> ProtocolError:
        return ProtocolError(f"server answered {_describe(state)} with a {self.protocol.describe_kind(kind)}")

    # -- the end -------------------------------------------------------------------

    # -- keepalive -----------------------------------------------------------------

    def keepalive_due(self, now: float) -> bytes:
        """A keepalive PING to send at ``now``, or ``b""``.

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

        On a protocol answered in order, the PING's answer comes after those of the
        calls written before it, which a server may take long over (a slow command
        holds up every reply): while a call that somebody still waits for is ahead of
        it, its silence counts from the first check that finds no such call ahead (one
        that takes its place as it is written has been written then). A server silent
        through a long command is found by that call's own timeout. Calls given up
        count for nothing here: nobody's timeout would ever end the wait, and a
        subscription, which has no timeout, would wait for ever on a server that
        vanished.
        """
        if self.keepalive is None or self.closing or self.failure is not None:
            return b""
        probe = self._probe
        if probe is not None:
            if not probe.done:
                if self._order is not None and self._waited_before(probe):
                    self._probe_sent = now  # not written yet, or answers somebody waits for are due first
                    self._probe_behind = True
                    return b""
                if self._probe_behind:  # first seen as the oldest: its silence counts from here
                    self._probe_sent = now
                    self._probe_behind = False
                    return b""
                if now - self._probe_sent >= self.keepalive:
                    self.fail(ConnectionLost(
                        f"the server did not answer a keepalive PING within {self.keepalive:g}s"
                    ))
                return b""
            self._probe = None
        if now - self.last_heard < self.keepalive or not self.live or not self.protocol.is_open:
            return b""
        probe, data = self.start(CallKind.PING, "keepalive", b"")
        self._probe, self._probe_sent, self._probe_behind = probe, now, False
        return data

    def _waited_before(self, probe: CallState[W]) -> bool:
        """Whether the keepalive ``probe`` has not taken its place in the order yet, or a
        call ahead of it is one its caller still waits for."""
        calls = self.live
        for key in self._order:  # type: ignore[union-attr]
            if key == probe.id:
                return False
            ahead = calls.get(key)
            if ahead is not None and not ahead.abandoned:
                return True
        return True

    @property
    def probing(self) -> bool:
        """Whether a keepalive check can do anything on this connection: not before the
        handshake is done, nor once it is closing or failed."""
        return self.keepalive is not None and not self.closed and self.protocol.is_open

    def keepalive_wait(self, now: float) -> float | None:
        """Seconds from ``now`` until :meth:`keepalive_due` may have something to do; None: never."""
        check = self.next_keepalive_check(now)
        return None if check is None else max(check - now, 0.0)

    def wait_end(self, call: CallState[W] | None, now: float) -> float:
        """When a wait for ``call``'s news that begins at ``now`` ends: at its deadline, or
        at the next keepalive check (:meth:`keepalive_wait`) if that comes first (no call:
        a reader's wait for whatever comes, which only a keepalive check ends)."""
        end = NO_DEADLINE if call is None else call.until
        check = self.next_keepalive_check(now)
        if check is None or end <= check:
            return end
        return check if check > now else min(now, end)

    def next_keepalive_check(self, now: float) -> float | None:
        """The ``time.monotonic()`` of the next keepalive check, as seen at ``now``; None: never."""
        keepalive = self.keepalive
        if keepalive is None:
            return None
        probe = self._probe
        if probe is not None and not probe.done:
            return self._probe_sent + keepalive
        if not self.live:
            return now + keepalive  # idle: nothing to check, look again later
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
            self._unusual = True
            if self.on_end is not None:
                self.on_end()
            log.debug("connection failed, %d calls live: %s: %s", self.in_flight, type(error).__name__, error)
        error = self.failure
        live = list(self.live.values())
        self.live.clear()
        if self._order is not None:
            self._order.clear()
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
        owed = self._pay()  # what is owed goes ahead of the goodbye, as of a request
        self.closing = True
        self._unusual = True
        if self.on_end is not None:
            self.on_end()
        return b"" if self.failure is not None else owed + self.protocol.goodbye()


