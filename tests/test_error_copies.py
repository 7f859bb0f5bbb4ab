"""``DualioError.for_call``: the copy of an error that one call raises, naming it."""

from __future__ import annotations

import pickle

import pytest

from dualio_transports.wire.errors import (
    ConnectionLost,
    DualioError,
    ErrorCode,
    RemoteError,
    RetriesExhausted,
    ServiceError,
    StreamInterrupted,
)


@pytest.mark.parametrize("error", [
    ConnectionLost("the server closed the connection"),
    StreamInterrupted("the words stream broke after 3 items", 3),
    RetriesExhausted("gave up after 2 tries", 2, [ConnectionLost("a"), ConnectionLost("b")]),
    ServiceError(ErrorCode.BUSY, "full"),
])
def test_a_copy_names_the_call_and_keeps_everything_else(error: DualioError) -> None:
    cause = OSError("reset")
    error.__cause__ = cause
    named = error.for_call("echo", 7)
    assert named is not error and type(named) is type(error)
    assert (named.method, named.request_id) == ("echo", 7)
    assert (error.method, error.request_id) == (None, None)  # the shared one is untouched
    assert not hasattr(error, "__notes__")
    assert str(named) == str(error) and named.args == error.args
    assert named.retryable == error.retryable
    assert named.__cause__ is cause
    added = ("method", "request_id", "__notes__")
    assert {k: v for k, v in vars(named).items() if k not in added} == vars(error)
    assert named.__notes__ == ["call: echo, request id 7"]


def test_naming_again_replaces_the_note() -> None:
    named = ConnectionLost("gone").for_call("echo", 1).for_call("upper", None)
    assert (named.method, named.request_id) == ("upper", None)
    assert named.__notes__ == ["call: upper, never sent"]


def test_a_users_own_notes_are_kept() -> None:
    error = ConnectionLost("gone")
    error.add_note("seen by the user")
    assert error.for_call("echo", 2).__notes__ == ["seen by the user", "call: echo, request id 2"]


def test_the_copy_is_a_plain_exception_still() -> None:
    named = ServiceError(ErrorCode.NOT_READY, "later").for_call("stats", 3)
    with pytest.raises(RemoteError, match="NOT_READY: later"):
        raise named
    assert pickle.loads(pickle.dumps(ConnectionLost("x").for_call("e", 1))).args == ("x",)
