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
    assert d.add(5.0, late)  # nothing armed: arm
    assert d.add(1.0, early)  # earlier: re-arm
    assert not d.add(5.0, same)  # a tie is not earlier
    assert d.armed == 1.0
    assert d.fired(0.5) == [] and d.arm() == 1.0  # fired early: armed again, same time
    assert d.fired(1.0) == [early] and d.arm() == 5.0
    assert d.fired(10.0) == [late, same]  # ties in the order added
    assert d.arm() == math.inf and d.armed == math.inf
    assert d.fired(10.0) == [] and d.arm() == math.inf


def test_ended_waits_are_never_due_and_do_not_hold_the_timer() -> None:
    d = deadlines()
    answered, waiting = Wait("answered"), Wait("waiting")
    d.add(1.0, answered)
    d.add(2.0, waiting)
    answered.ended = True
    assert d.fired(1.5) == []
    assert d.arm() == 2.0  # the ended one is gone from the top
    assert d.fired(2.0) == [waiting]


def test_a_call_that_ends_in_time_leaves_nothing_behind() -> None:
    """Sequential calls that each end before the next: the heap stays one or two long,
    and the timer is armed once, not once per call."""
    d = deadlines()
    armed = 0
    for i in range(10_000):
        wait = Wait(str(i))
        armed += d.add(30.0 + i * 1e-4, wait)
        wait.ended = True
        assert len(d) <= 2
    assert armed == 1
    assert d.fired(30.0) == [] and d.arm() == math.inf  # it fires once, for nothing


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
    assert d.fired(1.0) == [slow]
