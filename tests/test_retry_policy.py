"""The retry policy and which failures may be retried, with no I/O."""

from __future__ import annotations

import math
import random
import time

import pytest

from dualio_transports.policy.retry import RetryPolicy, may_retry
from dualio_transports.wire.errors import (
    AuthenticationError,
    ClosedError,
    ConnectError,
    ConnectionLost,
    DualioTimeout,
    ErrorCode,
    ProtocolError,
    RetriesExhausted,
    ServiceError,
    VersionMismatch,
)


def test_delays_grow_exponentially_with_jitter_up_to_the_cap() -> None:
    policy = RetryPolicy(attempts=10, base_delay=0.1, max_delay=1.0)
    rng = random.Random(7)
    for attempt, ceiling in [(1, 0.1), (2, 0.2), (3, 0.4), (4, 0.8), (5, 1.0), (9, 1.0)]:
        delays = [policy.delay(attempt, rng) for _ in range(200)]
        assert ceiling / 2 <= min(delays) and max(delays) <= ceiling
        assert max(delays) - min(delays) > ceiling / 4  # jittered, not fixed


def test_a_series_stops_after_its_attempts_naming_them() -> None:
    series = RetryPolicy(attempts=2, base_delay=0.01, max_delay=0.01).series()
    errors = [ConnectError("refused 1"), ConnectError("refused 2"), ConnectError("refused 3")]
    assert series.next_delay(errors[0]) <= 0.01
    assert series.next_delay(errors[1]) <= 0.01
    with pytest.raises(RetriesExhausted, match="gave up after 3 tries: refused 3") as info:
        series.next_delay(errors[2])
    assert info.value.attempts == 3 and info.value.errors == errors
    assert info.value.__cause__ is errors[2] and not info.value.retryable


def test_a_series_stops_at_its_budget_or_the_callers_deadline() -> None:
    series = RetryPolicy(attempts=100, base_delay=1.0, max_delay=1.0, budget=0.5).series()
    with pytest.raises(RetriesExhausted, match=r"retry budget 0\.5s"):
        series.next_delay(ConnectError("down"))
    short = RetryPolicy(attempts=100, base_delay=1.0, max_delay=1.0).series()
    ends = r"the call's timeout ends before the next try\): down"
    with pytest.raises(RetriesExhausted, match=ends) as info:
        short.next_delay(ConnectError("down"), until=time.monotonic() + 0.2)
    assert "retry budget" not in str(info.value)
    assert RetryPolicy().series().next_delay(ConnectError("down"), until=math.inf) <= 0.05


@pytest.mark.parametrize(
    "kwargs",
    [{"attempts": -1}, {"attempts": 1.5}, {"base_delay": 0}, {"max_delay": float("nan")},
     {"budget": -1}, {"base_delay": 2.0, "max_delay": 1.0}],
)
def test_bad_policies_are_value_errors(kwargs: dict[str, float]) -> None:
    with pytest.raises((ValueError, TypeError)):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "idempotent", "expected"),
    [
        (ConnectError("refused"), False, True),
        (ConnectionLost("reset"), True, True),
        (ConnectionLost("reset"), False, False),  # may have been served: not sent twice
        (ServiceError(ErrorCode.SHUTTING_DOWN, "bye"), False, True),
        (ServiceError(ErrorCode.BUSY, "full"), True, True),
        (ServiceError(ErrorCode.NOT_READY, ""), True, True),
        (ServiceError(ErrorCode.INTERNAL, "bug"), True, False),
        (ServiceError(ErrorCode.BAD_ARGUMENTS, ""), True, False),
        (AuthenticationError("wrong token"), True, False),
        (VersionMismatch("v2"), True, False),
        (ProtocolError("garbage"), True, False),
        (DualioTimeout("slow"), True, False),
        (ClosedError("closed by you"), True, False),
    ],
)
def test_which_failures_may_be_retried(error: Exception, idempotent: bool, expected: bool) -> None:
    assert may_retry(error, idempotent) is expected  # type: ignore[arg-type]


def test_the_default_policy_counts_no_tries_its_calls_deadline_and_budget_bound_it() -> None:
    """A server restart of a few seconds is ridden out by a call whose timeout allows it:
    the default series goes on past the five tries of old, until the deadline given."""
    assert RetryPolicy().attempts is None
    series = RetryPolicy().series()
    waits = [series.next_delay(ConnectError("down"), until=math.inf) for _ in range(20)]
    assert sum(waits) > 10  # 20 tries, and it would go on
    with pytest.raises(RetriesExhausted, match="the call's timeout ends before the next try"):
        RetryPolicy().series().next_delay(ConnectError("down"), until=time.monotonic() + 0.01)


def test_polls_are_no_tries_and_end_with_the_deadline() -> None:
    from dualio_transports.wire.errors import ConnectError, RetriesExhausted

    series = RetryPolicy(attempts=1).series()
    error = ConnectError("down")
    for _ in range(50):  # a cluster waiting for a promotion polls many times on one try's budget
        assert series.next_poll(error, 0.05, until=time.monotonic() + 10) == 0.05
    assert series.next_delay(error) > 0  # the one try the policy allows, polls aside
    with pytest.raises(RetriesExhausted, match="gave up after 2 tries"):
        series.next_delay(error)
    with pytest.raises(RetriesExhausted, match="timeout ends before the next try"):
        RetryPolicy().series().next_poll(error, 0.05, until=time.monotonic() + 0.01)
