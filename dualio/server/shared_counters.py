"""The counters of a server made of several worker processes: one row per worker in
memory the workers share, so that ``stats()`` answered by any of them adds up all.

The table is an anonymous shared mapping made by the supervisor before it forks the
workers; each worker writes only its own row (under its own lock, as ``Counters``
does), and a reader sums the rows without a lock: every cell is one aligned 64-bit
word, written and read whole. A worker that dies leaves its row to the worker that
replaces it: the counts it made stay in the totals, and its gauges (connections
open, requests in flight), which died with it, are set back to zero first.
"""

from __future__ import annotations

import mmap
import os
import threading

from dualio.server.service import Counters
from transports.wire import methods

OPEN, TOTAL, IN_FLIGHT, SERVED, ERRORS = range(5)
"""A row's cells: the fields of ServerStats, in its order."""
WIDTH = 5
GAUGES = (OPEN, IN_FLIGHT)
"""Cells that say how things are now, not how many there have been: a new worker starts
them at zero."""


class CounterTable:
    """One row of counters per worker, shared with every process forked after it is made."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._memory = mmap.mmap(-1, workers * WIDTH * 8)  # anonymous, MAP_SHARED
        self._cells = memoryview(self._memory).cast("q")

    def row(self, slot: int) -> memoryview:
        return self._cells[slot * WIDTH:(slot + 1) * WIDTH]

    def reset_gauges(self, slot: int) -> None:
        """Only while no worker owns ``slot``."""
        row = self.row(slot)
        for cell in GAUGES:
            row[cell] = 0

    def totals(self) -> list[int]:
        cells = self._cells
        return [sum(cells[column::WIDTH]) for column in range(WIDTH)]

    def counters(self, slot: int) -> SlotCounters:
        return SlotCounters(self, slot)


class SlotCounters(Counters):
    """One worker's ``Counters``: they count in its row; the snapshot is the whole table's.
    (Its counts are not attributes: read them from ``snapshot()``.)"""

    def __init__(self, table: CounterTable, slot: int) -> None:  # no super(): no local counts
        self._lock = threading.Lock()
        self._table = table
        self._row = table.row(slot)

    def connection_opened(self) -> None:
        with self._lock:
            self._row[OPEN] += 1
            self._row[TOTAL] += 1

    def connection_closed(self) -> None:
        with self._lock:
            self._row[OPEN] -= 1

    def request_started(self) -> None:
        with self._lock:
            self._row[IN_FLIGHT] += 1

    def request_finished(self, served: bool) -> None:
        with self._lock:
            self._row[IN_FLIGHT] -= 1
            if served:
                self._row[SERVED] += 1

    def request_served_at_once(self, count: int = 1) -> None:
        with self._lock:
            self._row[SERVED] += count

    def error(self) -> None:
        with self._lock:
            self._row[ERRORS] += 1

    def snapshot(self) -> methods.ServerStats:
        totals = self._table.totals()
        return methods.ServerStats(
            connections_open=totals[OPEN], connections_total=totals[TOTAL],
            requests_in_flight=totals[IN_FLIGHT], requests_served=totals[SERVED],
            errors=totals[ERRORS], workers=self._table.workers, pid=os.getpid(),
        )
