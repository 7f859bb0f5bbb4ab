"""Peak OS threads and resident memory of this process (and, if asked, of the server's)
while a measurement runs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType


def _status() -> tuple[int, int]:
    """(threads, resident bytes) of this process, from /proc."""
    threads = rss = 0
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Threads:"):
                    threads = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
    except OSError:
        threads = threading.active_count()
    return threads, rss


class PeakSampler:
    """``with PeakSampler() as peak: ...`` then ``peak.threads``, ``peak.rss``, and
    ``peak.server_rss`` (0 when no ``server_rss`` reader was given or it read nothing).

    Samples every ``interval`` seconds on one thread of its own (not counted).
    """

    def __init__(self, interval: float = 0.01,
                 server_rss: Callable[[], int | None] | None = None) -> None:
        self.interval = interval
        self.threads = 0
        self.rss = 0
        self.server_rss = 0
        self._read_server_rss = server_rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lab-sampler", daemon=True)

    def _sample(self) -> None:
        threads, rss = _status()
        self.threads = max(self.threads, threads - 1)
        self.rss = max(self.rss, rss)
        if self._read_server_rss is not None:
            self.server_rss = max(self.server_rss, self._read_server_rss() or 0)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        self._sample()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
