"""The procedure of a call, once, for every transport (no I/O).

The call table (:mod:`dualio_transports.wire.call_table`) decides what a frame means; this module
decides what a call *does*, step by step: read what came while the connection was
idle, start the call, send its request, tell its id, wait for its answer or its next
item, ask for a keepalive PING, time out, give up (a timeout, a cancel, an
interrupt, a consumer leaving a stream) and tell the server. Each procedure is a
generator that yields *effects*, and a transport is a driver that performs each
effect with its own primitives, then resumes the procedure with ``send(now)`` (the
``time.monotonic()`` after performing it), or with ``throw(error)`` when performing it
failed. A procedure is given the time it starts at; it reads no clock, so every decision
about time is made on a time a driver or a test passed (one a little old only ever
delays a decision to the next step: every wait it asks for ends at its deadline):

``Send(data, call)``
    Write this whole frame (``call``'s request, or the handshake's HELLO) by the call's
    deadline (``call.until``), by the rules of
    :class:`dualio_transports.wire.frame_write.FrameWrite`; on failure set
    ``may_have_left`` if the frame may be on the wire (it was handed to another
    writer's batch).
``Control(data)``
    Write this CANCEL or keepalive PING when the connection can: never wait for
    it, never fail the call for it (it is advice to the server).
``Await(call, wake, want_item)``
    Wait until ``call`` is done (or has an item, with ``want_item``) or ``wake`` comes
    (its deadline, or the next keepalive check if that is sooner), reading while nobody
    else does. Return either way: what a deadline
    means is decided here.
``ReadIdle(until)``
    The connection was idle: if bytes wait unread (a goodbye, the end of the
    stream), read and route them, so the call finds the connection closed before
    its request leaves rather than after.
``ReadOn()``
    A stream's consumer caught up (or left): whoever stopped reading because of
    its backlog may read again.
``Teardown(failure)``
    The connection has failed (``failure``): close it the transport's way and wake
    everyone waiting on it.
``Item(payload)``
    Hand this stream item to the consumer (streams only).
``Started(call)``
    The request of ``call`` is on the wire (:func:`open_handed_call` only: the emulation binds
    its cancel handle to the call here; raise to give the call up).

A driver runs each step (``send``/``throw``) where it may touch the call table: on
its loop, or under the lock that guards the table. Effects run outside that lock.
When a stream's consumer leaves early, the driver throws :class:`Left` in.
Unit tests drive these generators in memory, with no socket (tests/test_procedure.py).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from dualio_transports.wire import failures
from dualio_transports.wire.call_table import CallState, CallTable, Next, W
from dualio_transports.wire.deadline import ItemDeadlines
from dualio_transports.wire.errors import DualioError, DualioTimeout
from dualio_transports.wire.protocol import CallKind


@dataclass(slots=True, eq=False)
class Send:
    data: bytes = field(repr=False)
    call: CallState[Any] = field(repr=False)  # whose request (the handshake's: HELLO); by its deadline
    may_have_left: bool = False


@dataclass(slots=True, eq=False)
class Control:
    data: bytes
    call: CallState[Any] | None = field(default=None, repr=False)  # a keepalive probe's


@dataclass(slots=True, eq=False)
class Await:
    call: CallState[Any]
    wake: float  # when this wait ends at the latest: the call's deadline, or a keepalive check
    want_item: bool


@dataclass(slots=True, eq=False)
class ReadIdle:
    until: float


@dataclass(slots=True, eq=False)
class ReadOn:
    pass


@dataclass(slots=True, eq=False)
class Teardown:
    failure: DualioError


@dataclass(slots=True, eq=False)
class Item:
    payload: bytes


@dataclass(slots=True, eq=False)
class Started:
    call: CallState[Any]


READ_ON = ReadOn()


class Left(Exception):
    """Thrown into a stream's procedure when its consumer leaves the loop early: the
    stream is given up and the procedure ends. (``GeneratorExit`` itself means the
    procedure is being closed with no driver to perform effects: the garbage collector
    finalised it, maybe before the driver that ran it. Its call is handed to
    :meth:`CallTable.collect`, which gives it up when the table is next used.)"""

Effect = Send | Control | Await | ReadIdle | ReadOn | Teardown | Item | Started


# -- pieces -------------------------------------------------------------------------

def item_expired(deadlines: ItemDeadlines) -> DualioTimeout:
    """What a stream's wait that passed its deadline means: its item timeout's, or with
    none, the stream's own timeout (a subscription the server did not confirm in time)."""
    return failures.deadline_error(deadlines.item_timeout)


