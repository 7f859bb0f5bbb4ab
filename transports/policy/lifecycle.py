"""A client's connections over its life, as one state machine (no I/O).

Both faces make the same decisions about their connection; they are made here:

- whether the client is closed (by its user, or for good: a refusal that trying
  again cannot mend, or a failed connection with no retry policy);
- whether a call may use the present connection, or it must be replaced, and what
  the user is told then (``on_state``: CONNECTING, CONNECTED, DISCONNECTED with its
  cause, RECONNECTING, CLOSED; CLOSED is final);
- what a refused connect means for later calls;
- what becomes of a connection whose connect completed after the client was closed.

A face only connects, closes and holds its lock (a thread lock or an anyio lock):
one caller (re)connects at a time, the others wait and reuse what it made.
"""

from __future__ import annotations

from typing import Protocol

from dualio_transports.policy.events import ConnectionState, StateCallback, StateReporter
from dualio_transports.policy.retry import RetryPolicy, may_reconnect
from dualio_transports.wire.errors import ClosedError, ConnectError, DualioError


class Connection(Protocol):
    @property
    def closed(self) -> bool: ...

    @property
    def failure(self) -> DualioError | None: ...


class Lifecycle:
    """The decisions above, for one client. ``closing()`` is safe from any thread; the
    rest is used by one connecting caller at a time (under the face's lock)."""

    __slots__ = ("_state", "closed_by_user", "refused")

    def __init__(self, where: str, on_state: StateCallback | None) -> None:
        self._state = StateReporter(where, on_state)
        self.closed_by_user = False
        self.refused: ConnectError | None = None  # a refusal that retrying cannot mend

    def is_closed(self, conn: Connection | None, retry: RetryPolicy | None) -> bool:
        """Closed by the user, or for good: no later call would connect again."""
        if self.closed_by_user or self.refused is not None:
            return True
        return conn is not None and conn.closed and not may_reconnect(conn.failure, retry)

    def check_open(self) -> None:
        """ClosedError unless a call may (re)connect."""
        if self.closed_by_user:
            raise ClosedError("the client is closed")
        if self.refused is not None:
            raise ClosedError(f"the client is closed: {self.refused}") from self.refused

    def keeps(self, conn: Connection, retry: RetryPolicy | None) -> bool:
        """Whether a call uses ``conn`` as it is: it is healthy (another caller reconnected),
        or it failed for good (the call then meets its failure). If not, the user is told
        it is gone, and the face closes it and connects anew."""
        if not conn.closed or not may_reconnect(conn.failure, retry):
            return True
        self._state(ConnectionState.DISCONNECTED, conn.failure)
        return False

    def dropped(self) -> None:
        """A connection inherited across fork() is dropped, unused."""
        self._state(ConnectionState.DISCONNECTED)

    def connecting(self) -> None:
        again = self._state.state is not None
        self._state(ConnectionState.RECONNECTING if again else ConnectionState.CONNECTING)

    def connect_failed(self, error: ConnectError) -> None:
        if not error.retryable:
            self.refused = error  # the token, the version: every later call would meet it too

    def connected(self) -> bool:
        """A connect completed. False: the client was closed meanwhile, and the face
        closes the new connection and raises :meth:`closed_meanwhile`."""
        if self.closed_by_user:
            return False
        self._state(ConnectionState.CONNECTED)
        return True

    @staticmethod
    def closed_meanwhile() -> ClosedError:
        return ClosedError("the client was closed while it connected")

    def closing(self) -> None:
        """The user closes the client (once; the face makes sure)."""
        self.closed_by_user = True

    def closed(self) -> None:
        """The face has closed what was open."""
        self._state(ConnectionState.CLOSED)
