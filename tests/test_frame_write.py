"""The rules of writing frames (transports/wire/frame_write.py), driven in memory: what
a write that ends short of its batch means for the call and for the connection."""

from __future__ import annotations

import math
import time

import pytest

from dualio_transports.wire import timing
from dualio_transports.wire.errors import ConnectionLost, DualioTimeout
from dualio_transports.wire.frame_write import FrameWrite


def test_a_whole_write_is_finished_and_never_cut() -> None:
    write = FrameWrite(b"abcdef", math.inf)
    write.sent(4)
    assert write.cut and not write.finished and bytes(write.rest) == b"ef"
    write.sent(2)
    assert write.finished and not write.cut
    assert write.interrupted("cancelled") is None


def test_a_deadline_before_the_first_byte_times_the_call_out_and_keeps_the_connection() -> None:
    write = FrameWrite(b"abcdef", time.monotonic() + 0.01)
    write.wait_until()
    error, failure = write.expired()
    assert isinstance(error, DualioTimeout) and failure is None


def test_a_deadline_after_part_of_a_frame_fails_the_connection_not_the_client() -> None:
    write = FrameWrite(b"abcdef", time.monotonic() + 0.01)
    write.sent(3)
    write.wait_until()
    error, failure = write.expired()
    assert isinstance(error, DualioTimeout)
    assert isinstance(failure, ConnectionLost) and failure.retryable
    assert "middle of writing a frame" in str(failure)


def test_a_send_that_may_have_begun_counts_as_cut() -> None:
    write = FrameWrite(b"abcdef", time.monotonic() + 0.01)
    write.wait_until()
    _, failure = write.expired(may_have_begun=True)
    assert isinstance(failure, ConnectionLost)
    assert isinstance(write.interrupted("cancelled", may_have_begun=True), ConnectionLost)


def test_no_progress_for_the_stall_limit_fails_the_connection_whatever_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(timing, "WRITE_STALL_LIMIT", 0.5)
    for until in (math.inf, time.monotonic() + 60):
        write = FrameWrite(b"abcdef", until)
        assert write.wait_until() <= time.monotonic() + 0.5
        error, failure = write.expired()
        assert error is failure and isinstance(failure, ConnectionLost)
        assert "no progress for 0.5s" in str(failure)


def test_an_interrupt_tears_only_a_cut_frame() -> None:
    write = FrameWrite(b"abcdef", math.inf)
    assert write.interrupted("interrupted") is None  # nothing left: the call is released
    write.sent(1)
    failure = write.interrupted("interrupted")
    assert isinstance(failure, ConnectionLost) and "interrupted in the middle" in str(failure)


def test_a_buffer_that_did_not_shrink_between_two_looks_is_a_stalled_write() -> None:
    """The rule of a transport that writes into a buffer of its own (asyncio's)."""
    from dualio_transports.wire.frame_write import buffer_stalled

    assert buffer_stalled(1000, 999) is None  # the peer took a byte: not stalled
    stalled = buffer_stalled(1000, 1000)
    assert isinstance(stalled, ConnectionLost) and "no progress" in str(stalled)
    assert buffer_stalled(1000, 5000) is not None  # grew, nothing taken
