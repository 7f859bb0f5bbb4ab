"""The idle timeout: after the handshake, a connection that received nothing and had no
request in flight for ``idle_timeout`` seconds is told goodbye (CLOSE) and closed; one
whose peer read none of the answers for that long is closed without a word, since
nothing more can be sent on it. ``idle_timeout`` 0 turns both off.

Each model waits in its own way (one loop timer per connection, the socket timeout);
this says when a connection has been idle too long, what its log line is, and whether
it is told goodbye."""

from __future__ import annotations

import enum
import logging

from dualio.server.config import ServerConfig

log = logging.getLogger("dualio.server")


class Idleness(enum.Enum):
    """Why a connection is closed for its idle timeout; the value is its log line's words."""

    IDLE = "idle"
    """Nothing received and no request in flight: told goodbye, then closed."""
    STALLED = "the peer read none of the answers"
    """Answers waiting unsent: closed without a word."""

    @property
    def says_goodbye(self) -> bool:
        return self is Idleness.IDLE


def idle_socket_timeout(config: ServerConfig) -> float | None:
    """The timeout of a blocking socket after the handshake: None (block) when it is off."""
    return config.idle_timeout or None


def idle_check(config: ServerConfig, now: float, *, last_received: float, in_flight: bool,
               stalled_since: float | None) -> float | Idleness:
    """At ``now``, with ``idle_timeout`` on: the time to look again, or why the connection
    is closed. ``last_received``: when it last received bytes or answered a request;
    ``stalled_since``: when the peer stopped reading (writing paused), None while it reads.
    A request in flight defers the check by a whole timeout."""
    idle = config.idle_timeout
    if stalled_since is not None:
        since, why = stalled_since, Idleness.STALLED
    elif in_flight:
        since, why = now, Idleness.IDLE
    else:
        since, why = last_received, Idleness.IDLE
    if now - since < idle:
        return since + idle
    return why


def log_idle_close(config: ServerConfig, peer: str, why: Idleness) -> None:
    log.warning("%s: %s for %.0fs, closing", peer, why.value, config.idle_timeout)
