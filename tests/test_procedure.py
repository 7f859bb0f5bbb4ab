"""The procedure of a call driven in memory: every effect it asks for, every path through
it (answer, timeout, cancel, a write that failed or may have left, keepalive, streams,
backlog, the handshake), with no socket and no clock: the test is the driver, and it
keeps the time (``CLOCK``), which moves only when a test moves it."""

from __future__ import annotations

from collections.abc import Generator
from inspect import GEN_CREATED, getgeneratorstate
from typing import Any

import pytest

from dualio_transports.blocking import driver as blocking_driver
from dualio_transports.dualio_protocol.client_protocol import WELCOME, ClientProtocol
from dualio_transports.dualio_protocol.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    PROTOCOL_VERSION,
    FrameDecoder,
    FrameKind,
    encode_frame,
)
from dualio_transports.wire import call_table, procedure
from dualio_transports.wire.call_table import ITEM_COST, STREAM_BACKLOG, CallState, CallTable
from dualio_transports.wire.deadline import ItemDeadlines, deadline
from dualio_transports.wire.errors import (
    CallCancelled,
    ConnectError,
    ConnectionLost,
    ConnectTimeout,
    DualioTimeout,
)
from dualio_transports.wire.procedure import (
    READ_ON,
    Await,
    Control,
    Effect,
    Item,
    Left,
    ReadIdle,
    Send,
    Started,
    Teardown,
)
from dualio_transports.wire.protocol import CallKind

Table = CallTable[None]
Steps = Generator[Effect, float, Any]
WELCOME_FRAME = encode_frame(FrameKind.WELCOME, 0, WELCOME.pack(PROTOCOL_VERSION, DEFAULT_MAX_FRAME_SIZE))
START = 1000.0


class FakeClock:
    """The time the test driver says it is; a wait "lasts" only by :meth:`advance`."""

    def __init__(self) -> None:
        self.now = START

    def advance(self, seconds: float) -> None:
        self.now += seconds


CLOCK = FakeClock()
FAR = START + 3600


@pytest.fixture(autouse=True)
def clock_at_start() -> None:
    CLOCK.now = START


def open_table(keepalive: float | None = None) -> Table:
    table: Table = CallTable(ClientProtocol(), now=CLOCK.now, keepalive=keepalive)
    assert table.receive(WELCOME_FRAME, CLOCK.now) is None
    return table


def kinds(data: bytes) -> list[FrameKind]:
    return [kind for kind, _, _ in FrameDecoder().feed(data)]


def answer(table: Table, kind: FrameKind, rid: int, payload: bytes = b"") -> None:
    assert table.receive(encode_frame(kind, rid, payload), CLOCK.now) is None


class Ended(Exception):
    def __init__(self, value: object) -> None:
        self.value = value


def step(steps: Steps, error: BaseException | None = None) -> Effect:
    """One step, as a driver takes it: the procedure started (it was given the time), or
    resumed with the time now, or thrown ``error``."""
    try:
        if error is not None:
            return steps.throw(error)
        return steps.send(None if getgeneratorstate(steps) == GEN_CREATED else CLOCK.now)  # type: ignore[arg-type]
    except StopIteration as end:
        raise Ended(end.value) from None


def finish(steps: Steps, error: BaseException | None = None) -> Any:
    with pytest.raises(Ended) as ended:
        step(steps, error)
    return ended.value.value


# -- a unary call ---------------------------------------------------------------------

def test_a_call_sends_its_request_tells_its_id_and_waits_for_its_answer() -> None:
    table = open_table()
    sent: list[int] = []
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"hi", FAR, CLOCK.now, sent)
    send = step(steps)
    assert type(send) is Send and kinds(send.data) == [FrameKind.REQUEST] and send.call.until == FAR
    wait = step(steps)
    assert type(wait) is Await and not wait.want_item and wait.wake == FAR and wait.call.until == FAR
    assert sent == [wait.call.id]
    answer(table, FrameKind.RESPONSE, wait.call.id, b"hi")
    call = finish(steps)
    assert call.outcome() == b"hi" and table.in_flight == 0


def test_an_idle_connection_is_read_before_the_call_starts() -> None:
    table = open_table()
    CLOCK.advance(call_table.IDLE_CHECK_AFTER * 2)
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    assert type(step(steps)) is ReadIdle
    assert table.in_flight == 0  # nothing started yet: a goodbye read now refuses the call
    table.close()
    with pytest.raises(Exception, match="closed"):
        step(steps)


