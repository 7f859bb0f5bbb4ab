"""What a server is told: address, token, TLS and the limits that keep one client from
hurting the server or the others (docs/protocol.md §11, docs/architecture.md §7)."""

from __future__ import annotations

import math
import socket
import ssl
from dataclasses import dataclass, field

from dualio.server.service import Counters
from dualio_transports.dualio_protocol.frames import DEFAULT_MAX_FRAME_SIZE

MAX_WORKERS = 64
"""The most worker processes ``--workers`` takes. A fixed number, not one per core: the
single-threaded models are meant to be run as a cluster of more processes than cores
(ten sequential servers on two cores, say), and beyond a few dozen more processes add
only memory and context switches."""


def check_workers(workers: int) -> None:
    """ValueError unless 1 <= ``workers`` <= MAX_WORKERS."""
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"--workers must be in 1..{MAX_WORKERS}, got {workers}")


DEFAULT_HANDSHAKE_TIMEOUT = 10.0
DEFAULT_IDLE_TIMEOUT = 300.0
DEFAULT_MAX_CONNECTIONS = 20_000
DEFAULT_MAX_IN_FLIGHT = 16_384
DEFAULT_MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024
DEFAULT_WRITE_BUFFER_HIGH = 64 * 1024
DEFAULT_BACKLOG = 4096
SEQUENTIAL_BACKLOG = 5
"""The sequential model's default listen backlog: socketserver.TCPServer's request_queue_size."""


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 7878
    token: str | None = None
    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT
    """Seconds from accept to a completed handshake (TLS included): an absolute deadline."""
    backlog: int = DEFAULT_BACKLOG
    """Connections the kernel queues for accept() (``listen``'s backlog)."""
    tls: ssl.SSLContext | None = None
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    """Open connections; one more is refused with ERROR id 0 BUSY."""
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT
    """Requests served at once on one connection; beyond it the server stops reading it."""
    max_in_flight_bytes: int = DEFAULT_MAX_IN_FLIGHT_BYTES
    """Payload bytes the requests in flight on one connection may hold (delayed echoes)."""
    write_buffer_high: int = DEFAULT_WRITE_BUFFER_HIGH
    """Unsent bytes per connection above which the server serves nothing more on it."""
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    """Seconds without a byte received and no request in flight, or with the peer reading
    none of the answers, before the server closes the connection; 0 turns it off."""
    counters: Counters = field(default_factory=Counters)
    reuse_port: bool = False
    """Bind with SO_REUSEPORT: other processes may listen on the same port (dualio serve
    --workers; Linux spreads the connections among them)."""
    listening_sockets: tuple[socket.socket, ...] = ()
    """Sockets already listening, to accept from instead of binding ``host`` and ``port``
    (made by the process that forked this one)."""

    def __post_init__(self) -> None:
        if not (isinstance(self.handshake_timeout, (int, float)) and
                0 < self.handshake_timeout <= 1e6 and math.isfinite(self.handshake_timeout)):
            raise ValueError(f"handshake_timeout must be in (0, 1e6] seconds, got {self.handshake_timeout!r}")
        if not (isinstance(self.idle_timeout, (int, float)) and 0 <= self.idle_timeout <= 1e6):
            raise ValueError(f"idle_timeout must be in [0, 1e6] seconds (0 = off), got {self.idle_timeout!r}")
        for name in ("max_connections", "max_in_flight", "max_in_flight_bytes", "write_buffer_high",
                     "backlog"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
