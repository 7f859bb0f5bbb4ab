"""The sequential server model: one connection at a time, served on the thread that
accepts it, as ``socketserver.TCPServer`` serves (accept, handle, close, accept again).

It is the server of the echo experiment without its threading mix-in, and the plain
synchronous server of the "is async worth it?" experiment. Connections that arrive
while one is served wait in the kernel's listen backlog — 5 by default, TCPServer's
``request_queue_size`` — and are accepted in turn; beyond the backlog the kernel drops
their SYNs and the client retries, or gives up at its connect timeout.

The connection is served by the threaded model's per-connection loop, called
directly on the accepting thread: the same protocol state machine, service, limits and
log lines. Only the thread per connection is gone. The accept loop is the threaded
model's too (a 0.1 s poll to see ``stop()``, a back-off when out of file descriptors).

What a peer can make it hold: the whole server, for as long as its connection lasts.
That is bounded by the handshake deadline before WELCOME, by the idle timeout after it
(so the idle timeout may not be 0 here), and by the per-connection limits of the
threaded model while requests are in flight: each request's delay (at most a day) and
``max_in_flight`` queued requests. ``stop()`` shuts the connection being served down,
so stopping does not wait for a client (at most STOP_GRACE, for a request that sleeps
while its connection's queue is full).
"""

from __future__ import annotations

import logging
import socket
import time

from dualio.server.config import ServerConfig
from dualio.server.threaded_model import ThreadedServer, _Handler

log = logging.getLogger("dualio.server")

STOP_POLL = 0.05
"""How often ``stop()`` shuts down what the accepting thread serves, until it has ended."""
STOP_GRACE = 5.0
"""How long ``stop()`` waits for the accepting thread: a request that sleeps while its
connection's queue is full notices the shutdown only when its delay ends."""


class SequentialServer(ThreadedServer):
    """Serve one connection at a time on a background thread until ``stop()``."""

    def __init__(self, config: ServerConfig) -> None:
        if not config.idle_timeout:
            raise ValueError("the sequential model needs an idle timeout above 0: "
                             "one idle connection would hold the server forever")
        super().__init__(config)

    def _accepted(self, sock: socket.socket, address: object) -> None:
        if self._stopping.is_set():
            sock.close()
            return
        accepted_at = time.monotonic()
        with self._lock:
            self._open += 1  # given back by connection_ended() when the handler finishes
        sock.settimeout(None)
        _Handler(self, sock, address, accepted_at).run()

    def stop(self) -> None:
        thread, listener = self._thread, self._listener
        if thread is None or listener is None:
            return
        self._stopping.set()
        deadline = time.monotonic() + STOP_GRACE
        while thread.is_alive() and time.monotonic() < deadline:
            self._shut_connections()  # the served one runs on the accepting thread
            thread.join(STOP_POLL)
        if thread.is_alive():  # a request sleeping while its connection's queue is full
            log.warning("stopping with a request still in progress (its thread is left to end)")
        listener.close()
        self._listener = None
        self._thread = None