def test_a_request_that_never_left_frees_its_id_and_sends_nothing() -> None:
    table = open_table()
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    assert type(step(steps)) is Send
    with pytest.raises(DualioTimeout, match="waiting to write"):
        step(steps, DualioTimeout("timed out waiting to write the request"))
    assert table.in_flight == 0


def test_a_request_that_may_have_left_is_given_up_with_a_cancel() -> None:
    table = open_table()
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    send = step(steps)
    assert type(send) is Send
    send.may_have_left = True
    cancel = step(steps, DualioTimeout("timed out writing the request"))
    assert type(cancel) is Control and kinds(cancel.data) == [FrameKind.CANCEL]
    with pytest.raises(DualioTimeout):
        step(steps)
    assert table.in_flight == 1  # the id stays taken until the server's final frame


def test_a_torn_write_fails_the_connection_and_leaves_no_cancel_to_send() -> None:
    table = open_table()
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    step(steps)
    failure = table.fail(ConnectionLost("timed out in the middle of writing a frame"))
    with pytest.raises(ConnectionLost):
        step(steps, failure)
    assert table.in_flight == 0


def test_a_call_past_its_deadline_times_out_and_cancels() -> None:
    table = open_table()
    until = CLOCK.now + 0.02
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", until, CLOCK.now)
    step(steps)
    wait = step(steps)
    assert type(wait) is Await and wait.wake == wait.call.until == until
    CLOCK.advance(0.03)  # the driver's wait returns at its deadline, with no news
    cancel = step(steps)
    assert type(cancel) is Control and kinds(cancel.data) == [FrameKind.CANCEL]
    with pytest.raises(DualioTimeout, match="the call timed out"):
        step(steps)
    answer(table, FrameKind.RESPONSE, wait.call.id)  # late: dropped, and the id is free
    assert table.dropped == 1 and table.in_flight == 0


@pytest.mark.parametrize("interrupt", [CallCancelled("cancelled"), KeyboardInterrupt()])
def test_an_interrupted_wait_gives_the_call_up_and_raises_the_interrupt(interrupt: BaseException) -> None:
    table = open_table()
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    step(steps)
    wait = step(steps)
    cancel = step(steps, interrupt)
    assert type(cancel) is Control
    with pytest.raises(type(interrupt)):
        step(steps)
    assert type(wait) is Await and wait.call.done and wait.call.abandoned


def test_a_begun_call_can_be_abandoned_once_its_request_left() -> None:
    table = open_table()
    steps = procedure.open_handed_call(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now, None)
    step(steps)
    started = step(steps)
    assert type(started) is Started
    cancel = step(steps, CallCancelled("cancelled while its request was written"))
    assert type(cancel) is Control and kinds(cancel.data) == [FrameKind.CANCEL]
    with pytest.raises(CallCancelled):
        step(steps)


def test_a_begun_call_not_abandoned_is_returned_for_its_answer_to_come_elsewhere() -> None:
    table = open_table()
    sent: list[int] = []
    steps = procedure.open_handed_call(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now, sent, waiter=None)
    step(steps)
    assert type(step(steps)) is Started
    call = finish(steps)
    assert sent == [call.id] and not call.done and table.in_flight == 1


def test_an_answer_that_came_while_writing_ends_the_call_without_a_wait() -> None:
    table = open_table()
    steps = procedure.roundtrip(table, CallKind.PING, "ping", b"", FAR, CLOCK.now)
    send = step(steps)
    assert type(send) is Send and kinds(send.data) == [FrameKind.PING]
    answer(table, FrameKind.PONG, 1)
    assert finish(steps).done


# -- keepalive ----------------------------------------------------------------------------

def test_a_silent_connection_is_pinged_then_torn_down_while_a_call_waits() -> None:
    table = open_table(keepalive=0.02)
    steps = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    step(steps)
    wait = step(steps)
    assert type(wait) is Await and wait.wake < CLOCK.now + 0.03  # not the call's deadline
    CLOCK.advance(0.03)
    ping = step(steps)
    assert type(ping) is Control and kinds(ping.data) == [FrameKind.PING]
    assert type(step(steps)) is Await
    CLOCK.advance(0.03)
    teardown = step(steps)
    assert type(teardown) is Teardown and isinstance(teardown.failure, ConnectionLost)
    assert "keepalive PING" in str(teardown.failure)
    with pytest.raises(ConnectionLost):
        finish(steps).outcome()  # the call ended with the connection


