"""Deadlines (transports/wire/deadlines.py): many waits behind one timer, in memory."""

from __future__ import annotations

import math
from dataclasses import dataclass

from transports.wire.deadlines import Deadlines


@dataclass(eq=False)
class Wait:
    name: str
    ended: bool = False


def deadlines() -> Deadlines[Wait]:
    return Deadlines(lambda wait: wait.ended)


def test_due_in_deadline_order_and_only_once() -> None:
    d = deadlines()
    late, early, same = Wait("late"), Wait("early"), Wait("same")
    assert d.add(5.0, late)  # the first is the earliest
    assert d.add(1.0, early)  # earlier: re-arm
    assert not d.add(5.0, same)  # a tie is not earlier
    assert d.next() == 1.0
    assert d.due(0.5) == []
    assert d.due(1.0) == [early]
    assert d.due(10.0) == [late, same]  # ties in the order added
    assert d.due(10.0) == [] and d.next() == math.inf


def test_ended_waits_are_never_due_and_do_not_hold_the_timer() -> None:
    d = deadlines()
    answered, waiting = Wait("answered"), Wait("waiting")
    d.add(1.0, answered)
    d.add(2.0, waiting)
    answered.ended = True
    assert d.due(1.5) == []
    assert d.next() == 2.0  # the ended one is gone from the top
    assert d.due(2.0) == [waiting]


def test_a_call_that_ends_in_time_leaves_nothing_behind() -> None:
    """Sequential calls that each end before the next: the heap stays one or two long."""
    d = deadlines()
    for i in range(10_000):
        wait = Wait(str(i))
        d.add(30.0 + i * 1e-4, wait)
        wait.ended = True
        assert len(d) <= 2


def test_one_long_wait_cannot_pin_the_ended_ones_below_it() -> None:
    """A wait with a far deadline at the top, and 100,000 calls that end under it: the heap
    stays within twice what is live (and 128) instead of growing with every call."""
    d = deadlines()
    slow = Wait("slow")
    d.add(1.0, slow)
    most = 0
    for i in range(100_000):
        wait = Wait(str(i))
        d.add(2.0 + i, wait)
        wait.ended = True
        most = max(most, len(d))
    assert most <= 129
    assert d.due(1.0) == [slow]
