"""Where the lab's processes run: the servers it starts on the first core, the client
(the lab process and everything it starts) on the others.

On a machine of few shared cores, a client and a server left to the scheduler
ping-pong at two speeds: on one core (a context switch per call) or on two (a
wake-up across cores). Which one a cell gets changes from cell to cell and run to
run, and with it every ratio between cells. Pinned, every cell is the two-core case.
The ``models`` scenario measures what processes and threads make of the whole
machine, so its cells run on every core. ``--no-pin`` turns placement off; it is
also off where the OS cannot pin (no ``sched_setaffinity``) or with fewer than two
cores.
"""

from __future__ import annotations

import os
from typing import Any

UNPINNED_SCENARIOS = frozenset({"models"})


def _tasks(pid: int) -> list[int]:
    """The threads of process ``pid`` (just ``pid`` where /proc does not list them)."""
    try:
        return [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return [pid]


def _pin(pid: int, cpus: set[int]) -> None:
    for tid in _tasks(pid):
        try:
            os.sched_setaffinity(tid, cpus)
        except (OSError, ValueError):  # a thread that just ended
            pass


class Placement:
    def __init__(self, enabled: bool = True) -> None:
        cpus: set[int] = set()
        if enabled and hasattr(os, "sched_getaffinity"):
            cpus = set(os.sched_getaffinity(0))
        self.every = cpus
        self.enabled = len(cpus) >= 2
        self.server = {min(cpus)} if self.enabled else set()
        self.client = cpus - self.server if self.enabled else set()
        self._current: set[int] | None = None

    def pin_server(self, pid: int | None) -> None:
        if self.enabled and pid is not None:
            _pin(pid, self.server)

    def for_scenario(self, scenario: str) -> None:
        """Place the lab process (every thread of it) for a cell of ``scenario``."""
        if not self.enabled:
            return
        wanted = self.every if scenario in UNPINNED_SCENARIOS else self.client
        if wanted != self._current:
            _pin(os.getpid(), wanted)
            self._current = wanted

    def release(self) -> None:
        if self.enabled and self._current not in (None, self.every):
            _pin(os.getpid(), self.every)
        self._current = None

    def describe(self) -> dict[str, Any]:
        if not self.enabled:
            return {"pinned": False}
        return {"pinned": True, "server_cpus": sorted(self.server), "client_cpus": sorted(self.client),
                "unpinned_scenarios": sorted(UNPINNED_SCENARIOS)}
