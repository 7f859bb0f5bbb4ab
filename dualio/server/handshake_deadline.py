"""The handshake deadline: a peer has ``handshake_timeout`` seconds from its accept to
complete the handshake, TLS included. WELCOME is sent by then, or the connection is
dropped without a frame.

Each model waits in its own way (a loop timer, a socket timeout recomputed before each
read); this says when the deadline falls and what dropping a late peer does."""

from __future__ import annotations

import logging

from dualio.server.config import ServerConfig
from dualio_transports.dualio_protocol.server_protocol import ServerProtocol

log = logging.getLogger("dualio.server")


def handshake_deadline(config: ServerConfig, accepted_at: float) -> float:
    """When a peer accepted at ``accepted_at`` must have completed the handshake, on the
    same clock."""
    return accepted_at + config.handshake_timeout


def drop_late_peer(config: ServerConfig, proto: ServerProtocol, peer: str) -> None:
    """The deadline passed before the handshake completed: one log line, and ``proto``
    ends without a frame (counted as an error). The connection is then dropped."""
    reason = f"no HELLO within {config.handshake_timeout:.1f}s of accept"
    log.warning("%s: %s, closing", peer, reason)
    proto.abort(reason)