def keepalive_due(table: CallTable[W], now: float) -> Control | Teardown | None:
    """What a connection silent for a keepalive interval at ``now`` needs: a PING to send,
    or, when the last one went unanswered, its teardown (:meth:`CallTable.keepalive_due`)."""
    probe = table.keepalive_due(now)
    if probe:
        return Control(probe, table.probe)
    if table.failure is not None:
        return Teardown(table.failure)
    return None


def keepalive(table: CallTable[W], now: float) -> Generator[Effect, float, None]:
    """:func:`keepalive_due` for a reader of its own (the emulation's reader thread)."""
    due = keepalive_due(table, now)
    if due is not None:
        yield due


def open_call(
    table: CallTable[W], kind: CallKind, method: str, args: bytes, until: float, now: float,
    sent: list[int] | None, waiter: W | None = None,
    expired: Callable[[], DualioError] = failures.call_timeout, answers: int = 1,
) -> Generator[Effect, float, CallState[W]]:
    """Start a call at ``now`` (``waiter``: the transport's, see :attr:`CallState.waiter`)
    and send its request whole; ``sent`` is told its id once it left. A request that did
    not leave releases its id at once; one that may have left gives the call up (a CANCEL
    follows it). A call whose deadline has passed raises ``expired()`` and sends nothing."""
    if now >= until:
        raise expired()
    if table.idle(now):
        yield ReadIdle(until)
    call, data = table.start(kind, method, args, answers, until)
    call.waiter = waiter
    send = Send(data, call)
    try:
        yield send
    except GeneratorExit:
        table.collect(call)  # closed in the middle of the write: its request may still leave
        raise
    except BaseException:
        yield from unsent(table, call, send.may_have_left)
        raise
    if sent is not None:
        sent.append(call.id)
    return call


def unsent(table: CallTable[W], call: CallState[W], may_have_left: bool) -> Generator[Effect, float, None]:
    """The write of ``call``'s request failed: its id is free at once if the request did
    not leave (or cannot be answered), else the call is given up with a CANCEL."""
    cancel = table.unsent(call, may_have_left=may_have_left)
    if cancel:
        yield Control(cancel)


def open_handed_call(
    table: CallTable[W], kind: CallKind, method: str, args: bytes, until: float, now: float,
    sent: list[int] | None, waiter: W | None = None,
    expired: Callable[[], DualioError] = failures.call_timeout, answers: int = 1,
) -> Generator[Effect, float, CallState[W]]:
    """:func:`open_call`, then ``Started``: a call that something outside may abandon once
    its request left (the emulation's cancel handle), or that is answered elsewhere."""
    call = yield from open_call(table, kind, method, args, until, now, sent, waiter, expired, answers)
    try:
        yield Started(call)
    except GeneratorExit:
        table.collect(call)
        raise
    except BaseException:
        yield from give_up(table, call)
        raise
    return call


def await_news(
    table: CallTable[W], call: CallState[W], want_item: bool, expired: Callable[[], DualioTimeout],
    now: float,
) -> Generator[Effect, float, None]:
    """Wait until ``call`` is done (or has an item); at its deadline (``call.until``), raise
    ``expired()``. A wait never outlasts the next keepalive check; after it, what came is
    read first and only then is the silence judged: a PING (or a teardown) is yielded in
    between, so a silent peer is found by a call without a timeout too."""
    quiet = False  # no keepalive check can be done (the handshake, the end): wait for the deadline
    while not (call.done or (want_item and call.items)):
        if now >= call.until:
            raise expired()
        now = yield Await(call, call.until if quiet else table.wait_end(call, now), want_item)
        if call.done or (want_item and call.items):
            return
        if not quiet and table.keepalive_wait(now) == 0.0:
            due = keepalive_due(table, now)
            if due is not None:
                now = yield due
            else:
                quiet = not table.probing


