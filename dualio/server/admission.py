"""Admission: a server holds at most ``max_connections`` connections open; one more is
sent ERROR id 0 BUSY and closed, or over TLS closed without a word (the refusal would
cost a TLS handshake). Refusals are logged at most once per LOG_INTERVAL.

Each model counts its own open connections and does its own socket work; this decides
whether one more is admitted and what a refused one is sent."""

from __future__ import annotations

import logging

from dualio.server.config import ServerConfig
from dualio.server.log_throttle import Throttle
from dualio_transports.dualio_protocol.server_protocol import ServerProtocol
from dualio_transports.wire.errors import ErrorCode

log = logging.getLogger("dualio.server")


class Admission:
    """One per server: ``admits(open_connections)``, then ``refusal(now)`` for a connection
    it did not admit."""

    def __init__(self, config: ServerConfig) -> None:
        self._config = config
        self._log = Throttle()

    def admits(self, open_connections: int) -> bool:
        """Whether a connection accepted while ``open_connections`` are open is served."""
        return open_connections < self._config.max_connections

    def refusal(self, now: float) -> bytes:
        """The bytes a connection refused at ``now`` is sent before it is closed: ERROR id 0
        BUSY, made (and so counted) by ServerProtocol like every ERROR frame; nothing over
        TLS."""
        config = self._config
        if self._log.ready(now):
            log.warning("connection limit %d reached: refusing new connections with BUSY "
                        "(%d more refused since the last line)", config.max_connections,
                        self._log.suppressed)
        if config.tls:
            return b""
        proto = ServerProtocol(on_error=config.counters.error)
        proto.fail_connection(ErrorCode.BUSY, "connection limit reached")
        return proto.take_output()
