"""How long a transport allows for what is not a call: the limits every transport keeps,
written once (a call's own time is its deadline, :mod:`dualio_transports.wire.deadline`)."""

from __future__ import annotations

import time

from dualio_transports.wire.deadline import NO_DEADLINE, deadline

WRITE_STALL_LIMIT = 10.0
"""Seconds a write may make no progress (the peer does not read) before the connection is
failed, on every transport, whatever the call's own timeout: a call without a timeout
is not held for ever by a peer that stopped reading."""
CLOSE_GRACE = 1.0
"""Seconds a goodbye, a CANCEL or a PING may take to write, and a closing socket to close,
before it is closed regardless: a peer that reads nothing never holds up a close."""
CONTROL_WINDOW = 0.0005
"""Seconds a CANCEL or PING waits for room in the socket when nobody is writing: it is
advice to the server, so it never holds up the call that gives up; if the socket has no
room, the next writer sends it."""
BACKSTOP = 0.25
"""Seconds a thread waiting for a call that another thread's event loop keeps the time of
(the portal) allows beyond the call's deadline, in case that loop never answers."""
KEEPALIVE_SLACK = 0.001
"""A keepalive check is planned this much after the silence it looks for is due: a timer
that fires a little early must not find the silence a little short."""
IDLE_READ = 0.1
"""At most this long reading what arrived while a connection was idle (the kernel said it
is there, so the read is short); for transports with no "read only what is there"."""


def grace_deadline() -> float:
    """The deadline of a goodbye, a CANCEL or a PING written now, or of a close begun now."""
    return deadline(CLOSE_GRACE)


def control_deadline() -> float:
    """The deadline of a CANCEL or PING that waits for room in the socket (:data:`CONTROL_WINDOW`)."""
    return deadline(CONTROL_WINDOW)


def backstop_wait(until: float) -> float | None:
    """Seconds a thread waits for a call whose deadline another thread keeps: up to
    :data:`BACKSTOP` past ``until``; None (no limit) when there is no deadline."""
    if until == NO_DEADLINE:
        return None
    return max(until + BACKSTOP - time.monotonic(), 0.0)


def at_most(until: float, seconds: float) -> float:
    """``until``, or ``seconds`` from now if that comes first (a wait cut into slices)."""
    return min(until, deadline(seconds))


def idle_read_deadline(until: float) -> float:
    """The deadline of reading what came while idle, before a call that must end by ``until``."""
    return at_most(until, IDLE_READ)

