"""Many waits' deadlines behind one timer (no I/O).

A transport that armed a loop timer per call pays for a timer handle, a heap
push and a cancel on every call, though nearly every call ends long before its
timeout. :class:`TimerQueue` keeps every pending deadline behind one timer: the
transport arms it when :meth:`TimerQueue.add` says so (only for a deadline earlier
than the one it is armed for) and, when it fires, expires what
:meth:`TimerQueue.fired` returns and arms it for :meth:`TimerQueue.arm`. A wait
that ended is not removed (that would cost a search): it is skipped when it
reaches the front, and a timer armed for it fires for nothing. So a connection busy
with calls that answer in time arms its timer about once per timeout, whatever
its call rate, sequential calls included.

Calls with one timeout, made one after the other, have deadlines in the order they
are added: those go to a queue, a deadline earlier than the last one queued to a
heap. The earliest is at the front of one of them. The queue is a list read from
an index (a deque takes 600 bytes even empty); the ended waits before the index are
cut off once they are half of it.

The timer may serve other work too (a keepalive check): the transport then sets
:attr:`TimerQueue.armed` to when it armed the timer for, and ``add`` still says
whether a deadline comes before that.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
_COMPACT_AT = 128
_CUT_AT = 32  # ended waits kept before the queue's front, at most, beyond half of it


class TimerQueue(Generic[T]):
    """TimerQueue of waits (``T``: whatever the transport expires), earliest first.

    ``ended(wait)`` says whether a wait is over already (answered, failed, given up).
    Each wait may carry the timeout that set its deadline, for the error it ends with.
    """

    __slots__ = ("_count", "_ended", "_front", "_heap", "_limit", "_queue", "armed")

    def __init__(self, ended: Callable[[T], bool]) -> None:
        self._queue: list[tuple[float, T, float | None]] = []  # deadlines in order, from _front
        self._front = 0  # < len(_queue) unless it is empty
        self._heap: list[tuple[float, int, T, float | None]] | None = None  # the others, once any
        self._count = 0  # ties in the heap: first added, first expired; T is never compared
        self._ended = ended
        self._limit = _COMPACT_AT
        self.armed = math.inf
        """When the transport's timer is armed for (``math.inf``: not armed)."""

    def __len__(self) -> int:
        return len(self._queue) - self._front + len(self._heap or ())

    def add(self, when: float, wait: T, timeout: float | None = None) -> bool:
        """Track ``wait`` until ``when``. True if the timer must be (re-)armed for ``when``:
        it is not armed, or armed for later."""
        queue = self._queue
        ended = self._ended
        if queue and ended(queue[self._front][1]):  # waits that ended: dropped as they surface
            end = len(queue)
            if end == 1:  # calls one after the other
                queue.clear()
            else:
                front = self._front + 1
                while front < end and ended(queue[front][1]):
                    front += 1
                if front == end:
                    queue.clear()
                    front = 0
                elif front > _CUT_AT and 2 * front > end:
                    del queue[:front]
                    front = 0
                self._front = front
        if not queue or when >= queue[-1][0]:
            queue.append((when, wait, timeout))
            if len(queue) > self._limit:
                self._compact()
        else:
            heap = self._heap
            if heap is None:
                heap = self._heap = []
            while heap and ended(heap[0][2]):
                heapq.heappop(heap)
            self._count += 1
            heapq.heappush(heap, (when, self._count, wait, timeout))
            if len(heap) > self._limit:
                self._compact()
        if when < self.armed:
            self.armed = when
            return True
        return False

    def _compact(self) -> None:
        """Drop every wait that ended. Ended waits surface only from the front, so one long
        wait at the front could otherwise keep all the ended ones behind it: the queue
        and the heap are kept within twice the live waits (and at least ``_COMPACT_AT``),
        at O(1) per add on average."""
        ended = self._ended
        self._queue = [entry for entry in self._queue[self._front :] if not ended(entry[1])]
        self._front = 0
        if self._heap is not None:
            self._heap = [entry for entry in self._heap if not ended(entry[2])]
            heapq.heapify(self._heap)
        self._limit = max(_COMPACT_AT, 2 * len(self))

    def fired(self, now: float) -> list[tuple[T, float | None]]:
        """The timer fired: the waits whose deadline has come and that have not ended,
        each with its timeout, in deadline order; they are no longer tracked. Arm the
        timer again for :meth:`arm`."""
        self.armed = math.inf
        ended = self._ended
        queue, front = self._queue, self._front
        end = front
        while end < len(queue) and (queue[end][0] <= now or ended(queue[end][1])):
            end += 1
        due = [entry for entry in queue[front:end] if not ended(entry[1])]
        del queue[:end]
        self._front = 0
        heap = self._heap
        if heap:
            queued = len(due)
            while heap and (heap[0][0] <= now or ended(heap[0][2])):
                when, _, wait, timeout = heapq.heappop(heap)
                if not ended(wait):
                    due.append((when, wait, timeout))
            if queued and len(due) > queued:
                due.sort(key=_deadline)  # stable: of equal deadlines, the queued first
        return [(wait, timeout) for _, wait, timeout in due]

    def arm(self) -> float:
        """When to arm the timer for after it fired: the earliest deadline of a wait not
        known to have ended (``math.inf``: none, leave it unarmed)."""
        queue, heap = self._queue, self._heap  # fired() dropped the ended ones in front
        first = queue[self._front][0] if queue else math.inf
        if heap and heap[0][0] < first:
            first = heap[0][0]
        self.armed = first
        return first


def _deadline(entry: tuple[float, object, float | None]) -> float:
    return entry[0]
