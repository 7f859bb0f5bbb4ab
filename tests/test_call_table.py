"""The call table driven in memory: every decision about a call, no sockets."""

from __future__ import annotations

import pytest

from dualio_transports.dualio_protocol.client_protocol import WELCOME, ClientProtocol, encode_error
from dualio_transports.dualio_protocol.frames import (
    DEFAULT_MAX_FRAME_SIZE,
    MAX_REQUEST_ID,
    PROTOCOL_VERSION,
    Frame,
    FrameDecoder,
    FrameKind,
    encode_frame,
)
from dualio_transports.wire import call_table, failures
from dualio_transports.wire import deadline as deadline_module
from dualio_transports.wire.call_table import ITEM_COST, STREAM_BACKLOG, CallState, CallTable, Next
from dualio_transports.wire.errors import (
    AuthenticationError,
    CallCancelled,
    ClosedError,
    ConnectError,
    ConnectTimeout,
    DualioTimeout,
    ErrorCode,
    ProtocolError,
    RemoteError,
)
from dualio_transports.wire.protocol import CallKind

Table = CallTable[None]
Call = CallState[None]
WELCOME_FRAME = encode_frame(FrameKind.WELCOME, 0, WELCOME.pack(PROTOCOL_VERSION, DEFAULT_MAX_FRAME_SIZE))


def open_table() -> tuple[Table, list[Call]]:
    """A handshaken table and the list of calls its wake function was called for."""
    woken: list[Call] = []
    table: Table = CallTable(ClientProtocol(), wake=woken.append, now=0.0)
    assert table.receive(WELCOME_FRAME, 0.0) is None
    assert woken == [table.handshake] and table.handshake.done
    woken.clear()
    return table, woken


def frame(kind: FrameKind, call: Call, payload: bytes = b"") -> bytes:
    return encode_frame(kind, call.id, payload)


def decoded(data: bytes) -> list[Frame]:
    return FrameDecoder().feed(data)


# -- routing by kind -------------------------------------------------------------

WRONG_KIND = {
    "echo-pong": (CallKind.UNARY, "echo", FrameKind.PONG),
    "echo-stream-end": (CallKind.UNARY, "echo", FrameKind.STREAM_END),
    "echo-stream-item": (CallKind.UNARY, "echo", FrameKind.STREAM_ITEM),
    "ping-response": (CallKind.PING, "ping", FrameKind.RESPONSE),
    "ping-stream-item": (CallKind.PING, "ping", FrameKind.STREAM_ITEM),
    "words-response": (CallKind.STREAM, "words", FrameKind.RESPONSE),
    "words-pong": (CallKind.STREAM, "words", FrameKind.PONG),
}


@pytest.mark.parametrize(("kind", "method", "wrong"), WRONG_KIND.values(), ids=WRONG_KIND.keys())
def test_a_frame_of_the_wrong_kind_fails_the_connection(
    kind: CallKind, method: str, wrong: FrameKind
) -> None:
    table, woken = open_table()
    call, _ = table.start(kind, method, b"")
    bystander, _ = table.start(CallKind.UNARY, "sleep", b"")
    failure = table.receive(frame(wrong, call, b"x"), 0.0)
    assert isinstance(failure, ProtocolError)
    assert wrong.name in str(failure) and method in str(failure), failure
    for each in (call, bystander):
        assert each.done and each.error is failure
        with pytest.raises(ProtocolError):
            each.outcome()
    assert woken == [call, bystander]
    assert table.closed and table.in_flight == 0
    with pytest.raises(ClosedError):
        table.start(CallKind.UNARY, "echo", b"")


@pytest.mark.parametrize(
    ("kind", "right"),
    [(CallKind.UNARY, FrameKind.RESPONSE), (CallKind.PING, FrameKind.PONG),
     (CallKind.STREAM, FrameKind.STREAM_END)],
)
def test_the_final_frame_of_each_kind_ends_its_call(kind: CallKind, right: FrameKind) -> None:
    table, woken = open_table()
    call, _ = table.start(kind, "m", b"")
    assert table.receive(frame(right, call, b"" if kind is CallKind.STREAM else b"ok"), 0.0) is None
    assert call.done and woken == [call] and table.in_flight == 0 and not table.closed