def test_a_silent_handshake_is_not_pinged_and_its_wait_is_not_cut_short() -> None:
    table: Table = CallTable(ClientProtocol(), now=CLOCK.now, keepalive=0.01)
    until = CLOCK.now + 0.2
    steps = procedure.handshake(table, until, CLOCK.now)
    step(steps)
    CLOCK.advance(0.02)
    look = step(steps)
    assert type(look) is Await and look.wake < until  # read what came before judging the silence
    wait = step(steps)
    assert type(wait) is Await and wait.wake == until  # no PING before WELCOME, and no spinning


def test_a_silence_is_judged_only_after_what_came_is_read() -> None:
    """A call sends a keepalive PING, then gets its answer and ends; nobody reads while the
    connection is quiet, so the PONG waits unread past the interval. The next call's wait
    reads it before the unanswered PING could be held against the connection."""
    table = open_table(keepalive=0.02)
    first = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    step(first)
    call = step(first).call  # type: ignore[union-attr]
    CLOCK.advance(0.03)
    ping = step(first)
    assert type(ping) is Control and kinds(ping.data) == [FrameKind.PING]
    assert type(step(first)) is Await
    answer(table, FrameKind.RESPONSE, call.id, b"first")
    assert finish(first).outcome() == b"first"
    CLOCK.advance(0.05)  # quiet: the PONG arrived meanwhile, and nobody read it
    second = procedure.roundtrip(table, CallKind.UNARY, "echo", b"", FAR, CLOCK.now)
    assert type(step(second)) is Send
    look = step(second)
    assert type(look) is Await  # not a teardown: the driver reads first
    answer(table, FrameKind.PONG, call.id + 1)  # what that read finds
    assert type(step(second)) is Await and table.failure is None


# -- the handshake --------------------------------------------------------------------------

def test_the_handshake_says_hello_and_waits_for_welcome() -> None:
    table: Table = CallTable(ClientProtocol(), now=CLOCK.now)
    steps = procedure.handshake(table, FAR, CLOCK.now)
    hello = step(steps)
    assert type(hello) is Send and kinds(hello.data) == [FrameKind.HELLO]
    assert type(step(steps)) is Await
    assert table.receive(WELCOME_FRAME, CLOCK.now) is None
    assert finish(steps) is None


def test_a_handshake_that_times_out_or_breaks_is_a_connect_error() -> None:
    table: Table = CallTable(ClientProtocol(), now=CLOCK.now)
    steps = procedure.handshake(table, CLOCK.now + 0.01, CLOCK.now)
    step(steps)
    step(steps)
    CLOCK.advance(0.02)
    with pytest.raises(ConnectTimeout):
        step(steps)
    broken: Table = CallTable(ClientProtocol(), now=CLOCK.now)
    steps = procedure.handshake(broken, FAR, CLOCK.now)
    step(steps)
    with pytest.raises(ConnectError, match="closed the connection during the handshake"):
        step(steps, ConnectionLost("the server closed the connection"))


# -- streams ----------------------------------------------------------------------------------

def each_within(timeout: float | None) -> ItemDeadlines:
    """A stream's item deadlines, each item ``timeout`` from the start or the item before."""
    return ItemDeadlines(deadline(timeout, CLOCK.now), timeout)


def test_a_stream_hands_over_its_items_in_order_then_ends() -> None:
    table = open_table()
    steps = procedure.stream(table, "words", b"", each_within(None), CLOCK.now)
    step(steps)
    wait = step(steps)
    assert type(wait) is Await and wait.want_item
    rid = wait.call.id
    answer(table, FrameKind.STREAM_ITEM, rid, b"a")
    answer(table, FrameKind.STREAM_ITEM, rid, b"b")
    answer(table, FrameKind.STREAM_END, rid)
    got = [step(steps), step(steps)]
    assert all(type(item) is Item for item in got)
    assert [item.payload for item in got if type(item) is Item] == [b"a", b"b"]
    assert finish(steps) is None and table.in_flight == 0


def test_leaving_a_stream_early_cancels_it_and_the_leaving_goes_on() -> None:
    table = open_table()
    steps = procedure.stream(table, "words", b"", each_within(None), CLOCK.now)
    step(steps)
    rid = step(steps).call.id  # type: ignore[union-attr]
    answer(table, FrameKind.STREAM_ITEM, rid, b"a")
    assert type(step(steps)) is Item
    cancel = step(steps, Left())
    assert type(cancel) is Control and kinds(cancel.data) == [FrameKind.CANCEL]
    assert finish(steps) is None


