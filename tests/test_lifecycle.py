"""The client lifecycle state machine (transports/policy/lifecycle.py), in memory."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dualio_transports.policy.events import ConnectionState
from dualio_transports.policy.lifecycle import Lifecycle
from dualio_transports.policy.retry import RetryPolicy
from dualio_transports.wire.errors import (
    AuthenticationError,
    ClosedError,
    ConnectError,
    ConnectionLost,
    DualioError,
    ProtocolError,
)

RETRY = RetryPolicy()
S = ConnectionState


@dataclass
class Conn:
    closed: bool = False
    failure: DualioError | None = None


def life() -> tuple[Lifecycle, list[tuple[ConnectionState, DualioError | None]]]:
    seen: list[tuple[ConnectionState, DualioError | None]] = []
    return Lifecycle("here", lambda state, cause: seen.append((state, cause))), seen


def test_connect_reconnect_close_are_reported_in_order() -> None:
    lc, seen = life()
    lc.connecting()
    assert lc.connected()
    lost = ConnectionLost("gone")
    assert not lc.keeps(Conn(True, lost), RETRY)
    lc.connecting()
    assert lc.connected()
    lc.closing()
    lc.closed()
    assert seen == [(S.CONNECTING, None), (S.CONNECTED, None), (S.DISCONNECTED, lost),
                    (S.RECONNECTING, None), (S.CONNECTED, None), (S.CLOSED, None)]


def test_a_healthy_connection_or_one_failed_for_good_is_kept() -> None:
    lc, seen = life()
    assert lc.keeps(Conn(), RETRY)
    assert lc.keeps(Conn(True, ConnectionLost("gone")), None)  # no policy: the failure stands
    assert lc.keeps(Conn(True, ProtocolError("garbage")), RETRY)  # retrying cannot mend it
    assert seen == []


def test_a_refusal_that_cannot_mend_closes_the_client() -> None:
    lc, _ = life()
    lc.connect_failed(ConnectError("refused"))  # retryable: later calls try again
    assert not lc.is_closed(None, RETRY)
    lc.check_open()
    refusal = AuthenticationError("wrong token")
    lc.connect_failed(refusal)
    assert lc.is_closed(None, RETRY)
    with pytest.raises(ClosedError, match="wrong token") as info:
        lc.check_open()
    assert info.value.__cause__ is refusal


def test_closed_for_good_without_a_policy() -> None:
    lc, _ = life()
    failed = Conn(True, ConnectionLost("gone"))
    assert lc.is_closed(failed, None) and not lc.is_closed(failed, RETRY)
    assert not lc.is_closed(Conn(), None)


def test_a_connect_completed_after_close_is_refused_and_closed_stays_last() -> None:
    lc, seen = life()
    lc.connecting()
    lc.closing()
    lc.closed()
    assert not lc.connected()
    with pytest.raises(ClosedError):
        lc.check_open()
    assert seen[-1] == (S.CLOSED, None)
    lc.connecting()
    assert seen[-1] == (S.CLOSED, None)  # nothing is reported after CLOSED
