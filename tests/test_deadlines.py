"""TimerQueue (transports/native/timer_queue.py): many waits behind one timer, in memory."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dualio_transports.native.timer_queue import TimerQueue


@dataclass(eq=False)
class Wait:
    name: str
    ended: bool = False


def deadlines() -> TimerQueue[Wait]:
    return TimerQueue(lambda wait: wait.ended)


def due(d: TimerQueue[Wait], now: float) -> list[Wait]:
    """What fired at ``now``, without the timeouts."""
    return [wait for wait, _ in d.fired(now)]


def test_due_in_deadline_order_and_only_once() -> None:
    d = deadlines()
    late, early, same = Wait("late"), Wait("early"), Wait("same")
    assert d.add(5.0, late)  # nothing armed: arm
    assert d.add(1.0, early)  # earlier: re-arm
    assert not d.add(5.0, same)  # a tie is not earlier
    assert d.armed == 1.0
    assert due(d, 0.5) == [] and d.arm() == 1.0  # fired early: armed again, same time
    assert due(d, 1.0) == [early] and d.arm() == 5.0
    assert due(d, 10.0) == [late, same]  # ties in the order added
    assert d.arm() == math.inf and d.armed == math.inf
    assert due(d, 10.0) == [] and d.arm() == math.inf


def test_ended_waits_are_never_due_and_do_not_hold_the_timer() -> None:
    d = deadlines()
    answered, waiting = Wait("answered"), Wait("waiting")
    d.add(1.0, answered)
    d.add(2.0, waiting)
    answered.ended = True
    assert due(d, 1.5) == []
    assert d.arm() == 2.0  # the ended one is gone from the top
    assert due(d, 2.0) == [waiting]


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
    assert due(d, 30.0) == [] and d.arm() == math.inf  # it fires once, for nothing


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
    assert due(d, 1.0) == [slow]


def test_a_wait_comes_back_with_its_timeout() -> None:
    d = deadlines()
    item, call = Wait("item"), Wait("call")
    d.add(2.0, item, 0.5)
    d.add(1.0, call)
    assert d.fired(3.0) == [(call, None), (item, 0.5)]


def test_a_timer_armed_for_other_work_is_rearmed_only_for_earlier_deadlines() -> None:
    """A transport whose timer also serves a keepalive check sets ``armed`` itself."""
    d = deadlines()
    d.armed = 15.0  # armed for the keepalive check
    assert not d.add(30.0, Wait("long"))  # after the check: the timer stays
    assert d.add(10.0, Wait("short"))  # before it: arm for it
    assert d.armed == 10.0
    assert due(d, 10.0)[0].name == "short" and d.arm() == 30.0


def test_waits_that_ended_on_top_make_room_for_the_next() -> None:
    d = deadlines()
    waits = [Wait(str(i)) for i in range(3)]
    for i, wait in enumerate(waits):
        d.add(1.0 + i, wait)
    waits[0].ended = waits[1].ended = True
    later = Wait("later")
    d.add(10.0, later)  # the ended ones on top are dropped, the live one stays
    assert len(d) == 2
    assert due(d, 20.0) == [waits[2], later]


def test_deadlines_added_out_of_order_fire_in_order() -> None:
    """Most deadlines come in order (one timeout, one call after another); one earlier
    than the last added still fires first, and all fire in deadline order."""
    d = deadlines()
    waits = {when: Wait(str(when)) for when in (5.0, 1.0, 3.0, 6.0, 2.0, 7.0)}
    armed = [d.add(when, wait) for when, wait in waits.items()]
    assert armed == [True, True, False, False, False, False]
    assert due(d, 2.5) == [waits[1.0], waits[2.0]] and d.arm() == 3.0
    assert due(d, 10.0) == [waits[3.0], waits[5.0], waits[6.0], waits[7.0]]
    assert d.arm() == math.inf and len(d) == 0


def test_many_in_flight_keep_few_ended_waits() -> None:
    """100 waits live at once, each ending in turn as a new one comes: the ended ones in
    front are let go as they pile up, not kept until the timer fires."""
    d = deadlines()
    live = [Wait(str(i)) for i in range(100)]
    for i, wait in enumerate(live):
        d.add(30.0 + i, wait)
    most = 0
    for i in range(100, 10_000):
        live[i % 100].ended = True
        live[i % 100] = Wait(str(i))
        d.add(30.0 + i, live[i % 100])
        most = max(most, len(d))
    assert most <= 101  # only the live ones count
    assert len(d._queue) <= 2 * 100 + 1  # what is held, ended ones included
    assert due(d, 30.0 + 10_000) == sorted(live, key=lambda wait: int(wait.name))