@pytest.mark.parametrize("kind", [CallKind.UNARY, CallKind.PING, CallKind.STREAM])
def test_an_error_frame_ends_any_kind_of_call(kind: CallKind) -> None:
    table, _ = open_table()
    call, _ = table.start(kind, "m", b"")
    assert table.receive(encode_error(call.id, ErrorCode.INTERNAL, "boom"), 0.0) is None
    assert isinstance(call.error, RemoteError) and call.error.code == ErrorCode.INTERNAL
    assert not table.closed


def test_each_frame_reaches_only_its_own_call() -> None:
    table, woken = open_table()
    first, _ = table.start(CallKind.UNARY, "echo", b"")
    second, _ = table.start(CallKind.UNARY, "echo", b"")
    stream, _ = table.start(CallKind.STREAM, "words", b"")
    data = (frame(FrameKind.STREAM_ITEM, stream, b"a") + frame(FrameKind.RESPONSE, second, b"2")
            + frame(FrameKind.RESPONSE, first, b"1") + frame(FrameKind.STREAM_ITEM, stream, b"b"))
    assert table.receive(data, 0.0) is None
    assert (first.outcome(), second.outcome()) == (b"1", b"2")
    assert woken == [stream, second, first, stream]
    assert list(stream.items or ()) == [b"a", b"b"] and not stream.done


def test_frames_for_no_live_call_are_protocol_errors() -> None:
    table, _ = open_table()
    assert isinstance(table.receive(encode_frame(FrameKind.RESPONSE, 7), 0.0), ProtocolError)
    table, _ = open_table()
    assert isinstance(table.receive(encode_frame(FrameKind.REQUEST, 1), 0.0), ProtocolError)
    table, _ = open_table()
    assert isinstance(table.receive(encode_frame(FrameKind.PONG, 0), 0.0), ProtocolError)


# -- streams -------------------------------------------------------------------

def test_stream_state_gives_items_then_end() -> None:
    table, _ = open_table()
    call, _ = table.start(CallKind.STREAM, "words", b"")
    assert call.next_item() is Next.WAIT
    table.receive(frame(FrameKind.STREAM_ITEM, call, b"a") + frame(FrameKind.STREAM_ITEM, call, b"b"), 0.0)
    assert call.items and not call.done
    assert call.next_item() == b"a"
    table.receive(frame(FrameKind.STREAM_END, call), 0.0)
    assert call.next_item() == b"b"
    assert call.next_item() is Next.END
    assert table.give_up(call) == b""  # leaving after the end sends nothing


def test_stream_error_comes_after_the_items_before_it() -> None:
    table, _ = open_table()
    call, _ = table.start(CallKind.STREAM, "words", b"")
    table.receive(frame(FrameKind.STREAM_ITEM, call, b"a") + encode_error(call.id, ErrorCode.INTERNAL, "x"),
                  0.0)
    assert call.next_item() == b"a"
    with pytest.raises(RemoteError):
        call.next_item()


def test_leaving_a_stream_early_cancels_it_and_drops_its_late_items() -> None:
    table, woken = open_table()
    call, _ = table.start(CallKind.STREAM, "words", b"")
    table.receive(frame(FrameKind.STREAM_ITEM, call, b"a"), 0.0)
    cancel = table.give_up(call)
    assert decoded(cancel) == [Frame(FrameKind.CANCEL, call.id)]
    assert call.done and isinstance(call.error, CallCancelled) and not call.items
    late = frame(FrameKind.STREAM_ITEM, call, b"b") + encode_error(call.id, ErrorCode.CANCELLED, "c")
    woken.clear()
    assert table.receive(late, 0.0) is None
    assert woken == [] and table.dropped == 2 and table.in_flight == 0


# -- giving up -----------------------------------------------------------------

def test_give_up_abandons_until_the_final_frame_then_the_id_is_free() -> None:
    table, woken = open_table()
    call, _ = table.start(CallKind.UNARY, "sleep", b"")
    assert decoded(table.give_up(call)) == [Frame(FrameKind.CANCEL, call.id)]
    assert woken == [call] and isinstance(call.error, CallCancelled)
    assert table.give_up(call) == b""  # once only
    table._next_id = call.id  # white box: the allocator must skip the abandoned id
    other, _ = table.start(CallKind.UNARY, "echo", b"")
    assert other.id != call.id
    assert table.receive(frame(FrameKind.RESPONSE, call, b"late"), 0.0) is None
    assert call.error is not None and call.result == b"" and table.dropped == 1
    table._next_id = call.id
    reused, _ = table.start(CallKind.UNARY, "echo", b"")
    assert reused.id == call.id