def test_a_stream_collected_half_way_gives_up_without_asking_for_effects() -> None:
    table = open_table()
    steps = procedure.stream(table, "words", b"", each_within(None), CLOCK.now)
    step(steps)
    call = step(steps).call  # type: ignore[union-attr]
    steps.close()  # no RuntimeError: nothing is yielded while closing
    assert not call.done  # the collector may close it anywhere: the table is not touched then
    data = table.start(CallKind.UNARY, "echo", b"")[1]  # the table's next use gives it up
    assert call.done and call.abandoned
    assert kinds(data) == [FrameKind.CANCEL, FrameKind.REQUEST]  # its CANCEL leads the next request


def test_a_stream_collected_before_its_driver_ends_quietly() -> None:
    """The collector finalises a cycle's objects in any order: a stream's procedure may be
    closed before the iterator that drives it. Leaving that iterator then raises nothing
    (it was a Left escaping into the loop's unhandled-exception logger)."""
    table = open_table()
    steps = procedure.stream(table, "words", b"", each_within(None), CLOCK.now)

    def perform(effect: procedure.Effect) -> None:
        if type(effect) is Await:
            answer(table, FrameKind.STREAM_ITEM, effect.call.id, b"a")

    items = blocking_driver.stream_items(steps, perform, bytes)
    assert next(items) == b"a"
    steps.close()  # first, as the collector may
    items.close()  # raised procedure.Left before
    call = next(iter(table.live.values()))
    table.settle()
    assert call.done and call.abandoned

def test_a_stream_item_late_past_its_timeout_is_an_item_timeout() -> None:
    table = open_table()
    steps = procedure.stream(table, "words", b"", each_within(0.01), CLOCK.now)
    step(steps)
    step(steps)
    CLOCK.advance(0.02)
    assert type(step(steps)) is Control
    with pytest.raises(DualioTimeout, match=r"no stream item within 0.01s"):
        step(steps)


def test_a_consumer_catching_up_on_its_backlog_lets_readers_read_on() -> None:
    table = open_table()
    steps = procedure.stream(table, "words", b"", each_within(None), CLOCK.now)
    step(steps)
    rid = step(steps).call.id  # type: ignore[union-attr]
    item = b"x" * 1000
    count = STREAM_BACKLOG // (len(item) + ITEM_COST) + 1
    for _ in range(count):
        answer(table, FrameKind.STREAM_ITEM, rid, item)
    assert table.backlogged
    effects = [step(steps) for _ in range(count // 2 + 2)]
    assert READ_ON in effects and not table.backlogged
    assert effects.index(READ_ON) > count // 2 - 2  # only once half the backlog was taken


def test_leaving_a_backlogged_stream_lets_readers_read_on() -> None:
    table = open_table()
    steps = procedure.stream(table, "words", b"", each_within(None), CLOCK.now)
    step(steps)
    rid = step(steps).call.id  # type: ignore[union-attr]
    for _ in range(STREAM_BACKLOG // 1000 + 1):
        answer(table, FrameKind.STREAM_ITEM, rid, b"x" * 1000)
    assert type(step(steps)) is Item and table.backlogged
    assert type(step(steps, Left())) is Control
    assert step(steps) is READ_ON
    assert finish(steps) is None


def test_give_up_of_a_finished_call_asks_for_nothing() -> None:
    table = open_table()
    call: CallState[None]
    call, _ = table.start(CallKind.UNARY, "echo", b"")
    answer(table, FrameKind.RESPONSE, call.id)
    assert list(procedure.give_up(table, call)) == []


def test_an_answer_closed_half_way_owes_its_cancel_to_the_next_request() -> None:
    """A call's coroutine closed while the procedure waits for its answer: the call is
    given up in the table when it is next used, and its CANCEL leads the next request,
    on every transport (the table's start), not dropped."""
    table = open_table()
    call, _ = table.start(CallKind.UNARY, "echo", b"", until=CLOCK.now + 60)
    steps = procedure.answer(table, call, CLOCK.now)
    assert type(step(steps)) is Await
    steps.close()
    table.settle()
    assert call.done and call.abandoned
    data = table.start(CallKind.UNARY, "echo", b"")[1]
    assert kinds(data) == [FrameKind.CANCEL, FrameKind.REQUEST]
    assert kinds(table.start(CallKind.UNARY, "echo", b"")[1]) == [FrameKind.REQUEST]  # sent once
