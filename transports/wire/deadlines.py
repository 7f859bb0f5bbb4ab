"""Many waits' deadlines behind one timer (no I/O).

A transport that armed a loop timer per call pays for a timer handle, a heap
push and a cancel on every call, though nearly every call ends long before its
timeout. :class:`Deadlines` keeps every pending deadline in one heap behind one
timer: the transport arms it when :meth:`Deadlines.add` says so (only for a
deadline earlier than the one it is armed for) and, when it fires, expires what
:meth:`Deadlines.fired` returns and arms it for :meth:`Deadlines.arm`. A wait
that ended is not removed (that would cost a search): it is skipped when it
reaches the top, and a timer armed for it fires for nothing. So a connection busy
with calls that answer in time arms its timer about once per timeout, whatever
its call rate, sequential calls included.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
_COMPACT_AT = 128


class Deadlines(Generic[T]):
    """Deadlines of waits (``T``: whatever the transport expires), earliest first.

    ``ended(wait)`` says whether a wait is over already (answered, failed, given up).
    """

    __slots__ = ("_count", "_ended", "_heap", "_limit", "armed")

    def __init__(self, ended: Callable[[T], bool]) -> None:
        self._heap: list[tuple[float, int, T]] = []
        self._count = 0  # ties: first added, first expired; and T is never compared
        self._ended = ended
        self._limit = _COMPACT_AT
        self.armed = math.inf
        """When the transport's timer is armed for (``math.inf``: not armed)."""

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, when: float, wait: T) -> bool:
        """Track ``wait`` until ``when``. True if the timer must be (re-)armed for ``when``:
        it is not armed, or armed for later."""
        heap = self._heap
        ended = self._ended
        while heap and ended(heap[0][2]):  # waits that ended: dropped as they surface
            heapq.heappop(heap)
        self._count += 1
        heapq.heappush(heap, (when, self._count, wait))
        if len(heap) > self._limit:
            self._compact()
        if when < self.armed:
            self.armed = when
            return True
        return False

    def _compact(self) -> None:
        """Drop every wait that ended. Ended waits surface only from the top, so one long
        wait at the top could otherwise keep all the ended ones below it: the heap is
        kept within twice its live waits (and at least ``_COMPACT_AT``), at O(1) per add
        on average."""
        ended = self._ended
        self._heap = [entry for entry in self._heap if not ended(entry[2])]
        heapq.heapify(self._heap)
        self._limit = max(_COMPACT_AT, 2 * len(self._heap))

    def fired(self, now: float) -> list[T]:
        """The timer fired: the waits whose deadline has come and that have not ended, in
        deadline order; they are no longer tracked. Arm the timer again for :meth:`arm`."""
        self.armed = math.inf
        heap = self._heap
        ended = self._ended
        out = []
        while heap and (heap[0][0] <= now or ended(heap[0][2])):
            _, _, wait = heapq.heappop(heap)
            if not ended(wait):
                out.append(wait)
        return out

    def arm(self) -> float:
        """When to arm the timer for after it fired: the earliest deadline of a wait not
        known to have ended (``math.inf``: none, leave it unarmed)."""
        heap = self._heap
        self.armed = heap[0][0] if heap else math.inf  # fired() dropped the ended ones on top
        return self.armed
