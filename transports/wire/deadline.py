"""A call's deadline: made once, from its timeout, where the public call starts.

A deadline (``until``) is a ``time.monotonic()`` instant, ``math.inf`` for none. The
face turns a call's timeout into one (:func:`deadline`); from there the retry series,
reconnecting, the procedure and every transport take that instant as it is, and only
the socket wait at the bottom turns it back into seconds (:func:`seconds_left`) or onto
its event loop's clock (:func:`on_clock`). A stream has one deadline per item: the first
is the stream's own (it counts any reconnect before it), each later one is made when
its wait begins, from the stream's item timeout (:class:`ItemDeadlines`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

NO_DEADLINE = math.inf


def deadline(timeout: float | None, now: float | None = None) -> float:
    """The ``time.monotonic()`` by which to give up, ``timeout`` from ``now`` (default:
    now); :data:`NO_DEADLINE` for no timeout."""
    if timeout is None:
        return NO_DEADLINE
    return (time.monotonic() if now is None else now) + timeout


def seconds_left(until: float) -> float | None:
    """Seconds left before ``until`` (may be <= 0); None when there is no deadline."""
    return None if until == NO_DEADLINE else until - time.monotonic()


def passed(until: float) -> bool:
    """Whether ``until`` has come (never, for no deadline: ``math.inf`` is after every time)."""
    return until <= time.monotonic()


def on_clock(until: float, clock: Callable[[], float]) -> float:
    """``until`` on another clock (an event loop's, which may not be ``time.monotonic``):
    the same instant, as ``clock`` counts it. No deadline stays none."""
    if until == NO_DEADLINE or clock is time.monotonic:
        return until
    return until - time.monotonic() + clock()


class ItemDeadlines:
    """The deadlines of a stream's items: until the first item is taken, the stream's own
    deadline; after that, ``item_timeout`` from when each wait begins."""

    __slots__ = ("_first", "item_timeout")

    def __init__(self, first: float, item_timeout: float | None) -> None:
        self._first: float | None = first
        self.item_timeout = item_timeout

    def for_wait(self, now: float) -> float:
        """The deadline of a wait for the next item, made as the wait begins (at ``now``)."""
        first = self._first
        return deadline(self.item_timeout, now) if first is None else first

    def item_taken(self) -> None:
        self._first = None
