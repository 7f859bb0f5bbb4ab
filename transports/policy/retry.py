"""When to try again, and after how long: reconnects and retried calls (no I/O).

One :class:`RetryPolicy` bounds both. A *series* of tries (reconnecting after a
lost connection, or one call tried again) waits an exponentially growing,
jittered delay before each new try, and stops when ``budget`` seconds have passed
since the series began, at ``attempts`` tries if a count is given, or when the next
try would begin past the call's own deadline, whichever comes first. By default there
is no count: a call rides out a server restart as long as its timeout allows.

Which failures may be retried is decided here too (:func:`may_retry`): an
error that says "try again" (``err.retryable``), for a call that is safe to
send twice (``idempotent``) or that certainly never reached the server.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from dualio_transports.policy.timeouts import check_timeout
from dualio_transports.wire.errors import ConnectionLost, DualioError, RetriesExhausted


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many times, and how patiently, to reconnect and to retry a call.

    ``attempts``: tries after the first one (None: as many as the call's deadline and
    the budget allow); ``base_delay`` doubles each try up to ``max_delay``, and each
    delay is drawn uniformly from [half of it, all of it] (jitter: clients that lost
    the same server do not return in step); ``budget``: seconds a series of tries may
    take in all.
    """

    attempts: int | None = None
    base_delay: float = 0.05
    max_delay: float = 2.0
    budget: float = 30.0

    def __post_init__(self) -> None:
        if self.attempts is not None and (
            isinstance(self.attempts, bool) or not isinstance(self.attempts, int) or self.attempts < 0
        ):
            raise ValueError(f"attempts must be None or an int >= 0, got {self.attempts!r}")
        for name in ("base_delay", "max_delay", "budget"):
            check_timeout(name, getattr(self, name))
        if self.max_delay < self.base_delay:
            raise ValueError("max_delay must be >= base_delay")

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """The wait before try number ``attempt`` + 1 (``attempt`` counts from 1)."""
        ceiling = min(self.max_delay, self.base_delay * 2 ** min(attempt - 1, 62))
        return (rng or random).uniform(ceiling / 2, ceiling)

    def series(self) -> Series:
        return Series(self)


DEFAULT_RETRY = RetryPolicy()


def check_policy(policy: RetryPolicy | None) -> RetryPolicy | None:
    if policy is not None and not isinstance(policy, RetryPolicy):
        raise TypeError(f"retry must be a RetryPolicy or None, not {type(policy).__name__}")
    return policy


class Series:
    """One series of tries under a policy, within its budget. The series keeps no call's
    deadline: a caller that has one says it with each decision (:meth:`next_delay`)."""

    __slots__ = ("_budget_ends", "_policy", "_started", "failures")

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self._started = time.monotonic()
        self._budget_ends = self._started + policy.budget
        self.failures: list[DualioError] = []

    def next_delay(self, error: DualioError, until: float = math.inf) -> float:
        """After a failed try: the wait before the next one, which must end before the
        budget does and before ``until`` (the call's deadline, if it has one). Raises
        :class:`RetriesExhausted` (its cause: ``error``) when the series is over."""
        self.failures.append(error)
        tries = len(self.failures)
        attempts = self._policy.attempts
        if attempts is not None and tries > attempts:
            raise RetriesExhausted(
                f"gave up after {tries} tries: {error}", tries, self.failures
            ) from error
        wait = self._policy.delay(tries)
        self._check_time(error, wait, until)
        return wait

    def next_poll(self, error: DualioError, interval: float, until: float = math.inf) -> float:
        """While waiting for what only time mends (a cluster promoting a replica):
        ``interval`` before asking again, which is no try (``attempts`` bounds tries, not
        polls), within the budget and before ``until``. Raises :class:`RetriesExhausted`
        (its cause: ``error``) when either ends first."""
        self._check_time(error, interval, until)
        return interval

    def _check_time(self, error: DualioError, wait: float, until: float) -> None:
        ends = min(until, self._budget_ends)
        if time.monotonic() + wait >= ends:
            if not self.failures or self.failures[-1] is not error:
                self.failures.append(error)
            limit = (
                f"retry budget {self._policy.budget:g}s" if ends == self._budget_ends
                else "the call's timeout ends before the next try"
            )
            raise RetriesExhausted(
                f"gave up after {len(self.failures)} tries in {time.monotonic() - self._started:.1f}s "
                f"({limit}): {error}", len(self.failures), self.failures,
            ) from error


def may_retry(error: DualioError, idempotent: bool) -> bool:
    """Whether a call that failed with ``error`` may be sent again."""
    if not error.retryable:
        return False
    if isinstance(error, ConnectionLost):
        return idempotent  # the request may have reached the server
    return True


def may_reconnect(failure: DualioError | None, policy: RetryPolicy | None) -> bool:
    """Whether a client whose connection ended with ``failure`` opens a new one. Not
    without a policy, and not after a failure that trying again cannot mend (the
    server broke the protocol, refused the token, ...)."""
    return policy is not None and (failure is None or failure.retryable)
