"""Trouble that repeats (accept() out of file descriptors, connections refused at the
limit) is logged once per LOG_INTERVAL, with a count of what was not, not once each time."""

from __future__ import annotations

LOG_INTERVAL = 5.0
"""At most one log line per this many seconds for each kind of repeated trouble."""


class Throttle:
    """``ready(now)``: True at most once per ``interval``; ``suppressed`` says how many
    calls were refused since the last True."""

    def __init__(self, interval: float = LOG_INTERVAL) -> None:
        self.interval = interval
        self._last = -interval - 1.0
        self._count = 0
        self.suppressed = 0

    def ready(self, now: float) -> bool:
        if now - self._last < self.interval:
            self._count += 1
            return False
        self.suppressed, self._count, self._last = self._count, 0, now
        return True