def give_up(table: CallTable[W], call: CallState[W]) -> Generator[Effect, float, None]:
    """The caller no longer waits for ``call``: the CANCEL to send, and readers held by
    its backlog may read again."""
    held = bool(table.backlogged)
    cancel = table.give_up(call)
    if cancel:
        yield Control(cancel)
    if held and not table.backlogged:
        yield READ_ON


# -- procedures ------------------------------------------------------------------------

def roundtrip(
    table: CallTable[W], kind: CallKind, method: str, args: bytes, until: float, now: float,
    sent: list[int] | None = None,
) -> Generator[Effect, float, CallState[W]]:
    """A unary call or a PING started at ``now``: send, wait for the final frame by
    ``until``; returns the call, whose :meth:`CallState.outcome` is the answer."""
    call = yield from open_call(table, kind, method, args, until, now, sent)
    return (yield from answer(table, call, now))


def answer(
    table: CallTable[W], call: CallState[W], now: float,
    expired: Callable[[], DualioTimeout] = failures.call_timeout,
) -> Generator[Effect, float, CallState[W]]:
    """Wait for the final frame of a call whose request left (or is queued to leave), by
    its deadline, which raises ``expired()``; a wait that fails (a timeout, a cancel, an
    interrupt) gives the call up. Returns the call."""
    try:
        yield from await_news(table, call, False, expired, now)
    except GeneratorExit:
        table.collect(call)
        raise
    except BaseException:
        yield from give_up(table, call)
        raise
    return call


def stream(
    table: CallTable[W], method: str, args: bytes, deadlines: ItemDeadlines, now: float,
    sent: list[int] | None = None,
) -> Generator[Effect, float, None]:
    """A stream started at ``now``: send its request by the first item's deadline, then
    :func:`items`."""
    def expired() -> DualioTimeout:
        return item_expired(deadlines)

    first = deadlines.for_wait(now)
    call = yield from open_call(table, CallKind.STREAM, method, args, first, now, sent, None, expired)
    yield from items(table, call, deadlines, now)


def items(
    table: CallTable[W], call: CallState[W], deadlines: ItemDeadlines, now: float,
) -> Generator[Effect, float, None]:
    """A started stream's items, each yielded as ``Item``, each by its deadline
    (:class:`ItemDeadlines`); at the end, or when the consumer leaves (an exception
    thrown in), the stream is given up (the server is told if it had not ended)."""
    def expired() -> DualioTimeout:
        return item_expired(deadlines)

    try:
        while True:
            held = bool(table.backlogged)
            item = table.next_item(call)
            if held and not table.backlogged:
                now = yield READ_ON
            if item is Next.WAIT:
                call.until = deadlines.for_wait(now)  # each item's wait has its own
                yield from await_news(table, call, True, expired, now)
            elif item is Next.END:
                break
            else:
                deadlines.item_taken()
                now = yield Item(item)
    except Left:
        pass
    except GeneratorExit:
        table.collect(call)
        raise
    except BaseException:
        yield from give_up(table, call)
        raise
    yield from give_up(table, call)


def handshake(table: CallTable[W], until: float, now: float) -> Generator[Effect, float, None]:
    """The protocol's opening (v1's HELLO), then its answer by ``until``; any failure is a
    ConnectError. A protocol without a handshake (an empty opening) is open at once."""
    table.handshake.until = until
    hello = table.hello()
    if not hello:
        return
    try:
        now = yield Send(hello, table.handshake)
        yield from await_news(table, table.handshake, False, failures.call_timeout, now)
    except DualioError as exc:
        raise failures.handshake_failed(exc) from exc
    table.handshake_outcome()
