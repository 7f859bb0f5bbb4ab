"""Lets another thread abandon a blocking call, e.g. when its awaiter is cancelled.

The emulation runs each blocking call on a worker and hands the call's
:class:`CallHandle` to the awaiting task; when that task is cancelled, the loop
calls :meth:`CallHandle.cancel` and the worker returns promptly with
CallCancelled instead of holding its thread until the answer or the timeout
(its connection's reader looks up every 50 ms:
:class:`dualio_transports.emulation.reader_thread_connection.ReaderThreadConnection`).
"""

from __future__ import annotations

import threading

from dualio_transports.blocking.connection import BlockingConnection, LiveCall
from dualio_transports.wire import failures
from dualio_transports.wire.errors import DualioTimeout


class CallHandle:
    """Meets :class:`dualio_transports.blocking.connection.Handle`."""

    __slots__ = ("_call", "_cancelled", "_conn", "_lock", "left")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: BlockingConnection | None = None
        self._call: LiveCall | None = None
        self._cancelled = False
        self.left = False
        """The call's request left (it was bound once it had)."""

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def bind(self, conn: BlockingConnection, call: LiveCall) -> bool:
        with self._lock:
            self.left = True
            if self._cancelled:
                return False
            self._conn, self._call = conn, call
            return True

    def deadline_passed(self) -> DualioTimeout:
        """What the call's deadline means, seen from the loop (:func:`failures.deadline_passed`)."""
        return failures.deadline_passed(self.left)

    def release(self) -> None:
        """The call is over: a later ``cancel`` must not touch it."""
        with self._lock:
            self._conn = self._call = None

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            conn, call = self._conn, self._call
            self._conn = self._call = None
        if conn is not None and call is not None:
            conn.cancel(call)