def test_give_up_with_the_callers_own_error() -> None:
    table, _ = open_table()
    call, _ = table.start(CallKind.UNARY, "sleep", b"")
    table.give_up(call, failures.call_timeout())
    with pytest.raises(DualioTimeout):
        call.outcome()


def test_give_up_after_the_answer_or_the_failure_sends_nothing() -> None:
    table, _ = open_table()
    answered, _ = table.start(CallKind.UNARY, "echo", b"")
    table.receive(frame(FrameKind.RESPONSE, answered, b"x"), 0.0)
    assert table.give_up(answered) == b"" and answered.outcome() == b"x"
    live, _ = table.start(CallKind.UNARY, "echo", b"")
    table.fail(failures.peer_closed())
    assert table.give_up(live) == b"" and isinstance(live.error, ClosedError)


def test_release_frees_an_unsent_id_at_once() -> None:
    table, _ = open_table()
    call, _ = table.start(CallKind.UNARY, "echo", b"")
    table.release(call)
    assert table.in_flight == 0 and call.done
    table._next_id = call.id
    assert table.start(CallKind.UNARY, "echo", b"")[0].id == call.id


def test_an_unsent_request_is_released_or_given_up() -> None:
    """Whether its request may be on the wire decides: released (its id free at once, no
    CANCEL) when it certainly never left or the connection failed; else given up."""
    table, _ = open_table()
    never, _ = table.start(CallKind.UNARY, "echo", b"")
    assert table.unsent(never, may_have_left=False) == b"" and table.in_flight == 0
    maybe, _ = table.start(CallKind.UNARY, "echo", b"")
    assert decoded(table.unsent(maybe, may_have_left=True)) == [Frame(FrameKind.CANCEL, maybe.id)]
    assert table.in_flight == 1 and maybe.abandoned
    broken, _ = table.start(CallKind.UNARY, "echo", b"")
    table.fail(failures.peer_closed())
    assert table.unsent(broken, may_have_left=True) == b"" and table.in_flight == 0


def test_idle_is_no_call_in_flight_and_a_moment_of_silence() -> None:
    after = call_table.IDLE_CHECK_AFTER
    table: Table = CallTable(ClientProtocol(), now=100.0)
    assert not table.idle(200.0)  # the handshake is under way: its answer is not read yet
    table.receive(WELCOME_FRAME, 200.0)
    assert not table.idle(200.0) and not table.idle(200.0 + after / 2)  # just heard from the server
    assert table.idle(200.0 + after * 1.5)
    call, _ = table.start(CallKind.PING, "ping", b"")
    assert not table.idle(300.0)  # a call in flight: its caller reads
    table.receive(frame(FrameKind.PONG, call), 300.0)
    assert not table.idle(300.0)
    assert table.idle(300.0 + after * 1.5)


def test_a_call_on_a_failed_connection_may_be_retried_even_after_close() -> None:
    """A connection that failed and was then closed (the client replacing it): a call that
    still finds it gets a retryable ClosedError, its cause the failure. One its user
    closed gives a ClosedError that is not retryable."""
    table, _ = open_table()
    lost = failures.peer_closed()
    table.fail(lost)
    table.close()
    with pytest.raises(ClosedError) as info:
        table.start(CallKind.UNARY, "echo", b"")
    assert info.value.retryable and info.value.__cause__ is lost
    mine, _ = open_table()
    mine.close()
    mine.fail(failures.closed_by_user())
    with pytest.raises(ClosedError) as info:
        mine.start(CallKind.UNARY, "echo", b"")
    assert not info.value.retryable
    closing, _ = open_table()
    closing.close()  # the goodbye is being written
    with pytest.raises(ClosedError) as info:
        closing.start(CallKind.UNARY, "echo", b"")
    assert not info.value.retryable


def test_ids_wrap_around_and_skip_zero() -> None:
    table, _ = open_table()
    table._next_id = MAX_REQUEST_ID
    assert [table.start(CallKind.PING, "ping", b"")[0].id for _ in range(2)] == [MAX_REQUEST_ID, 1]


# -- failure and closing ---------------------------------------------------------

