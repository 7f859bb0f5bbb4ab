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

from dualio.server.service import IN_FLIGHT, OPEN, WIDTH, Counters, stats
from dualio_transports.dualio_protocol import methods

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
    """One worker's ``Counters``: they count in its row; the snapshot is the whole table's."""

    def __init__(self, table: CounterTable, slot: int) -> None:
        super().__init__(table.row(slot))
        self._table = table

    def snapshot(self) -> methods.ServerStats:
        return stats(self._table.totals(), self._table.workers)
