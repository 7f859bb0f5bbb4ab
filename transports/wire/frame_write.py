"""The rules of writing frames to a connection, once for every transport (no I/O).

A transport that writes through a socket of its own (blocking) or through a stream
(anyio) makes one :class:`FrameWrite` per batch of whole frames, sends what
:attr:`FrameWrite.rest` says, reports each send with :meth:`FrameWrite.sent`, and
waits for the socket at most until :meth:`FrameWrite.wait_until`. What an ending
short of the whole batch means is decided here:

- the peer took nothing for ``WRITE_STALL_LIMIT`` seconds: the connection fails with
  :func:`failures.write_stalled`, whatever the call's own timeout;
- the call's deadline passed: the call times out (:func:`failures.write_timeout`), and if
  part of a frame left, the connection fails with :func:`failures.torn_write` too;
- the writer was interrupted (a cancel, a ``KeyboardInterrupt``, a ``gevent.Timeout``):
  if part of a frame may have left, the connection fails with :func:`failures.torn_write`.

A connection failed here fails with ``ConnectionLost``, never as a closed client:
the next call connects anew, as after any lost connection.
"""

from __future__ import annotations

import time

from dualio_transports.wire import failures, timing
from dualio_transports.wire.errors import ConnectionLost, DualioError


class FrameWrite:
    """One batch of whole frames on its way out, by ``until``.

    ``first_wait``: seconds the first wait may last however late it starts (the time the
    batch had as it left a queue, for a writer whose send begins only when its wait does:
    a wait already over would give up a send that never began)."""

    __slots__ = ("_stall_at", "data", "done", "first_wait", "until", "upto")

    def __init__(self, data: bytes, until: float, first_wait: float | None = None, upto: int = 0) -> None:
        self.data = data
        self.until = until
        self.first_wait = first_wait
        self.upto = upto  # for a writer that numbers its frames: how many are sent once this is
        self.done = 0  # bytes of ``data`` on the wire
        self._stall_at = 0.0

    @property
    def rest(self) -> memoryview:
        """What is left to send."""
        return memoryview(self.data)[self.done:]

    @property
    def finished(self) -> bool:
        return self.done >= len(self.data)

    @property
    def cut(self) -> bool:
        """Part of a frame is on the wire, not all of it."""
        return 0 < self.done < len(self.data)

    def sent(self, count: int) -> None:
        self.done += count

    def wait_until(self) -> float:
        """How long the next wait for the socket may last: until the call's deadline, or
        ``WRITE_STALL_LIMIT`` from now, whichever is first (before the first byte, no less
        than ``first_wait``)."""
        now = time.monotonic()
        self._stall_at = now + timing.WRITE_STALL_LIMIT
        end = min(self.until, self._stall_at)
        if self.done == 0 and self.first_wait is not None:
            end = max(end, now + min(self.first_wait, timing.WRITE_STALL_LIMIT))
        return end

    def expired(self, may_have_begun: bool = False) -> tuple[DualioError, ConnectionLost | None]:
        """A wait ended without room in the socket: the error the writer raises, and the
        connection's failure (None: the connection is still usable). ``may_have_begun``:
        the transport cannot tell how much of the send it began went out."""
        if self._stall_at < self.until:
            stalled = failures.write_stalled()
            return stalled, stalled
        cut = self.cut or (may_have_begun and not self.finished)
        return failures.write_timeout(), failures.torn_write("timed out") if cut else None

    def interrupted(self, why: str, may_have_begun: bool = False) -> ConnectionLost | None:
        """The writer was interrupted (``why``: "cancelled", "interrupted"): the connection's
        failure if part of a frame may be on the wire, else None."""
        if self.cut or (may_have_begun and not self.finished):
            return failures.torn_write(why)
        return None


def buffer_stalled(before: int, now: int) -> ConnectionLost | None:
    """The stall rule for a transport whose writes go into a buffer of its own (asyncio's),
    looked at every ``WRITE_STALL_LIMIT`` while writing is paused: a buffer that did not
    shrink since the last look (``before`` bytes, ``now`` bytes) means the peer is not
    reading, and the connection fails as a stalled write does on every transport."""
    return failures.write_stalled() if now >= before else None
