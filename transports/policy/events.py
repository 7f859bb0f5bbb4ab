"""What a client tells its user about its connection and its calls (no I/O).

- ``on_state(state, cause)``: the connection's state changed (:class:`ConnectionState`);
  ``cause`` is the error that ended the previous connection, if any.
- ``on_request(CallStarted)`` before each try of a call is sent, ``on_response(CallFinished)``
  after its answer or its error: method, bytes each way, duration, attempts, request id,
  and the call's number, which pairs them (calls of one client overlap, on threads or tasks).

A callback that raises is logged (``dualio.client``) and never breaks the call.
The logger ``dualio.client`` also says, at DEBUG, one line for each connect,
reconnect, retry and close; never a payload.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from dualio_transports.wire.errors import DualioError

log = logging.getLogger("dualio.client")


class ConnectionState(Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    RECONNECTING = "reconnecting"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class CallStarted:
    method: str
    request_bytes: int
    attempt: int  # 1 for the first try
    call_number: int = 0  # this client's count of calls, from 1; the same in the call's CallFinished


@dataclass(frozen=True, slots=True)
class CallFinished:
    method: str
    request_bytes: int
    response_bytes: int  # 0 when the call failed or its answer is not bytes or text
    duration: float  # seconds, from the first try to the answer or the final error
    attempts: int
    error: DualioError | None
    request_id: int | None = None  # the wire id of the last try; None when it was never sent
    call_number: int = 0  # as in the call's CallStarted


StateCallback = Callable[[ConnectionState, DualioError | None], object]
RequestCallback = Callable[[CallStarted], object]
ResponseCallback = Callable[[CallFinished], object]


class StateReporter:
    """The connection's state as the user sees it: each change reported once."""

    __slots__ = ("_callback", "_where", "state")

    def __init__(self, where: str, callback: StateCallback | None) -> None:
        self._where = where
        self._callback = callback
        self.state: ConnectionState | None = None

    def __call__(self, state: ConnectionState, cause: DualioError | None = None) -> None:
        if state is self.state or self.state is ConnectionState.CLOSED:
            return  # CLOSED is final: a connect that completes after close() is not news
        self.state = state
        if cause is None:
            log.debug("%s: %s", self._where, state.value)
        else:
            log.debug("%s: %s: %s: %s", self._where, state.value, type(cause).__name__, cause)
        if self._callback is not None:
            notify(self._callback, state, cause)


def notify(callback: Callable[..., object], *args: object) -> None:
    """Call a user's callback; one that raises is logged, never raised."""
    try:
        callback(*args)
    except Exception:
        log.exception("a dualio callback raised")


def answer_size(value: object) -> int:
    return len(value) if isinstance(value, bytes | str) else 0
