"""What the accept loops do when accept() fails: go on at once when the failure is the
one connection's, back off when the process is out of a resource."""

from __future__ import annotations

import errno
import logging

from dualio.server.fd_limit import fd_limit
from dualio.server.log_throttle import Throttle

log = logging.getLogger("dualio.server")

RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""accept() failed for want of a process or system resource: retrying at once would spin."""
PEER_ERRNOS = frozenset({errno.ECONNABORTED, errno.EPROTO, errno.EPERM, errno.EINTR, errno.EAGAIN})
"""accept() failed because of that one connection: go on with the next."""


class AcceptBackoff:
    """Out of file descriptors (or buffers), accept() fails at once and the listening socket
    stays readable: retrying at once is a busy loop. Wait 0.1 s, doubling to 1 s while it
    lasts; one log line per LOG_INTERVAL, naming the open-files limit."""

    FIRST = 0.1
    LAST = 1.0

    def __init__(self) -> None:
        self.delay = 0.0
        self._log = Throttle()

    def failed(self, exc: OSError, now: float) -> float:
        """Seconds to wait before the next accept()."""
        self.delay = min(self.LAST, self.delay * 2) if self.delay else self.FIRST
        if self._log.ready(now):
            log.error("accept paused %.1fs: %s (open-files limit %d; %d similar errors not shown)",
                      self.delay, exc.strerror or exc, fd_limit(), self._log.suppressed)
        return self.delay

    def succeeded(self) -> None:
        self.delay = 0.0