def test_fail_ends_every_live_call_once_with_the_first_failure() -> None:
    table, woken = open_table()
    live = [table.start(kind, "m", b"")[0] for kind in (CallKind.UNARY, CallKind.STREAM, CallKind.PING)]
    first = table.fail(failures.peer_closed())
    assert table.fail(failures.closed_by_user()) is first
    assert woken == live and all(call.error is first for call in live)
    assert table.receive(b"anything", 0.0) is first
    with pytest.raises(ClosedError, match="the server closed the connection"):
        table.check_usable()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (encode_frame(FrameKind.CLOSE, 0), ClosedError),
        (encode_error(0, ErrorCode.SHUTTING_DOWN, "bye"), RemoteError),
        (b"\xff\xff\xff\xff", ProtocolError),
    ],
    ids=["close", "error-0", "garbage"],
)
def test_connection_ending_bytes_fail_every_call(data: bytes, expected: type[Exception]) -> None:
    table, _ = open_table()
    call, _ = table.start(CallKind.UNARY, "sleep", b"")
    assert isinstance(table.receive(data, 0.0), expected)
    assert isinstance(call.error, expected) and table.closed


def test_close_says_goodbye_once_and_refuses_new_calls() -> None:
    table, _ = open_table()
    call, _ = table.start(CallKind.UNARY, "sleep", b"")
    assert decoded(table.close()) == [Frame(FrameKind.CLOSE, 0)]
    assert table.close() == b""
    with pytest.raises(ClosedError, match=r"^the connection is closed$"):
        table.start(CallKind.UNARY, "echo", b"")
    assert table.give_up(call) == b""  # no CANCEL after the goodbye
    table.fail(failures.closed_by_user())
    assert table.in_flight == 0


def test_no_goodbye_after_a_failure() -> None:
    table, _ = open_table()
    table.fail(failures.peer_closed())
    assert table.close() == b""


# -- the handshake and its errors ---------------------------------------------------

def test_handshake_refused_maps_to_connect_errors() -> None:
    table: Table = CallTable(ClientProtocol(token="wrong"), now=0.0)
    assert table.in_flight == 0
    failure = table.receive(encode_error(0, ErrorCode.UNAUTHORIZED, "bad token"), 0.0)
    assert isinstance(failure, AuthenticationError)
    with pytest.raises(AuthenticationError):
        table.handshake_outcome()


def test_handshake_and_connect_error_mapping() -> None:
    assert isinstance(failures.handshake_failed(failures.call_timeout()), ConnectTimeout)
    closed = failures.handshake_failed(failures.peer_closed())
    assert type(closed) is ConnectError and "during the handshake" in str(closed)
    other = failures.handshake_failed(ProtocolError("x"))
    assert type(other) is ConnectError and str(other) == "handshake failed: x"
    refused = AuthenticationError("no")
    assert failures.handshake_failed(refused) is refused
    assert isinstance(failures.connect_failed("h:1", TimeoutError()), ConnectTimeout)
    error = failures.connect_failed("h:1", ConnectionRefusedError("refused"))
    assert type(error) is ConnectError and str(error) == "cannot connect to h:1: refused"


def test_deadlines() -> None:
    assert deadline_module.deadline(None) == float("inf")
    assert deadline_module.seconds_left(float("inf")) is None
    left = deadline_module.seconds_left(deadline_module.deadline(5))
    assert left is not None and 4 < left <= 5


def test_a_stream_over_its_backlog_holds_reading_until_half_is_taken() -> None:
    table, _ = open_table()
    call, _ = table.start(CallKind.STREAM, "words", b"")
    item = b"x" * 1000
    per_item = len(item) + ITEM_COST
    count = STREAM_BACKLOG // per_item + 1
    table.receive(b"".join(frame(FrameKind.STREAM_ITEM, call, item) for _ in range(count)), 0.0)
    assert table.backlogged.keys() == {call}
    taken = 0
    while table.backlogged:
        assert table.next_item(call) == item
        taken += 1
    assert call.backlog <= STREAM_BACKLOG // 2 < call.backlog + per_item
    assert taken == count - (STREAM_BACKLOG // 2) // per_item
    table.receive(b"".join(frame(FrameKind.STREAM_ITEM, call, item) for _ in range(count)), 0.0)
    assert table.backlogged.keys() == {call}
    table.give_up(call)  # leaving the stream frees its backlog at once
    assert not table.backlogged and call.backlog == 0
